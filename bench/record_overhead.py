"""Target 1: recording overhead per event ≤ 2× the bare cost of serialising it and appending it.

Workload: one call streaming 10,000 text deltas (plus start, text_start, text_end, done) from a
provider that yields pre-built events, recorded by `RecordingProvider` into a fresh file.

- bare stream: the same events consumed straight from the provider (nothing recorded);
- recorded: consumed through `RecordingProvider` (redaction, rows, batching, flock, fsync);
- baseline: per event `event.model_dump_json()` and one `os.write` of that line to an O_APPEND
  file, then one fsync (what the recording does per call), i.e. "serialise to JSON and append".

overhead per event = (recorded - bare stream) / events; ratio = overhead / baseline per event.
For reference the same ratio against a buffered baseline (all lines joined, one write) is shown.

    python bench/record_overhead.py [--quick] [--runs N]
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from _common import (
    MODEL,
    ListProvider,
    alternate,
    banner,
    drain,
    parse_args,
    request_context,
    scratch_dir,
    stream_events,
    us,
    verdict,
)

from openprogram.providers.recording import RecordingProvider, remove_secret_values
from openprogram.providers.recording.row_encoding import encode_row


def main() -> None:
    args = parse_args(__doc__)
    deltas = 2_000 if args.quick else 10_000
    runs = args.runs or (5 if args.quick else 9)
    banner(f"record_overhead: one call of {deltas:,} text deltas, median of {runs} runs")
    events = stream_events(deltas)
    count = len(events)
    context = request_context(0)
    loop = asyncio.new_event_loop()
    source = ListProvider(events)

    with scratch_dir("record") as root:
        serial = iter(range(1_000_000))

        def fresh(name: str) -> Path:
            return root / f"{name}-{next(serial)}.jsonl"

        def bare() -> None:
            loop.run_until_complete(drain(source.stream(MODEL, context)))

        def recorded() -> None:
            path = fresh("recorded")
            recorder = RecordingProvider(source, path)
            loop.run_until_complete(drain(recorder.stream(MODEL, context)))
            recorder.sink.close()
            path.unlink()

        def baseline() -> None:
            path = fresh("baseline")
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            for event in events:
                os.write(fd, event.model_dump_json().encode() + b"\n")
            os.fsync(fd)
            os.close(fd)
            path.unlink()

        def buffered() -> None:
            path = fresh("buffered")
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            os.write(fd, b"".join(e.model_dump_json().encode() + b"\n" for e in events))
            os.fsync(fd)
            os.close(fd)
            path.unlink()

        times = alternate(runs, bare=bare, recorded=recorded, baseline=baseline, buffered=buffered)

    overhead = (times["recorded"] - times["bare"]) / count
    base = times["baseline"] / count
    print(f"   events per run             {count:,}")
    print(f"   bare stream      per event {us(times['bare'] / count)}")
    print(f"   recorded         per event {us(times['recorded'] / count)}")
    print(f"   recording overhead per evt {us(overhead)}")
    print(f"   baseline (dump+write/line) {us(base)}")
    print(f"   buffered baseline (1 write){us(times['buffered'] / count)}")
    print(
        f"   overhead / buffered baseline: ratio {overhead / (times['buffered'] / count):.2f} (reference)"
    )

    # Where a recorded event's time goes (each step alone, same events).
    sample = events[2:1002]

    def step(fn) -> float:  # type: ignore[no-untyped-def]
        return alternate(runs, step=lambda: [fn(e) for e in sample])["step"] / len(sample)

    dumped = [e.model_dump(mode="json") for e in sample]
    lookup = {id(e): d for e, d in zip(sample, dumped, strict=True)}
    print("   per-event steps (library functions alone):")
    print(f"     model_dump(mode='json')  {us(step(lambda e: e.model_dump(mode='json')))}")
    print(
        f"     remove_secret_values     {us(step(lambda e: remove_secret_values(lookup[id(e)])))}"
    )
    print(
        "     encode_row               "
        + us(
            step(
                lambda e: encode_row(
                    {"call_index": 0, "event": lookup[id(e)], "event_index": 1, "type": "event"}
                )
            )
        )
    )
    print(f"   TARGET 1: overhead / baseline {verdict(overhead / base, 2.0)}")


if __name__ == "__main__":
    main()
