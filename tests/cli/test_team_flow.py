"""The team flow of issue #27 (item 4), end to end: Alice records through pytest and commits the
recording; Bob, in a fresh clone (git checks the file out 0644), checks it, changes the prompt,
accepts, sees the change in `git diff` and replays green with pytest; Alice pulls and replays
green too. Real git, two clones, every step a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.recording_files import subprocess_env

AGENT = """
import asyncio
from pathlib import Path

from openprogram.agent import echo_tool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")


async def main() -> int:
    prompt = Path(__file__).with_name("prompt.txt").read_text().strip()
    context = Context(system_prompt=prompt, messages=[UserMessage(content="hi")])
    run = await run_agent_loop(MODEL, context, [echo_tool()])
    return run.call_count


if __name__ == "__main__":
    asyncio.run(main())
"""

TEST = """
import pytest

from agent import main


@pytest.mark.openprogram_recording("../recordings/agent.jsonl")
async def test_the_agent_calls_the_tool_then_answers() -> None:
    assert await main() == 2
"""

PYPROJECT = """
[tool.pytest.ini_options]
asyncio_mode = "auto"
asyncio_default_fixture_loop_scope = "function"
pythonpath = ["."]
"""


def test_a_recording_committed_by_one_teammate_is_checked_accepted_and_replayed_by_another(
    tmp_path: Path,
) -> None:
    origin, alice, bob = tmp_path / "origin.git", tmp_path / "alice", tmp_path / "bob"
    env = subprocess_env(tmp_path / "alice-home", HOME=str(tmp_path), GIT_CONFIG_NOSYSTEM="1")
    env = {name: value for name, value in env.items() if not name.startswith("PYTEST_")}

    def run(where: Path, *args: str, home: str, ok: bool = True) -> str:
        done = subprocess.run(
            list(args),
            cwd=where,
            env={**env, "OPENPROGRAM_HOME": str(tmp_path / home)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (done.returncode == 0) == ok, done.stdout + done.stderr
        return done.stdout

    openprogram = [sys.executable, "-m", "openprogram", "recordings"]
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    recording = "recordings/agent.jsonl"
    program = ["--", sys.executable, "agent.py"]

    # Alice: a project with an agent and its test; she records through pytest and pushes.
    run(tmp_path, "git", "init", "-q", "--bare", str(origin), home="alice-home")
    run(tmp_path, "git", "clone", "-q", str(origin), str(alice), home="alice-home")
    for name, value in (("user.email", "a@example.invalid"), ("user.name", "Alice")):
        run(alice, "git", "config", name, value, home="alice-home")
    (alice / "agent.py").write_text(AGENT)
    (alice / "prompt.txt").write_text("You echo.\n")
    (alice / "pyproject.toml").write_text(PYPROJECT)
    (alice / "tests").mkdir()
    (alice / "tests" / "test_agent.py").write_text(TEST)
    run(alice, *pytest, "--openprogram-record=once", home="alice-home")
    assert (alice / recording).is_file()
    run(alice, "git", "add", ".", home="alice-home")
    run(alice, "git", "commit", "-qm", "the agent and its recording", home="alice-home")
    run(alice, "git", "push", "-q", "origin", "HEAD", home="alice-home")

    # Bob: a fresh clone elsewhere; git gives him the recording 0644.
    run(tmp_path, "git", "clone", "-q", str(origin), str(bob), home="bob-home")
    for name, value in (("user.email", "b@example.invalid"), ("user.name", "Bob")):
        run(bob, "git", "config", name, value, home="bob-home")
    assert os.stat(bob / recording).st_mode & 0o777 == 0o644
    checked = json.loads(
        run(bob, *openprogram, "check", recording, "--json", *program, home="bob-home")
    )
    assert checked["status"] == "ok", checked
    run(bob, *pytest, home="bob-home")

    # Bob rewords the prompt: check mismatches, accept takes the new requests, git shows them.
    (bob / "prompt.txt").write_text("You echo, politely.\n")
    mismatch = run(
        bob, *openprogram, "check", recording, "--json", *program, home="bob-home", ok=False
    )
    assert json.loads(mismatch)["mismatch"]["field_path"] == "context.system_prompt"
    run(bob, *pytest, home="bob-home", ok=False)
    accepted = run(
        bob, *openprogram, "accept", recording, "--yes", "--json", *program, home="bob-home"
    )
    assert json.loads(accepted)["status"] == "accepted"
    assert os.stat(bob / recording).st_mode & 0o777 == 0o644  # a file we write keeps its mode
    assert sorted(p.name for p in (bob / "recordings").iterdir()) == ["agent.jsonl"]
    diff = run(bob, "git", "diff", "--stat", home="bob-home")
    assert recording in diff and "prompt.txt" in diff
    assert "You echo, politely." in run(bob, "git", "diff", recording, home="bob-home")
    run(bob, *pytest, home="bob-home")
    run(bob, "git", "commit", "-qam", "a politer prompt", home="bob-home")
    run(bob, "git", "push", "-q", "origin", "HEAD", home="bob-home")

    # Alice pulls: her replay is green on Bob's accepted recording.
    run(alice, "git", "pull", "-q", "origin", "HEAD", home="alice-home")
    run(alice, *pytest, home="alice-home")
    assert not (tmp_path / "bob-home" / "versions").exists()  # a file by path: git is its history
