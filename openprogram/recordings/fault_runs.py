"""`check --fault` / `--faults`: run a program again with one recorded stream broken, and say how it coped.

Each variant is one `run_check` whose child replays with a `StreamFault`
(`openprogram.providers.recording.stream_faults`). Its outcome is one of:

- `clean`: the program ended with exit 0 having made every recorded call, the broken one asked
  again (a retry answered whole), or went on unharmed (a stall shorter than its timeout);
- `raised`: it stopped with a non-zero exit code (it noticed, and failed loudly);
- `hung`: it was still running when the timeout stopped it;
- `partial`: it took the broken answer as complete: it went on with it (its next request differs
  from the recording: the mismatch is named) or exited 0 without ever getting the whole answer;
- `not_reached`: the program never read that call's stream as far as the fault.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel

from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.rules import MatchingRules
from openprogram.providers.recording.store import locate_recording
from openprogram.providers.recording.stream_faults import (
    DEFAULT_STALL_SECONDS,
    FAULT_KINDS,
    FaultKind,
    StreamFault,
    fault_variants,
)
from openprogram.recordings.check import CheckResult, run_check

FaultOutcome = Literal["clean", "raised", "hung", "partial", "not_reached"]
OUTCOME_WORDS: dict[FaultOutcome, str] = {
    "clean": "ended cleanly",
    "raised": "raised",
    "hung": "hung",
    "partial": "took a partial answer as complete",
    "not_reached": "fault not reached",
}
DEFAULT_FAULT_TIMEOUT = 30.0
"""Seconds a faulted run may take before it counts as hung (`--timeout` says otherwise)."""
DEFAULT_MAX_RUNS = 50
"""`--faults` runs at most this many variants unless `--max-runs` says otherwise."""


class FaultRun(BaseModel):
    """One variant: the fault, how the program coped, and the line that says why."""

    fault: StreamFault
    outcome: FaultOutcome
    detail: str
    exit_code: int | None
    event_index: int | None
    """The event replay broke the stream at (None: not reached)."""


def classify(result: CheckResult) -> tuple[FaultOutcome, str]:
    """The outcome of a faulted check, and one line saying why."""
    if result.error is not None and result.error.startswith("timed out"):
        return "hung", f"still running when stopped: {result.error}"
    if result.fault is None:
        return "not_reached", f"the program never read that far ({result.summary()})"
    call = result.fault.fault.call
    if result.mismatch is not None:
        return "partial", f"went on with the broken answer: {result.mismatch.one_line}"
    if result.exit_code == 0 and result.status == "ok":
        if result.fault.broke:
            return "clean", f"asked call {call} again and finished with exit 0"
        if result.fault.fault.kind == "stall":
            return "clean", "went on after the stall and finished with exit 0"
        return "clean", "finished with exit 0 (other calls were answered meanwhile)"
    if result.exit_code == 0:
        return (
            "partial",
            f"exited 0 without the whole answer of call {call} (never asked for it again)",
        )
    last = result.stderr_tail[-1] if result.stderr_tail else "no output on stderr"
    return "raised", f"exit code {result.exit_code}: {last}"


def variants_of(
    selector: str, kinds: Sequence[FaultKind] = FAULT_KINDS, seconds: float = DEFAULT_STALL_SECONDS
) -> list[StreamFault]:
    """Each kind against each call of the recording (at the middle of its stream), call by call;
    a call too short to break that way is left out."""
    recording = read_recording(locate_recording(selector).path)
    return fault_variants([call.events for call in recording.calls], kinds, seconds)


def run_fault(
    selector: str,
    argv: Sequence[str] | None,
    fault: StreamFault,
    *,
    timeout: float = DEFAULT_FAULT_TIMEOUT,
    rules: MatchingRules | None = None,
) -> FaultRun:
    """Run the program once with `fault`, and classify how it coped."""
    result = run_check(selector, argv, timeout=timeout, rules=rules, fault=fault)
    outcome, detail = classify(result)
    return FaultRun(
        fault=fault,
        outcome=outcome,
        detail=detail,
        exit_code=result.exit_code,
        event_index=result.fault.event_index if result.fault is not None else None,
    )


def run_faults(
    selector: str,
    argv: Sequence[str] | None,
    faults: Sequence[StreamFault],
    *,
    timeout: float = DEFAULT_FAULT_TIMEOUT,
    rules: MatchingRules | None = None,
    on_run: Callable[[int, FaultRun], None] | None = None,
) -> list[FaultRun]:
    """Run every variant in turn; `on_run(number, run)` is told after each (number from 1)."""
    runs = []
    for number, fault in enumerate(faults, start=1):
        run = run_fault(selector, argv, fault, timeout=timeout, rules=rules)
        runs.append(run)
        if on_run is not None:
            on_run(number, run)
    return runs
