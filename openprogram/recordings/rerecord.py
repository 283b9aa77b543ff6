"""Record again from the diverging call: replay the calls that still match, make the rest live.

`plan_rerecord` says, before anything goes live, from which call the run will call the real
providers: `from_call` when given, else the first call an offline check finds different (the same
check as `openprogram recordings check`), and which models and providers the recorded calls from
there reach. `run_rerecord` reruns the program with replay in resume mode (calls replay and are
copied while they match; from that call on every call is live and recorded) into a candidate file;
`write_rerecorded` puts it in place as a new version (checked, the previous one kept). The
recording is untouched until then: a failed program, a cancel or a crash leave it byte for byte.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.check import CheckProgress, CheckResult, run_check
from openprogram.recordings.versions import (
    RewriteLock,
    discard_candidate,
    run_into_candidate,
    write_version,
)


class RerecordRefused(OpenProgramError, RuntimeError):
    """Nothing to record again, or the run failed: no new version is written."""


@dataclass(frozen=True)
class RerecordPlan:
    """What a rerecord will do: replay calls before `from_call`, make the rest live."""

    recording: Path
    recording_id: str | None
    argv: list[str] | None
    cwd: str | None
    from_call: int | None
    """None: every recorded call matches, nothing to record again."""
    recorded_calls: int
    live_models: list[str]
    """`provider/model` of the recorded calls from `from_call` on (what the live calls reach)."""
    reason: str

    @property
    def live_calls(self) -> int:
        """Recorded calls from `from_call` on (the run may make more or fewer)."""
        return 0 if self.from_call is None else self.recorded_calls - self.from_call


@dataclass(frozen=True)
class RerecordRun:
    """A finished resume-mode rerun: its result and the candidate (None when it failed)."""

    plan: RerecordPlan
    result: CheckResult
    candidate: Path | None
    refusal: str | None
    lock: RewriteLock | None = None
    """Held from the run until the candidate is written or discarded."""

    def discard(self) -> None:
        """Forget the candidate and release the recording (nothing was written to it)."""
        discard_candidate(self.candidate, self.lock)


def plan_rerecord(
    selector: str,
    argv: Sequence[str] | None = None,
    *,
    cwd: str | None = None,
    from_call: int | None = None,
) -> RerecordPlan:
    """Where the live part starts, found without any live call (an offline check when needed)."""
    location = locate_recording(selector)
    recording = read_recording(location.path)
    total = len(recording.calls)
    if from_call is not None:
        if not 0 <= from_call <= total:
            raise RerecordRefused(
                f"{location.path}: --from-call {from_call} is not a call of this recording "
                f"(0 to {total})"
            )
        reason = f"asked: from call {from_call}"
    else:
        check = run_check(selector, list(argv) if argv else None, cwd=cwd)
        mismatch = check.mismatch
        if check.status == "ok":
            from_call, reason = None, "every recorded call matches: nothing to record again"
        elif mismatch is not None and mismatch.kind in ("request", "extra_call", "read_past_end"):
            from_call, reason = mismatch.call_index, f"the first difference: {mismatch.one_line}"
        elif check.status == "incomplete":
            from_call = check.calls_consumed
            reason = f"the program made {check.calls_consumed} of {total} recorded calls"
        else:
            raise RerecordRefused(f"the offline check could not run the program: {check.error}")
    models = sorted(
        {
            f"{call.request.model.get('provider')}/{call.request.model.get('id')}"
            for call in recording.calls[from_call or 0 :]
        }
        if from_call is not None
        else set()
    )
    return RerecordPlan(
        location.path,
        location.recording_id,
        list(argv) if argv else None,
        cwd,
        from_call,
        total,
        models,
        reason,
    )


def run_rerecord(
    plan: RerecordPlan,
    *,
    on_progress: Callable[[CheckProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> RerecordRun:
    """Rerun in resume mode into a candidate file; the recording is not touched."""
    if plan.from_call is None:
        raise RerecordRefused(f"{plan.recording}: {plan.reason}")

    def rerun(candidate: Path) -> CheckResult:
        setting = json.dumps({"into": str(candidate), "from_call": plan.from_call})
        return run_check(
            str(plan.recording),
            plan.argv,
            cwd=plan.cwd,
            on_progress=on_progress,
            cancel=cancel,
            resume=setting,
        )

    def refused(result: CheckResult, candidate: Path) -> str | None:
        if result.exit_code != 0 or result.error == "cancelled" or result.mismatch is not None:
            return f"the program did not finish: {result.error or result.summary()}"
        return None if candidate.exists() else "the program made no call"

    result, candidate, refusal, lock = run_into_candidate(
        plan.recording, "rerecord", rerun, refused
    )
    return RerecordRun(plan, result, candidate, refusal, lock)


def write_rerecorded(run: RerecordRun, command: Sequence[str]) -> Path | None:
    """Put the new version in place; returns where the previous version is kept (None for a file
    given by path). Raises `RerecordRefused` for a failed run."""
    if run.candidate is None:
        raise RerecordRefused(f"{run.plan.recording}: nothing written: {run.refusal}")
    try:
        return write_version(
            run.plan.recording,
            run.plan.recording_id,
            run.candidate,
            command,
            {"how": "rerecord", "from_call": run.plan.from_call},
        )
    finally:
        run.discard()
