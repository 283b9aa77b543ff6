"""`openprogram recordings record -- COMMAND`: record one run of a program, leaving the config alone.

The program runs with a private staging state directory holding a run spec that says "record into
this file" (`check_protocol.ChildRunSpec`), so the user's next-start configuration is never read or
changed. The recording's
header carries `entry` (the command line and working directory, redacted and scrubbed) so `check` can rerun it.
It moves into the managed root only when the program succeeded (or `keep_failed` is set).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from openprogram.providers.recording.check_protocol import ChildRunSpec, write_run_spec
from openprogram.providers.recording.config import state_dir
from openprogram.providers.recording.reader import scan_recording
from openprogram.providers.recording.store import (
    RecordingSelectorError,
    ensure_recordings_dir,
    managed_path,
    new_recording_id,
    validate_recording_id,
)
from openprogram.recordings.entry import entry_scrub_rules, kept_entry
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


def _stage(recording_id: str, argv: Sequence[str], cwd: str) -> tuple[Path, Path]:
    home = Path(tempfile.mkdtemp(prefix=".record-", dir=state_dir()))  # mkdtemp makes it 0700
    (home / "recordings").mkdir(mode=0o700)
    staged = home / "recordings" / f"{recording_id}.jsonl"
    entry = kept_entry(argv, cwd, entry_scrub_rules(cwd))
    create_recording_file(staged, recording_id, entry)
    write_run_spec(home, ChildRunSpec(mode="record", recording=recording_id))
    return home, staged


def record_command(
    argv: Sequence[str],
    *,
    name: str | None = None,
    keep_failed: bool = False,
    cwd: str | None = None,
) -> OneShotRecording:
    """Run `argv` once with every provider call recorded into a new managed recording.

    The program's stdin, stdout and stderr are the caller's. Raises `RecordingSelectorError` when
    the name is taken and `OSError` when the program cannot start.
    """
    if not argv:
        raise ValueError("no command given to record")
    recording_id = validate_recording_id(name) if name is not None else new_recording_id()
    final = managed_path(recording_id)
    ensure_recordings_dir()
    if final.exists() or final.is_symlink():
        raise RecordingSelectorError(
            recording_id, f"already exists ({final}); choose another --name"
        )
    run_cwd = os.path.abspath(cwd or os.getcwd())
    home, staged = _stage(recording_id, argv, run_cwd)
    try:
        env = {**os.environ, "OPENPROGRAM_HOME": str(home)}
        exit_code = subprocess.call(list(argv), cwd=run_cwd, env=env)
        scan = scan_recording(staged)
        kept = exit_code == 0 or keep_failed
        if kept:
            os.link(staged, final)  # never replaces a file that appeared meanwhile
            trust_stored_command(final)  # recorded here: `check` reruns it without asking
        return OneShotRecording(
            recording_id=recording_id,
            exit_code=exit_code,
            kept=kept,
            path=str(final) if kept else None,
            calls=scan.facts.calls,
            events=scan.facts.events,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
