"""`openprogram recordings accept` and `history`, run as real subprocesses."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.recording_files import run_cli

ECHO = [sys.executable, "examples/echo_agent.py"]


def test_accept_shows_the_differences_asks_and_keeps_the_previous_version(
    openprogram_home: Path,
) -> None:
    made = run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi")
    assert made.returncode == 0, made.stderr
    path = openprogram_home / "recordings" / "echo.jsonl"
    before = path.read_bytes()

    # Not a terminal and no --yes: refused in one line, nothing written.
    refused = run_cli(openprogram_home, "accept", "echo", "--", *ECHO, "bye")
    assert refused.returncode == 2
    assert "context.messages[2].content[0].text" in refused.stdout
    assert "'echo:hi'" in refused.stdout and "'echo:bye'" in refused.stdout
    assert "refusing to accept without confirmation; pass --yes" in refused.stderr
    assert path.read_bytes() == before

    done = run_cli(openprogram_home, "accept", "echo", "--json", "--yes", "--", *ECHO, "bye")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "accepted"
    assert [call["call_index"] for call in result["accepted"]] == [1]
    assert Path(result["previous_version"]).read_bytes() == before

    # The header now names the command that makes these requests: a plain check is green.
    check = run_cli(openprogram_home, "check", "echo", "--json")
    assert json.loads(check.stdout)["status"] == "ok", check.stdout

    history = json.loads(run_cli(openprogram_home, "history", "echo", "--json").stdout)
    assert [v["path"] for v in history["versions"]] == [result["previous_version"]]


def test_accept_of_a_run_that_needs_a_live_answer_is_refused(openprogram_home: Path) -> None:
    made = run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi")
    assert made.returncode == 0, made.stderr
    path = openprogram_home / "recordings" / "echo.jsonl"
    before = path.read_bytes()
    refused = run_cli(
        openprogram_home, "accept", "echo", "--yes", "--", sys.executable, "-c", "pass"
    )
    assert refused.returncode == 1
    assert "made 0 of 2 recorded calls" in refused.stdout and "nothing written" in refused.stdout
    assert path.read_bytes() == before


def test_rerecord_says_what_goes_live_asks_then_writes_and_restore_puts_it_back(
    openprogram_home: Path,
) -> None:
    made = run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi")
    assert made.returncode == 0, made.stderr
    path = openprogram_home / "recordings" / "echo.jsonl"
    before = path.read_bytes()

    refused = run_cli(openprogram_home, "rerecord", "echo", "--", *ECHO, "bye")
    assert refused.returncode == 2
    assert "from call 1" in refused.stdout
    # the scripted echo model needs no key: no word of API keys or billing
    assert "goes to scripted/echo-1; it needs no credentials and bills nothing" in refused.stdout
    assert "API keys" not in refused.stdout and "billed" not in refused.stdout
    assert "refusing to make live calls without confirmation; pass --yes" in refused.stderr
    assert path.read_bytes() == before

    done = run_cli(openprogram_home, "rerecord", "echo", "--yes", "--json", "--", *ECHO, "bye")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["from_call"]) == ("rerecorded", 1)
    assert json.loads(run_cli(openprogram_home, "check", "echo", "--json").stdout)["status"] == "ok"

    version = Path(result["previous_version"]).stem
    restored = run_cli(openprogram_home, "restore", "echo", version)
    assert restored.returncode == 0, restored.stderr
    assert path.read_bytes() == before
    missing = run_cli(openprogram_home, "restore", "echo", "nope")
    assert missing.returncode == 1
    assert "echo: no version 'nope' (versions: " in missing.stderr


def test_prune_removes_kept_versions_older_than_the_cutoff(openprogram_home: Path) -> None:
    run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi")
    done = run_cli(openprogram_home, "accept", "echo", "--json", "--yes", "--", *ECHO, "bye")
    kept = Path(json.loads(done.stdout)["previous_version"])
    recent = run_cli(openprogram_home, "prune", "--older-than-days", "1", "--yes", "--json")
    assert json.loads(recent.stdout)["versions"] == [] and kept.exists()
    old = time.time() - 3 * 86400
    os.utime(kept, (old, old))
    pruned = run_cli(openprogram_home, "prune", "--older-than-days", "1", "--yes", "--json")
    assert json.loads(pruned.stdout)["versions"] == [str(kept)] and not kept.exists()
    assert (openprogram_home / "recordings" / "echo.jsonl").exists()  # the recording stays


def test_killing_accept_mid_run_leaves_the_recording_and_frees_it(
    openprogram_home: Path, tmp_path: Path
) -> None:
    from tests.cli.test_record_signals import running, wait_for
    from tests.recording_files import subprocess_env
    from tests.recordings.test_accept import AGENT

    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    agent = [sys.executable, str(script)]
    assert run_cli(openprogram_home, "record", "--name", "agent", "--", *agent).returncode == 0
    path = openprogram_home / "recordings" / "agent.jsonl"
    before = path.read_bytes()
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    env = subprocess_env(openprogram_home, AGENT_PROMPT="Reworded.", AGENT_BLOCK=str(fifo))
    accept = subprocess.Popen(
        [sys.executable, "-m", "openprogram", "recordings", "accept", "agent", "--yes"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with fifo.open("w"):  # opens once the program, mid-run, waits on it: 2 of 4 calls made
            accept.kill()
            accept.wait(timeout=30)
            # The program it ran ends with it (no orphan), while still waiting on the FIFO.
            wait_for(lambda: running(script) == [], "the program to end with accept")
        assert path.read_bytes() == before
        again = run_cli(
            openprogram_home, "accept", "agent", "--yes", "--json", AGENT_PROMPT="Reworded."
        )
        assert json.loads(again.stdout)["status"] == "accepted", again.stderr
    finally:
        end_processes_running(script)  # only when the test fails: no process left behind


def end_processes_running(script: Path) -> None:
    """Kill every process whose command line names `script` (and reap none: not our children)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # ended meanwhile, or not ours to read
        if str(script).encode() in arguments:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGKILL)


def test_delete_removes_the_kept_versions_too_and_a_new_recording_of_that_name_has_none(
    openprogram_home: Path,
) -> None:
    assert run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi").returncode == 0
    done = run_cli(openprogram_home, "accept", "echo", "--yes", "--", *ECHO, "bye")
    assert done.returncode == 0, done.stderr
    versions = openprogram_home / "versions" / "echo"
    assert len(list(versions.iterdir())) == 1

    from openprogram.recordings import versions_note

    assert versions_note("echo") == " and its 1 kept previous version"  # in the question
    deleted = run_cli(openprogram_home, "delete", "echo", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert "and 1 kept previous version" in deleted.stdout
    assert not versions.exists()

    assert run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "new").returncode == 0
    history = json.loads(run_cli(openprogram_home, "history", "echo", "--json").stdout)
    assert history["versions"] == []
    refused = run_cli(openprogram_home, "restore", "echo", "any")
    assert refused.returncode == 1 and "versions: none kept" in refused.stderr


def test_prune_of_an_old_recording_removes_its_versions_however_recent(
    openprogram_home: Path,
) -> None:
    assert run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi").returncode == 0
    done = run_cli(openprogram_home, "accept", "echo", "--json", "--yes", "--", *ECHO, "bye")
    kept = Path(json.loads(done.stdout)["previous_version"])
    path = openprogram_home / "recordings" / "echo.jsonl"
    old = time.time() - 3 * 86400
    os.utime(path, (old, old))  # the recording is old, its kept version is not
    planned = run_cli(openprogram_home, "prune", "--older-than-days", "1", "--dry-run", "--json")
    plan = json.loads(planned.stdout)
    assert plan["matched"] == ["echo"] and plan["versions"] == [str(kept)]
    assert plan["bytes"] == path.stat().st_size + kept.stat().st_size
    pruned = run_cli(openprogram_home, "prune", "--older-than-days", "1", "--yes", "--json")
    report = json.loads(pruned.stdout)
    assert report["deleted"] == ["echo"] and report["versions"] == [str(kept)]
    assert not path.exists() and not (openprogram_home / "versions" / "echo").exists()


SESSION_PROGRAM = """
import asyncio, sys
from openprogram.providers import Context, Model, UserMessage, stream

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")


async def main() -> None:
    messages = []
    for turn in range(30):
        messages.append(UserMessage(content=f"turn {turn}"))  # stamped with the time it is made
        context = Context(system_prompt=sys.argv[1], messages=list(messages))
        async for _ in stream(MODEL, context):
            pass


asyncio.run(main())
"""


def test_accepting_a_reworded_system_prompt_changes_one_request_row(
    openprogram_home: Path, tmp_path: Path
) -> None:
    """Issue #42, item 12: every call's request differs (the system prompt), but its messages differ
    from the recorded ones only by their timestamps; accept keeps those as stored, so the raw file
    changes in the header and call 0's request row alone (the references carry the prompt on)."""
    program = tmp_path / "session.py"
    program.write_text(SESSION_PROGRAM)
    command = [sys.executable, str(program)]
    made = run_cli(openprogram_home, "record", "--name", "s", "--", *command, "Be brief.")
    assert made.returncode == 0, made.stderr
    path = openprogram_home / "recordings" / "s.jsonl"
    before = path.read_bytes().splitlines()

    done = run_cli(openprogram_home, "accept", "s", "--yes", "--json", "--", *command, "Be short.")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["accepted"]) == 30
    after = path.read_bytes().splitlines()
    assert len(after) == len(before)
    changed = [n for n, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert changed == [0, 1]  # the header (what produced it) and call 0's request
    assert b"Be short." in after[1] and b"Be brief." not in path.read_bytes()
