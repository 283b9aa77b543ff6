"""Replay pace: a stream recorded over ~2 seconds, replayed at pace 1.0 and 2.0 (issue #33).

A provider yields 41 events 50 ms apart (recorded through the real `RecordingProvider`); the file
is replayed with `ReplayProvider(path, pace=…)` and the wall time of the whole stream compared with
the recorded one divided by the pace. Target: within 10%.

    python bench/replay_pace.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import MODEL, banner, request_context, scratch_dir, stream_events

from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.recorder import RecordingProvider
from openprogram.providers.recording.replayer import ReplayProvider

GAP = 0.05


class SlowProvider:
    requires_credentials = False

    async def stream(self, model: Any, context: Any, options: Any = None) -> Any:
        for event in stream_events(37):
            await asyncio.sleep(GAP)
            yield event

    stream_simple = stream


async def consume(provider: Any) -> float:
    start = time.perf_counter()
    async for _ in provider.stream(MODEL, request_context(0), None):
        pass
    return time.perf_counter() - start


def main() -> None:
    banner("replay pace: a ~2 s recorded stream replayed at pace 1.0 and 2.0")
    lines = []
    with scratch_dir("pace") as folder:
        path = folder / "pace.jsonl"
        recorder = RecordingProvider(SlowProvider(), path)
        asyncio.run(consume(recorder))
        recorder.sink.close()
        (call,) = read_recording(path).calls
        recorded = (call.event_ms[-1] or 0) / 1000
        print(f"   recorded: {len(call.events)} events over {recorded:.3f} s (last event's ms)")
        for pace in (None, 1.0, 2.0):
            took = asyncio.run(consume(ReplayProvider(path, project_rules=False, pace=pace)))
            if pace is None:
                print(f"   pace None (default): {took:.3f} s")
                continue
            expected = recorded / pace
            error = abs(took - expected) / expected
            print(f"   pace {pace}: {took:.3f} s, expected {expected:.3f} s, off by {error:.1%}")
            verdict = "target met" if error <= 0.10 else "target NOT met"
            lines.append(f"TARGET pace {pace}: off by {error:.1%} (target ≤ 10%): {verdict}")
    for line in lines:
        print(f"   {line}")


if __name__ == "__main__":
    main()
