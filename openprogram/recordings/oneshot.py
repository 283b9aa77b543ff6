"""`openprogram recordings record -- COMMAND`: record one run of a program, leaving the config alone.

The program runs with a private staging state directory holding a run spec that says "record into
this file" (`check_protocol.ChildRunSpec`), so the user's next-start configuration is never read or
changed. The recording's
header carries `entry` (the command line and working directory, redacted and scrubbed) so `check`
can run it again.
It moves into the managed root when the program succeeded, was stopped by a signal sent to us
(SIGTERM, SIGINT, SIGHUP: passed on to the program, which is waited for; what it recorded is kept)
or `keep_failed` is set. The program dies with us even on `kill -9` (`child_process`). Two runs
recording under the same `--name` at once: the first to finish takes the name, the other's
recording is kept under a new ID, and the result says so (`name_taken`).

While it runs, the recording is findable (`openprogram.recordings.running`).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.check_protocol import ChildRunSpec, write_run_spec
from openprogram.providers.recording.reader import scan_recording
from openprogram.providers.recording.store import (
    RecordingSelectorError,
    ensure_recordings_dir,
    managed_path,
    new_recording_id,
    validate_recording_id,
)
from openprogram.recordings.child_process import (
    die_with_parent,
    forwarding_signals,
    wait_handling_signals,
)
from openprogram.recordings.entry import entry_scrub_rules, kept_entry
from openprogram.recordings.running import adopt_orphans, keep_staged, new_staging_folder
from openprogram.recordings.selection import create_recording_file
from openprogram.recordings.trust import trust_stored_command


class OneShotRecording(BaseModel):
    """The outcome of `record -- COMMAND`: the program's exit code and where the recording went."""

    recording_id: str
    exit_code: int
    kept: bool
    path: str | None
    """The managed file, or None when the recording was dropped because the program failed."""
    calls: int
    events: int
    interrupted_by: str | None = None
    """The signal (`SIGTERM`, `SIGINT`, `SIGHUP`) that stopped the run, passed on to the program."""
    name_taken: str | None = None
    """The `--name` asked for, when another run took it meanwhile (`recording_id` is a new ID)."""


def _stage(home: Path, recording_id: str, argv: Sequence[str], cwd: str) -> Path:
    (home / "recordings").mkdir(mode=0o700)
    staged = home / "recordings" / f"{recording_id}.jsonl"
    entry = kept_entry(argv, cwd, entry_scrub_rules(cwd))
    create_recording_file(staged, recording_id, entry)
    write_run_spec(home, ChildRunSpec(mode="record", recording=recording_id))
    return staged


class CommandNotStarted(OpenProgramError):
    """The command to record could not be started; `exit_code` is what a shell would return
    (127: not found, 126: found but not runnable)."""

    def __init__(self, command: str, error: OSError) -> None:
        self.command = command
        not_found = isinstance(error, FileNotFoundError)
        self.reason = "command not found" if not_found else (error.strerror or str(error))
        self.exit_code = 127 if not_found else 126
        super().__init__(f"{command}: {self.reason}")


def record_command(
    argv: Sequence[str],
    *,
    name: str | None = None,
    keep_failed: bool = False,
    cwd: str | None = None,
) -> OneShotRecording:
    """Run `argv` once with every provider call recorded into a new managed recording.

    The program's stdin, stdout and stderr are the caller's. Raises `RecordingSelectorError` when
    the name is taken and `CommandNotStarted` when the program cannot start (nothing is kept).
    """
    if not argv:
        raise ValueError("no command given to record")
    recording_id = validate_recording_id(name) if name is not None else new_recording_id()
    adopt_orphans()  # what a `record` killed before it could finish recorded: kept, not hidden
    final = managed_path(recording_id)
    ensure_recordings_dir()
    if final.exists() or final.is_symlink():
        raise RecordingSelectorError(
            recording_id, f"already exists ({final}); choose another --name"
        )
    run_cwd = os.path.abspath(cwd or os.getcwd())
    home, lock = new_staging_folder()
    try:
        staged = _stage(home, recording_id, argv, run_cwd)
        env = {**os.environ, "OPENPROGRAM_HOME": str(home)}
        with forwarding_signals() as forwarder:
            try:
                child = subprocess.Popen(
                    list(argv), cwd=run_cwd, env=env, preexec_fn=die_with_parent(signal.SIGTERM)
                )
            except OSError as exc:
                raise CommandNotStarted(argv[0], exc) from None
            forwarder.to(child.pid)
            returned = wait_handling_signals(child)
        received = forwarder.received
        # A program ended by a signal exits 128 + its number, as a shell reports it.
        exit_code = 128 - returned if returned < 0 else returned
        scan = scan_recording(staged)
        interrupted = received[0].name if received else None
        kept = exit_code == 0 or keep_failed or (interrupted is not None and scan.facts.calls > 0)
        asked = recording_id
        if kept:
            recording_id, final = keep_staged(staged, recording_id)
            trust_stored_command(final)  # recorded here: `check` runs it without asking
        return OneShotRecording(
            recording_id=recording_id,
            exit_code=exit_code,
            kept=kept,
            path=str(final) if kept else None,
            calls=scan.facts.calls,
            events=scan.facts.events,
            interrupted_by=interrupted,
            name_taken=asked if recording_id != asked else None,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
        os.close(lock)
