"""Target 4: replay throughput ≥ 0.7× validating the events once; opening 100 MB ≤ 2× json.loads.

Part 1, replay throughput. A recording of 2,000 calls (a ~1 KB request each, 50 events per call)
is replayed from scratch: `ReplayProvider(path)` (the strict read, every row validated once) and
then every call through its `stream()`: the request dumped, matched against the recorded one,
the events consumed. Baseline: `parse_row(line)` of every row of the same file, once,
which is the least a replay that validates what it serves must do. Ratio = replay events per
second / baseline events per second.

Part 2, opening. `read_recording(path)` of a 100 MB recording against reading the same file and
`json.loads` of every line (results not kept, so the baseline pays no memory or GC cost).

    python bench/replay_throughput.py [--quick] [--runs N]
"""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path

from _common import (
    MODEL,
    alternate,
    banner,
    ms,
    parse_args,
    recording_bytes,
    request_context,
    scratch_dir,
    verdict,
    write_private,
)

from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.row_models import parse_row
from openprogram.providers.replay import ReplayProvider

DELTAS = 46  # + start, text_start, text_end, done = 50 events per call


def replay_part(root: Path, calls: int, runs: int) -> None:
    path = write_private(root / "replay.jsonl", recording_bytes(calls, DELTAS))
    lines = path.read_bytes().split(b"\n")[:-1]
    events = calls * (DELTAS + 4)
    contexts = [request_context(call) for call in range(calls)]
    loop = asyncio.new_event_loop()
    print(
        f"   part 1: {calls:,} calls, {events:,} events, {len(lines):,} rows, "
        f"{path.stat().st_size / 1e6:.1f} MB"
    )

    def baseline() -> None:  # validated once and kept, as a replay must keep them
        kept = [parse_row(line) for line in lines]
        assert len(kept) == len(lines)

    def baseline_paused() -> None:  # the same with the garbage collector paused, as ours does
        gc.disable()
        try:
            kept = [parse_row(line) for line in lines]
        finally:
            gc.enable()
        assert len(kept) == len(lines)

    def baseline_discarded() -> None:  # validated once, each row dropped at once
        for line in lines:
            parse_row(line)

    async def run_all(provider: ReplayProvider) -> int:
        count = 0
        for context in contexts:
            async for _ in provider.stream(MODEL, context):
                count += 1
        return count

    def replay() -> None:
        provider = ReplayProvider(path)
        served = loop.run_until_complete(run_all(provider))
        assert served == events and provider.call_count == calls
        provider.assert_consumed()

    def open_only() -> None:
        ReplayProvider(path)

    times = alternate(
        runs,
        baseline=baseline,
        baseline_paused=baseline_paused,
        baseline_discarded=baseline_discarded,
        replay=replay,
        open_only=open_only,
    )
    per_event = {name: seconds / events for name, seconds in times.items()}
    print(
        f"   baseline: validate every row once, keep them {ms(times['baseline'])} "
        f"({1 / per_event['baseline']:,.0f} events/s)"
    )
    print(f"     the same, collector paused               {ms(times['baseline_paused'])}")
    print(f"     the same, each row dropped at once       {ms(times['baseline_discarded'])}")
    print(
        f"   replay (open + serve every call)  {ms(times['replay'])} "
        f"({1 / per_event['replay']:,.0f} events/s)"
    )
    print(
        f"     of which opening (strict read)  {ms(times['open_only'])}; serving "
        f"{(times['replay'] - times['open_only']) / calls * 1e6:.1f} µs per call"
    )
    for name in ("baseline_paused", "baseline_discarded"):
        print(f"     replay throughput / {name}: ratio {times[name] / times['replay']:.2f}")
    ratio = times["baseline"] / times["replay"]
    print(f"   TARGET 4a: replay throughput / baseline {verdict(ratio, 0.7, at_least=True)}")


def open_part(root: Path, megabytes: int, runs: int) -> None:
    chunk = recording_bytes(500, DELTAS)
    header, _, body = chunk.partition(b"\n")
    calls_per_chunk = 500
    parts = [header + b"\n"]
    size, first = len(parts[0]), 0
    while size < megabytes * 1_000_000:
        block = (
            body
            if first == 0
            else recording_bytes(calls_per_chunk, DELTAS, first_call=first, header=False)
        )
        parts.append(block)
        size += len(block)
        first += calls_per_chunk
    path = write_private(root / "big.jsonl", b"".join(parts))
    del parts
    print(f"   part 2: {path.stat().st_size / 1e6:.1f} MB, {first:,} calls")

    def baseline() -> None:
        for line in path.read_bytes().split(b"\n"):
            if line:
                json.loads(line)

    def strict() -> None:
        read_recording(path)

    times = alternate(max(3, runs // 2), baseline=baseline, read_recording=strict)
    print(f"   baseline: read + json.loads every line {ms(times['baseline'])}")
    print(f"   read_recording (strict, validated)     {ms(times['read_recording'])}")
    ratio = times["read_recording"] / times["baseline"]
    print(f"   TARGET 4b: opening / json.loads {verdict(ratio, 2.0)}")


def main() -> None:
    args = parse_args(__doc__)
    calls = 500 if args.quick else 2_000
    megabytes = 20 if args.quick else 100
    runs = args.runs or (3 if args.quick else 5)
    banner(f"replay_throughput: median of {runs} runs")
    with scratch_dir("replay") as root:
        replay_part(root, calls, runs)
        open_part(root, megabytes, runs)


if __name__ == "__main__":
    main()
