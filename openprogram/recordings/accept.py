"""Accept the new requests: run it again offline, keep every recorded answer, take each differing request.

`run_accept` runs the recording's program again (as `openprogram recordings check` does) with replay in
accept mode: a call whose request differs keeps its recorded answer and takes the incoming request
(redacted and scrubbed, as recording does) as the new recorded one. Nothing is written yet: the
run leaves a candidate file, and the list of accepted calls with their differences, for the user to
review. It is refused when the run needs a live answer: more calls than recorded, fewer, or a read
past a recorded stream's end, or a program that fails.

`versions.write_rewrite` then puts it in place as a new version (`write_version`: checked by the
strict reader, the previous version kept). A crash or a refusal leaves the recording byte for byte.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.check import CheckProgress, CheckResult, run_check
from openprogram.recordings.versions import RewriteRun, run_into_candidate


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
) -> RewriteRun:
    """Run again in accept mode; the recording itself is not touched (see `versions.write_rewrite`)."""
    location = locate_recording(selector)

    def run_into(candidate: Path) -> CheckResult:
        return run_check(
            selector, argv, cwd=cwd, on_progress=on_progress, cancel=cancel, accept_into=candidate
        )

    def refused(result: CheckResult, candidate: Path) -> str | None:
        reason = _refusal(result)
        return reason if reason is not None or candidate.exists() else "the program made no call"

    result, candidate, refusal, lock = run_into_candidate(
        location.path, "accept", run_into, refused
    )
    return RewriteRun(
        "accept", location.path, location.recording_id, result, candidate, refusal, lock
    )
