"""A recording the pytest plugin made can be checked: its header stores how to rerun that one test,
and `openprogram recordings check` reruns it and reads the plugin's mismatch from the child as it
reads any program's (issue #42, item 6). Real subprocesses: pytest, then the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.recording_files import run_cli, subprocess_env

PROJECT_INI = """
[tool.pytest.ini_options]
asyncio_mode = "auto"
asyncio_default_fixture_loop_scope = "function"
"""

TEST_MODULE = """
import pytest

from openprogram.agent import echo_tool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
SAID = "hi"


@pytest.mark.openprogram_recording
async def test_echo() -> None:
    context = Context(system_prompt="You echo.", messages=[UserMessage(content=SAID)])
    run = await run_agent_loop(MODEL, context, [echo_tool(lambda text: f"echo:{text}")])
    assert run.call_count == 2
"""


def run_pytest(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=project,
        env=subprocess_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_plugin_recording_is_checked_by_rerunning_its_test(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PROJECT_INI)
    module = project / "tests" / "test_agent.py"
    module.write_text(TEST_MODULE)
    recorded = run_pytest(project, home, "--openprogram-record=once", "tests/test_agent.py")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    path = project / "tests" / "recordings" / "test_agent" / "test_echo.jsonl"

    header = json.loads(path.read_text().splitlines()[0])
    assert header["entry"] == {
        "argv": [sys.executable, "-m", "pytest", "tests/test_agent.py::test_echo"],
        "cwd": str(project),
    }
    same = run_cli(home, "check", "--yes", str(path))
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.startswith("ok ") and "2/2 consumed" in same.stdout

    module.write_text(TEST_MODULE.replace('SAID = "hi"', 'SAID = "bye"'))
    changed = run_cli(home, "check", "--yes", str(path))
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert "replay mismatch at call 0, field context.messages[0].content" in changed.stdout
    assert "recorded 'hi', incoming 'bye'" in changed.stdout
    # The rerun replayed the file it was given: the recording is as the plugin wrote it.
    assert json.loads(path.read_text().splitlines()[0]) == header
