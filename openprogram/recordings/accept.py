"""Accept the new requests: rerun offline, keep every recorded answer, take each differing request.

`run_accept` reruns the recording's program (as `openprogram recordings check` does) with replay in
accept mode: a call whose request differs keeps its recorded answer and takes the incoming request
(redacted and scrubbed, as recording does) as the new recorded one. Nothing is written yet: the
run leaves a candidate file, and the list of accepted calls with their differences, for the user to
review. It is refused when the run needs a live answer: more calls than recorded, fewer, or a read
past a recorded stream's end, or a program that fails.

`write_accepted` then checks the candidate with the strict reader, notes in its header what made
it, keeps the previous version (a managed recording: in the state dir, listed by `history`; a file
given by path: beside it until the replace has succeeded, git being its history) and replaces the
recording atomically. A crash or a refusal leaves the recording byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.config import ensure_private_dir, state_dir
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.redaction import remove_secret_text
from openprogram.providers.recording.rows import encode_row
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.rerun import AcceptedCall, CheckProgress, CheckResult, run_check

VERSIONS = "versions"
"""Under the state dir: `versions/ID/<UTC time>.jsonl`, the previous versions of a managed recording."""


class AcceptRefused(OpenProgramError, RuntimeError):
    """Accept mode cannot make a new version (a live answer is needed, or the program failed)."""


@dataclass(frozen=True)
class AcceptRun:
    """A finished accept-mode rerun: the check's result and, when it can be accepted, the candidate."""

    recording: Path
    recording_id: str | None
    result: CheckResult
    candidate: Path | None
    """The new version, written by the run, not yet checked nor in place (None: refused)."""
    refusal: str | None

    @property
    def accepted(self) -> list[AcceptedCall]:
        """Each call whose new request would be kept, with its differences."""
        return self.result.accepted

    def discard(self) -> None:
        """Forget the candidate (nothing was written to the recording)."""
        if self.candidate is not None:
            shutil.rmtree(self.candidate.parent, ignore_errors=True)


def _refusal(result: CheckResult) -> str | None:
    if result.status == "ok":
        return None
    mismatch = result.mismatch
    if mismatch is not None and mismatch.kind == "extra_call":
        return (
            f"the program made call {mismatch.call_index}, more calls than the "
            f"{result.calls_recorded} recorded: its answer must come from a live provider "
            "(record again)"
        )
    if mismatch is not None and mismatch.kind == "read_past_end":
        return (
            f"the program read past the recorded stream of call {mismatch.call_index}: "
            "a live answer is needed (record again)"
        )
    if result.status == "incomplete":
        return (
            f"the program made {result.calls_consumed} of {result.calls_recorded} recorded calls: "
            "the rest would be lost (record again, or check the program)"
        )
    return f"the program did not finish: {result.error or result.summary()}"


def run_accept(
    selector: str,
    argv: Sequence[str] | None = None,
    *,
    cwd: str | None = None,
    on_progress: Callable[[CheckProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> AcceptRun:
    """Rerun in accept mode; the recording itself is not touched (see `write_accepted`)."""
    location = locate_recording(selector)
    work = Path(tempfile.mkdtemp(prefix="openprogram-accept-"))
    candidate = work / f"{location.path.stem}.accepted.jsonl"
    try:
        result = run_check(
            selector,
            argv,
            cwd=cwd,
            on_progress=on_progress,
            cancel=cancel,
            accept_into=candidate,
        )
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    refusal = _refusal(result)
    if refusal is not None or not candidate.exists():
        shutil.rmtree(work, ignore_errors=True)
        return AcceptRun(location.path, location.recording_id, result, None, refusal)
    return AcceptRun(location.path, location.recording_id, result, candidate, None)


def versions_dir(recording_id: str) -> Path:
    """Where the previous versions of managed recording `recording_id` are kept."""
    return state_dir() / VERSIONS / recording_id


def list_versions(recording_id: str) -> list[Path]:
    """The kept previous versions of a managed recording, oldest first."""
    folder = versions_dir(recording_id)
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def _version_name() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{time.time_ns() % 1_000_000:06d}"


def write_accepted(run: AcceptRun, command: Sequence[str]) -> Path | None:
    """Put the candidate in place of the recording; returns where the previous version is kept
    (None for a file given by path: its previous bytes are gone once this succeeds).

    Raises `AcceptRefused` for a refused run and `RecordingFileError` when the candidate is not a
    valid recording; the recording is then left as it was.
    """
    if run.candidate is None:
        raise AcceptRefused(f"{run.recording}: nothing to accept: {run.refusal}")
    try:
        read_recording(run.candidate)  # the same strict reader replay uses
        final = run.candidate.with_name("final.jsonl")
        _with_provenance(run.candidate, final, command, len(run.accepted))
        read_recording(final)
        previous = run.recording.with_name(f".{run.recording.name}.previous")
        os.link(run.recording, previous)  # the old bytes stay reachable until the end
        try:
            kept: Path | None = None
            if run.recording_id is not None:
                folder = ensure_private_dir(versions_dir(run.recording_id))
                kept = folder / f"{_version_name()}.jsonl"
                shutil.copyfile(previous, kept)
                kept.chmod(0o600)
            os.chmod(final, 0o600)
            os.replace(final, run.recording)
        finally:
            with contextlib.suppress(FileNotFoundError):
                previous.unlink()
    finally:
        run.discard()
    return kept


def _with_provenance(source: Path, target: Path, command: Sequence[str], accepted: int) -> None:
    """`source` with its header saying what produced this version (optional header metadata)."""
    with source.open("rb") as rows, target.open("wb") as out:
        header = json.loads(rows.readline())
        if not isinstance(header, dict) or header.get("type") != "header":
            raise RecordingFileError(source, 1, None, "the first row is not a header")
        entry = header.get("entry")
        if isinstance(entry, dict) and command:
            # The requests are now the ones this command makes: a plain `check` reruns it.
            header["entry"] = {**entry, "argv": [remove_secret_text(arg) for arg in command]}
        header["produced_by"] = {
            "how": "accept",
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": [remove_secret_text(arg) for arg in command],
            "accepted_calls": accepted,
        }
        out.write(encode_row(header))
        shutil.copyfileobj(rows, out)
        out.flush()
        os.fsync(out.fileno())
