"""Record again from the diverging call: replay the calls that still match, make the rest live.

`plan_rerecord` says, before anything goes live, from which call the run will call the real
providers: `from_call` when given, else the first call an offline check finds different (the same
check as `openprogram recordings check`), and which models and providers the recorded calls from
there reach. `run_rerecord` runs the program again with replay in rerecord mode (calls replay and are
copied while they match; from that call on every call is live and recorded) into a candidate file;
`versions.write_rewrite` puts it in place as a new version (checked, the previous one kept). The
recording is untouched until then: a failed program, a cancel or a crash leave it byte for byte.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from openprogram.providers.recording.check_protocol import RerecordSpec
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.check import CheckProgress, CheckResult, run_check
from openprogram.recordings.versions import RewriteRefused, RewriteRun, run_into_candidate

CREDENTIAL_FREE_APIS = frozenset({"scripted"})
"""The built-in APIs that need no API key and bill nothing (`openprogram.providers.scripted`)."""


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
    live_apis: tuple[str, ...] = ()
    """The `api` of the recorded calls from `from_call` on."""

    @property
    def needs_credentials(self) -> bool:
        """True unless every live call goes to an API that needs no credentials and bills nothing
        (an unknown API, or none recorded, counts as needing them)."""
        return not self.live_apis or any(a not in CREDENTIAL_FREE_APIS for a in self.live_apis)

    @property
    def live_calls(self) -> int:
        """Recorded calls from `from_call` on (the run may make more or fewer)."""
        return 0 if self.from_call is None else self.recorded_calls - self.from_call


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
            raise RewriteRefused(
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
            raise RewriteRefused(f"the offline check could not run the program: {check.error}")
    live = recording.calls[from_call:] if from_call is not None else ()
    apis = tuple(sorted({str(call.request.model.get("api")) for call in live}))
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
        apis,
    )


def run_rerecord(
    plan: RerecordPlan,
    *,
    on_progress: Callable[[CheckProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> RewriteRun:
    """Run again in rerecord mode into a candidate file; the recording is not touched."""
    if plan.from_call is None:
        raise RewriteRefused(f"{plan.recording}: {plan.reason}")

    def run_into(candidate: Path) -> CheckResult:
        return run_check(
            str(plan.recording),
            plan.argv,
            cwd=plan.cwd,
            on_progress=on_progress,
            cancel=cancel,
            rerecord=RerecordSpec(into=str(candidate), from_call=plan.from_call),
        )

    def refused(result: CheckResult, candidate: Path) -> str | None:
        if result.exit_code != 0 or result.error == "cancelled" or result.mismatch is not None:
            return f"the program did not finish: {result.error or result.summary()}"
        return None if candidate.exists() else "the program made no call"

    result, candidate, refusal, lock = run_into_candidate(
        plan.recording, "rerecord", run_into, refused
    )
    return RewriteRun(
        "rerecord",
        plan.recording,
        plan.recording_id,
        result,
        candidate,
        refusal,
        lock,
        plan.from_call,
    )
