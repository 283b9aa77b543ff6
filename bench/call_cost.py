"""Target 2: the cost of a call does not grow with the file (call #10,000 within 1.5× of call #10).

One file receives 10,000 calls, each a whole call as `RecordingProvider` writes it (request row,
a short stream of 10 events, `call_end`, fsync), and every call is timed on its own. The figure
for "call #10" is the median of calls 10–109, for "call #10,000" the median of the last 100
calls; the ratio is late / early. A writer that rescanned the file per call would grow linearly.

Then the same with two processes appending to one file at once (5,000 calls each, started
together): each process times its own calls, so its early window is near call #10 of the file
and its late window near call #10,000; both processes' ratios are shown.

    python bench/call_cost.py [--quick] [--calls N]
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

WINDOW = 100


def record_calls(path: Path, calls: int, go: Path | None = None) -> list[float]:
    """Record `calls` calls into `path`; the seconds each one took."""
    from _common import MODEL, ListProvider, drain, stream_events

    from openprogram.providers import Context, UserMessage
    from openprogram.providers.recording import RecordingProvider

    events = stream_events(6)
    recorder = RecordingProvider(ListProvider(events), path)
    contexts = [
        Context(messages=[UserMessage(content=f"call {n} of {os.getpid()}")]) for n in range(calls)
    ]
    loop = asyncio.new_event_loop()
    while go is not None and not go.exists():
        time.sleep(0.001)
    times = []
    for context in contexts:
        start = time.perf_counter()
        loop.run_until_complete(drain(recorder.stream(MODEL, context)))
        times.append(time.perf_counter() - start)
    recorder.sink.close()
    return times


def windows(times: list[float]) -> tuple[float, float]:
    from _common import median

    return median(times[10 : 10 + WINDOW]), median(times[-WINDOW:])


def main() -> None:
    from _common import banner, parse_args, scratch_dir, us, verdict

    from openprogram.providers.recording.reader import read_recording

    def options(parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--calls", type=int, default=None, help="calls in the file")

    args = parse_args(__doc__, options)
    calls = args.calls or (2_000 if args.quick else 10_000)
    banner(f"call_cost: {calls:,} calls into one file (10 events each, fsync per call)")
    with scratch_dir("calls") as root:
        path = root / "one.jsonl"
        times = record_calls(path, calls)
        early, late = windows(times)
        size = path.stat().st_size
        print(
            f"   one process:  call #10 {us(early)}   call #{calls:,} {us(late)}   "
            f"file {size / 1e6:.1f} MB"
        )
        print(f"   TARGET 2 (one process):  late / early {verdict(late / early, 1.5)}")

        shared = root / "shared.jsonl"
        go = root / "go"
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                filter(None, [os.environ.get("PYTHONPATH"), str(Path(__file__).resolve().parent)])
            ),
        }
        children = [
            subprocess.Popen(
                [sys.executable, __file__, "--child", str(shared), str(calls // 2), str(go)],
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
            for _ in range(2)
        ]
        time.sleep(1.0)  # both children imported and waiting
        go.touch()
        results = [json.loads(child.communicate(timeout=600)[0]) for child in children]
        recording = read_recording(shared)
        print(f"   two processes: {len(recording.calls):,} calls in the file, strictly valid")
        for number, child_times in enumerate(results, start=1):
            early, late = windows(child_times)
            print(
                f"   process {number}: early {us(early)}   late {us(late)}   "
                f"TARGET 2 (two processes): late / early {verdict(late / early, 1.5)}"
            )


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        print(json.dumps(record_calls(Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))))
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        main()
