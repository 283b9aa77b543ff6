"""A write error while recording fails that provider call clearly and keeps the file readable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from openprogram.providers.recording.reader import scan_recording
from tests.recording_files import REPO_ROOT

# The kernel refuses writes past RLIMIT_FSIZE with EFBIG: a real write error, like a full disk.
FULL_DISK_WRITER = textwrap.dedent(
    """
    import asyncio, json, resource, signal, sys
    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.scripted import ScriptedProvider, TextStep

    path, limit = sys.argv[1], int(sys.argv[2])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    model = Model(id="m", api="scripted", provider="scripted")
    script = ScriptedProvider(responder=lambda c, n: [TextStep(text=f"word{n} " * 200)])
    recorder = RecordingProvider(script, path)

    async def main():
        done = 0
        for n in range(1000):
            context = Context(messages=[UserMessage(content=f"call {n}")])
            delivered = []
            try:
                async for event in recorder.stream(model, context):
                    delivered.append(event.type)
            except Exception as exc:
                print(json.dumps({"completed": done, "error_type": type(exc).__name__,
                                  "error": str(exc), "delivered_done": "done" in delivered}))
                return
            done += 1
        print(json.dumps({"completed": done}))

    asyncio.run(main())
    """
)


def test_a_full_disk_fails_the_call_and_leaves_every_earlier_call_readable(tmp_path: Path) -> None:
    path = tmp_path / "full.jsonl"
    child = subprocess.run(
        [sys.executable, "-c", FULL_DISK_WRITER, str(path), str(200_000)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    report = json.loads(child.stdout)
    assert report["completed"] >= 1, report
    assert report["error_type"] == "RecordingWriteError", report
    assert str(path) in report["error"] and "File too large" in report["error"]
    assert "\n" not in report["error"]
    assert not report["delivered_done"], "the failed call must not look like it succeeded"
    scan = scan_recording(path)
    assert len(scan.calls) == report["completed"]
    assert all(call.outcome == "complete" for call in scan.calls)
