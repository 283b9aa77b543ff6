"""A recording child killed with SIGKILL at known points: whole calls survive, repair salvages.

The child stops at the point a test names (call n, after event k reached the caller) and says so;
only then is it killed, so every kill lands exactly where the test expects, run after run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openprogram.providers.recording.reader import read_recording, scan_recording
from openprogram.recordings import repair_recording
from tests.recording_files import REPO_ROOT

EVENTS_PER_CALL = 304  # start, text_start, 300 deltas, text_end, done

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.scripted import ScriptedProvider, TextStep

    path, stop_call, stop_event = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    model = Model(id="m", api="scripted", provider="scripted")
    script = ScriptedProvider(responder=lambda c, n: [TextStep(text=f"word{n} " * 300)])
    recorder = RecordingProvider(script, path)

    async def main():
        n = 0
        while True:
            context = Context(messages=[UserMessage(content=f"call {n}")])
            k = 0
            async for _ in recorder.stream(model, context):
                if (n, k) == (stop_call, stop_event):
                    print("stopped", flush=True)
                    sys.stdin.readline()  # wait here for the SIGKILL
                k += 1
            n += 1

    asyncio.run(main())
    """
)

KILL_POINTS = [
    (call, event)
    for call in (0, 1, 2)
    for event in (0, 1, EVENTS_PER_CALL // 2, EVENTS_PER_CALL - 2, EVENTS_PER_CALL - 1)
]
"""After the start event, the first delta, mid-stream, after text_end, after done."""


def kill_at(path: Path, call: int, event: int) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(call), str(event)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "stopped"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)


@pytest.mark.parametrize(("call", "event"), KILL_POINTS)
def test_sigkill_keeps_every_whole_call_and_names_the_unfinished_one(
    openprogram_home: Path, call: int, event: int
) -> None:
    root = openprogram_home / "recordings"
    root.mkdir(parents=True, mode=0o700)
    path = root / f"killed-{call}-{event}.jsonl"
    kill_at(path, call, event)

    scan = scan_recording(path)
    finished = event == EVENTS_PER_CALL - 1  # `done` reached the caller: the call is on disk
    whole = call + 1 if finished else call
    assert [c.call_index for c in scan.calls] == list(range(whole))
    for recorded in scan.calls:
        assert recorded.outcome == "complete" and len(recorded.events) == EVENTS_PER_CALL
    if finished:
        assert scan.valid and scan.facts.unfinished_calls == ()
        return
    # the call it was in the middle of is named, and nothing else is wrong
    assert scan.facts.unfinished_calls == (call,)
    assert [p.call_index for p in scan.problems] == [call]
    assert "no call_end" in scan.problems[0].reason
    report = repair_recording(path.stem)
    assert not report.already_valid and report.kept_calls == whole
    assert len(read_recording(path).calls) == whole
    kept = Path(report.damaged_copy or "").read_bytes()
    assert kept.startswith(path.read_bytes()[:100])
    print(json.dumps({"killed_at": [call, event], "whole_calls": whole}))
