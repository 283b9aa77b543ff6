"""A recording child killed with SIGKILL at random points: whole calls survive, repair salvages."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from openprogram.providers.recording.reader import read_recording, scan_recording
from openprogram.recordings import repair_recording
from tests.recording_files import REPO_ROOT

KILLS = 30
AT_ONCE = 3

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.scripted import ScriptedProvider, TextStep

    model = Model(id="m", api="scripted", provider="scripted")
    script = ScriptedProvider(responder=lambda c, n: [TextStep(text=f"word{n} " * 300)])
    recorder = RecordingProvider(script, sys.argv[1])

    async def main():
        n = 0
        while True:
            context = Context(messages=[UserMessage(content=f"call {n}")])
            async for _ in recorder.stream(model, context):
                await asyncio.sleep(0.0002)  # a stream that takes a while, as a real one does
            if n == 0:
                print("ready", flush=True)
            n += 1

    asyncio.run(main())
    """
)


def kill_at_random(paths: list[Path], rng: random.Random) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)], env=env, stdout=subprocess.PIPE, text=True
        )
        for path in paths
    ]
    for child in children:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
    for child in children:
        time.sleep(rng.uniform(0.0, 0.15))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)


def test_sigkill_at_random_points_keeps_every_whole_call_and_names_the_unfinished_one(
    tmp_path: Path, openprogram_home: Path
) -> None:
    rng = random.Random(20261202)
    root = openprogram_home / "recordings"
    root.mkdir(parents=True, mode=0o700)
    paths = [root / f"killed-{n}.jsonl" for n in range(KILLS)]
    for start in range(0, KILLS, AT_ONCE):
        kill_at_random(paths[start : start + AT_ONCE], rng)

    damaged = 0
    for path in paths:
        scan = scan_recording(path)
        assert len(scan.calls) >= 1
        assert [c.call_index for c in scan.calls] == list(range(len(scan.calls)))
        for call in scan.calls:
            assert call.outcome == "complete"
            assert call.events[-1].type == "done"
            assert len(call.events) == 304  # start, text_start, 300 deltas, text_end, done
        # a single-threaded writer leaves at most the one call it was in the middle of
        assert len(scan.unfinished_calls) <= 1
        for problem in scan.problems:
            assert problem.line_number is not None
            assert problem.call_index in (*scan.unfinished_calls, None)
            assert "no call_end" in problem.reason or "truncated" in problem.reason
        if scan.unfinished_calls:
            assert scan.unfinished_calls == (len(scan.calls),)
        if not scan.valid:
            damaged += 1
            report = repair_recording(path.stem)
            assert not report.already_valid
            assert report.kept_calls == len(scan.calls)
            repaired = read_recording(path)
            assert len(repaired.calls) == len(scan.calls)
            assert Path(report.damaged_copy or "").read_bytes().startswith(path.read_bytes()[:100])
    assert damaged >= KILLS // 2, "most kills should land mid-call"
    print(json.dumps({"kills": KILLS, "left_unfinished_and_repaired": damaged}))
