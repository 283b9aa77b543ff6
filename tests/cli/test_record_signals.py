"""`openprogram recordings record -- COMMAND` stopped by a signal, or killed, and two runs racing for
one `--name`: real subprocesses, real signals (issue #27, items 8 and 9)."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.recording_files import REPO_ROOT, run_cli, subprocess_env
from tests.recordings.test_accept import AGENT

DEADLINE_SECONDS = 30.0
OPENPROGRAM = [sys.executable, "-m", "openprogram", "recordings"]
PAUSING_AGENT = AGENT + (
    "import select\n"
    "with open(os.environ['PAUSE']) as pause:  # after its calls: waits for the test's end to close\n"
    "    while not select.select([pause], [], [], 0.05)[0]:\n"
    "        pass\n"
)
"""The agent, waiting on a FIFO once its calls are made (outside `asyncio.run`, which takes the
first SIGINT to cancel its task), in short steps. A Python signal handler runs between bytecodes:
a SIGINT whose C-level handler ran between the program's last check and a blocking `read` would
wait for the read to end, and the test for the program (seen in CI; 14 of 250 runs under load
with one long `read`, none of 150 in short steps)."""


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll `condition` until it holds; fail naming `what` after the deadline."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def open_once_read(fifo: Path) -> int:
    """The write end of `fifo`, opened once the program waits on it (mid-run, its calls made)."""
    fd: list[int] = []

    def opened() -> bool:
        try:
            fd.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: nobody reads it yet
                raise
            return False
        return True

    wait_for(opened, f"the program to wait on {fifo.name}")
    return fd[0]


def running(script: Path) -> list[int]:
    """The processes whose command line names `script`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(script).encode() in arguments and state != "Z":
            pids.append(int(entry.name))
    return pids


def default_sigint() -> None:
    """As in a shell's foreground job: SIGINT not ignored (a background test runner ignores it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_record(home: Path, script: Path, name: str, fifo: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*OPENPROGRAM, "record", "--name", name, "--", sys.executable, str(script)],
        env=subprocess_env(home, AGENT_TURNS="hi", PAUSE=str(fifo)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        preexec_fn=default_sigint,
    )


def signal_state(pid: int) -> str:
    """A process's pending (its thread's and its own), blocked, ignored and caught signals, as
    `/proc` shows them."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "gone"
    return " ".join(line for line in status if line.startswith(("State", "Sig", "ShdPnd")))


def ended(record: subprocess.Popen[str], script: Path) -> str:
    """`record`'s stderr once it ends; past the deadline, a failure saying what each process was
    doing (a run in CI once waited here for 30 s: this is what to look at if it comes back)."""
    try:
        return record.communicate(timeout=DEADLINE_SECONDS)[1]
    except subprocess.TimeoutExpired:
        states = {pid: signal_state(pid) for pid in [record.pid, *running(script)]}
        record.kill()
        _, stderr = record.communicate()
        raise AssertionError(f"record did not end: {states}; its stderr: {stderr!r}") from None


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "agent.py"
    path.write_text(PAUSING_AGENT)
    return path


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_to_record_reaches_the_program_and_what_it_recorded_is_kept(
    openprogram_home: Path, script: Path, tmp_path: Path, sig: signal.Signals
) -> None:
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    record = start_record(openprogram_home, script, "stopped", fifo)
    writer = open_once_read(fifo)  # the program made its 2 calls and waits
    try:
        record.send_signal(sig)
        stderr = ended(record, script)
    finally:
        os.close(writer)
    assert running(script) == []  # the program got the signal too, and was waited for
    assert f"stopped by {sig.name}, passed on to the program" in stderr
    assert record.returncode != 0
    path = openprogram_home / "recordings" / "stopped.jsonl"
    shown = json.loads(run_cli(openprogram_home, "show", "stopped", "--json").stdout)
    assert shown["path"] == str(path) and len(shown["calls"]) == 2, shown
    assert [p.name for p in openprogram_home.iterdir() if p.name.startswith(".record-")] == []


def test_kill_9_of_record_leaves_no_orphan(
    openprogram_home: Path, script: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    record = start_record(openprogram_home, script, "killed", fifo)
    writer = open_once_read(fifo)
    try:
        record.kill()
        record.communicate(timeout=DEADLINE_SECONDS)
        wait_for(lambda: running(script) == [], "the program to end with its parent")
    finally:
        os.close(writer)
        for pid in running(script):  # only reached when the test fails: no leftover process
            os.kill(pid, signal.SIGKILL)
    # What it recorded before the kill is not left in a hidden folder: the next `list` keeps it.
    (listed,) = json.loads(run_cli(openprogram_home, "list", "--json").stdout)["recordings"]
    assert (listed["id"], listed["calls"] > 0, listed["valid"]) == ("killed", True, True)
    assert [p.name for p in openprogram_home.iterdir() if p.name.startswith(".record-")] == []


def test_kill_9_of_check_leaves_no_orphan(
    openprogram_home: Path, script: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    recording = start_record(openprogram_home, script, "agent", fifo)
    os.close(open_once_read(fifo))
    assert recording.wait(timeout=DEADLINE_SECONDS) == 0
    check = subprocess.Popen(
        [*OPENPROGRAM, "check", "agent"],
        env=subprocess_env(openprogram_home, AGENT_TURNS="hi", PAUSE=str(fifo)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO_ROOT,
    )
    writer = open_once_read(fifo)
    try:
        check.kill()
        check.wait(timeout=DEADLINE_SECONDS)
        wait_for(lambda: running(script) == [], "the program to end with `check`")
    finally:
        os.close(writer)
        for pid in running(script):
            os.kill(pid, signal.SIGKILL)


def test_two_records_with_the_same_name_at_once_both_keep_their_recording(
    openprogram_home: Path, script: Path, tmp_path: Path
) -> None:
    fifos = [tmp_path / "first", tmp_path / "second"]
    for fifo in fifos:
        os.mkfifo(fifo)
    records = [start_record(openprogram_home, script, "same", fifo) for fifo in fifos]
    writers = [open_once_read(fifo) for fifo in fifos]  # both started before either ended
    for writer in writers:
        os.close(writer)  # both programs finish now
    outcomes = [record.communicate(timeout=DEADLINE_SECONDS) for record in records]
    assert [record.returncode for record in records] == [0, 0], outcomes
    stderr = [err for _, err in outcomes]
    assert not any("Errno" in err for err in stderr), stderr
    taken = [err for err in stderr if "'same' was taken by another recording meanwhile" in err]
    assert len(taken) == 1, stderr
    assert len(taken[0].strip().splitlines()) == 1
    names = sorted(p.name for p in (openprogram_home / "recordings").iterdir())
    assert len(names) == 2 and "same.jsonl" in names


def test_a_rewrite_of_a_recording_a_program_still_records_into_is_refused(
    openprogram_home: Path, tmp_path: Path
) -> None:
    from openprogram.providers.recording.rules import IgnoreRule
    from openprogram.recordings.rule_edits import RuleEditError, add_rule_to_header

    script = tmp_path / "agent.py"
    script.write_text(AGENT)  # waits on the FIFO after each of its 2 turns (2 calls each)
    assert run_cli(openprogram_home, "record", "--name", "live").returncode == 0
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    program = subprocess.Popen(
        [sys.executable, str(script)],
        env=subprocess_env(openprogram_home, AGENT_BLOCK=str(fifo)),
        stdin=subprocess.DEVNULL,
        cwd=REPO_ROOT,
    )
    try:
        path = openprogram_home / "recordings" / "live.jsonl"
        writer = open_once_read(fifo)  # 2 calls recorded, the file still open for writing
        before = path.read_bytes()
        refused = run_cli(
            openprogram_home, "accept", "live", "--yes", "--", sys.executable, str(script)
        )
        assert refused.returncode == 1
        message = refused.stderr.strip()
        assert len(message.splitlines()) == 1
        assert f"it is being written by process {program.pid}" in message
        with pytest.raises(RuleEditError, match="being written"):
            add_rule_to_header(path, IgnoreRule(path="options.metadata.request_id"))
        assert path.read_bytes() == before
        os.close(writer)
        # The second turn, recorded into the file in place, then the program ends.
        wait_for(lambda: path.read_bytes().count(b'"type":"call_end"') == 4, "4 calls")
        os.close(open_once_read(fifo))
        assert program.wait(timeout=DEADLINE_SECONDS) == 0
        shown = json.loads(run_cli(openprogram_home, "show", "live", "--json").stdout)
        assert len(shown["calls"]) == 4  # every call the program made is in the file
    finally:
        if program.poll() is None:  # only when the test fails
            program.kill()
            program.wait()
