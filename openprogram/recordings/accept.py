"""Accept the new requests: rerun offline, keep every recorded answer, take each differing request.

`run_accept` reruns the recording's program (as `openprogram recordings check` does) with replay in
accept mode: a call whose request differs keeps its recorded answer and takes the incoming request
(redacted and scrubbed, as recording does) as the new recorded one. Nothing is written yet: the
run leaves a candidate file, and the list of accepted calls with their differences, for the user to
review. It is refused when the run needs a live answer: more calls than recorded, fewer, or a read
past a recorded stream's end, or a program that fails.

`write_accepted` then puts it in place as a new version (`versions.write_version`: checked by the
strict reader, the previous version kept). A crash or a refusal leaves the recording byte for byte.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.check import AcceptedCall, CheckProgress, CheckResult, run_check
from openprogram.recordings.versions import (
    RewriteLock,
    discard_candidate,
    run_into_candidate,
    write_version,
)


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
    lock: RewriteLock | None = None
    """Held from the run until the candidate is written or discarded."""

    @property
    def accepted(self) -> list[AcceptedCall]:
        """Each call whose new request would be kept, with its differences."""
        return self.result.accepted

    def discard(self) -> None:
        """Forget the candidate and release the recording (nothing was written to it)."""
        discard_candidate(self.candidate, self.lock)


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

    def rerun(candidate: Path) -> CheckResult:
        return run_check(
            selector, argv, cwd=cwd, on_progress=on_progress, cancel=cancel, accept_into=candidate
        )

    def refused(result: CheckResult, candidate: Path) -> str | None:
        reason = _refusal(result)
        return reason if reason is not None or candidate.exists() else "the program made no call"

    result, candidate, refusal, lock = run_into_candidate(location.path, "accept", rerun, refused)
    return AcceptRun(location.path, location.recording_id, result, candidate, refusal, lock)


def write_accepted(run: AcceptRun, command: Sequence[str]) -> Path | None:
    """Put the candidate in place of the recording (`versions.write_version`); returns where the
    previous version is kept (None for a file given by path).

    Raises `AcceptRefused` for a refused run and `RecordingFileError` when the candidate is not a
    valid recording; the recording is then left as it was.
    """
    if run.candidate is None:
        raise AcceptRefused(f"{run.recording}: nothing to accept: {run.refusal}")
    try:
        return write_version(
            run.recording,
            run.recording_id,
            run.candidate,
            command,
            {"how": "accept", "accepted_calls": len(run.accepted)},
        )
    finally:
        run.discard()
