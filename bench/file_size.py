"""Target 3: file size is linear, at most ~250 bytes per event plus the delta text.

A stream of N text deltas (N = 500, 1,000, 2,000, 4,000; start, text_start, text_end and done
around them) is recorded by `RecordingProvider` into a fresh file. Shown per N: the file size,
bytes per event beyond the text the deltas carry (the text_end and done events carry the whole
text once more each, which is counted here against the target too), and the bytes of one delta
row beyond its delta text (the fixed envelope). Baseline: the same events as bare JSON
(`event.model_dump_json()` plus a newline) with no envelope; ratio = file size / baseline size.
Linear means bytes per event stay flat as N grows: no cumulative snapshot in any event.

    python bench/file_size.py [--quick]
"""

from __future__ import annotations

import asyncio

from _common import (
    MODEL,
    ListProvider,
    banner,
    drain,
    parse_args,
    request_context,
    scratch_dir,
    stream_events,
)

from openprogram.providers.recording import RecordingProvider


def main() -> None:
    args = parse_args(__doc__)
    sizes = (500, 1_000, 2_000) if args.quick else (500, 1_000, 2_000, 4_000)
    banner("file_size: one recorded stream of N text deltas")
    loop = asyncio.new_event_loop()
    context = request_context(0)
    at_2000 = 0.0
    with scratch_dir("size") as root:
        print(
            f"   {'deltas':>7s} {'file bytes':>11s} {'bytes/event beyond text':>24s} "
            f"{'delta row envelope':>19s} {'bare JSON bytes':>16s} {'ratio':>6s}"
        )
        for deltas in sizes:
            events = stream_events(deltas, text="word")
            path = root / f"stream-{deltas}.jsonl"
            recorder = RecordingProvider(ListProvider(events), path)
            loop.run_until_complete(drain(recorder.stream(MODEL, context)))
            recorder.sink.close()
            size = path.stat().st_size
            text = sum(len(e.delta.encode()) for e in events if e.type == "text_delta")
            per_event = (size - text) / len(events)
            lines = path.read_bytes().splitlines()
            delta_row = next(line for line in lines if b'"type":"text_delta"' in line)
            envelope = len(delta_row) + 1 - len(events[2].delta.encode())
            bare = sum(len(e.model_dump_json()) + 1 for e in events)
            print(
                f"   {deltas:7,d} {size:11,d} {per_event:24.1f} {envelope:19d} {bare:16,d} "
                f"{size / bare:6.2f}"
            )
            if deltas == 2_000:
                at_2000 = per_event
    met = "target met" if at_2000 <= 250 else "target NOT met"
    print(
        f"   TARGET 3: bytes per event beyond the delta text at 2,000 deltas {at_2000:.1f} "
        f"(target ≤ 250): {met}"
    )


if __name__ == "__main__":
    main()
