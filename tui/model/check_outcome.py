"""What a check's result means: its outcome, the headline and sentence that say it, its facts and
the program's last output (every differing field is `request_comparison`'s, the timeline of a
stream read past is `events`').

A check is the library's `run_check` (the same function as `openprogram recordings check`, started
by `check_session`); this module only turns its `CheckResult` into what the check screen shows and
never imports Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from openprogram.providers.replay import MismatchKind
from openprogram.recordings import CheckResult
from openprogram.text import plural

OutcomeKind = Literal["ok", "mismatch", "position", "past_end", "incomplete", "error", "cancelled"]
"""`position`: the run read past where a recorded stream stopped (the mismatch has `event_index`);
`past_end`: the run made more calls than were recorded (field `call_index`)."""

_OUTCOME_OF_KIND: dict[MismatchKind, OutcomeKind] = {
    "request": "mismatch",
    "read_past_end": "position",
    "extra_call": "past_end",
    "unconsumed": "incomplete",
}


def outcome_kind(result: CheckResult, cancelled: bool = False) -> OutcomeKind:
    """Which screen a result gets; `cancelled` when the user stopped the run."""
    if cancelled and result.status == "error":
        return "cancelled"
    if result.status != "mismatch" or result.mismatch is None:
        return "error" if result.status == "mismatch" else result.status
    return _OUTCOME_OF_KIND[result.mismatch.kind]


def headline(result: CheckResult, cancelled: bool = False) -> str:
    """The one line on top of the result."""
    kind = outcome_kind(result, cancelled)
    mismatch = result.mismatch
    consumed = f"{result.calls_consumed}/{result.calls_recorded}"
    noun = "call" if result.calls_recorded == 1 else "calls"  # `1/1 call`, `0/2 calls`
    if kind == "ok":
        return f"✓ ok · {consumed} {noun} replayed and consumed in {result.duration_seconds:.2f} s"
    if kind == "mismatch" and mismatch is not None:
        return f"✗ mismatch at call {mismatch.call_index} · {mismatch.field_path}"
    if kind == "position" and mismatch is not None:
        return (
            f"✗ the run read past the recorded stream of call {mismatch.call_index} "
            f"at event {mismatch.event_index}"
        )
    if kind == "past_end" and mismatch is not None:
        return (
            f"✗ call past the end: the run made call {mismatch.call_index}; the recording "
            f"has {plural(result.calls_recorded, 'call')}"
        )
    if kind == "incomplete":
        return (
            f"◐ incomplete · the program made {result.calls_consumed} of "
            f"{plural(result.calls_recorded, 'recorded call')}"
        )
    if kind == "cancelled":
        return f"■ cancelled after {consumed} {noun}"
    return f"✗ error · {result.error or 'the check failed'}"


EXPLANATIONS: dict[OutcomeKind, str] = {
    "ok": "Every recorded call was made in order with the same request: the current code "
    "replays this recording cleanly.",
    "mismatch": "A request of the current code differs from the recorded one.",
    "position": "The recorded stream of this call stopped early; the current code read further "
    "than the recording holds.",
    "past_end": "The current code made more calls than were recorded; its extra request is below.",
    "incomplete": "The program finished before making every recorded call: the current code stops "
    "earlier or takes another path. o opens the first call it never made.",
    "error": "The program failed before replay found a difference; its exit code and last "
    "lines of output say why.",
    "cancelled": "Stopped with esc; the program was killed. r runs it again.",
}
"""One sentence under the headline: what the outcome means for the code."""
ABSORBED_OK = (
    "Every recorded call was made in order, with the same request once the rules below absorbed "
    "what differs: the current code replays this recording cleanly under these rules."
)
ABSORBED_SHOWN = 5
"""Absorbed differences listed one by one under a result (the rest are counted)."""


def explanation(result: CheckResult, cancelled: bool = False) -> str:
    """The sentence under the headline; an ok that rules made ok says so."""
    kind = outcome_kind(result, cancelled)
    return ABSORBED_OK if kind == "ok" and result.absorbed else EXPLANATIONS[kind]


def never_requested_text(result: CheckResult) -> str:
    """`call 1` or `calls 2, 3, 4` (the recorded calls the run never made)."""
    calls = result.never_requested
    if not calls:
        return "none"
    noun = "call" if len(calls) == 1 else "calls"
    return f"{noun} {', '.join(str(call) for call in calls)}"


def result_facts(result: CheckResult, cancelled: bool = False) -> list[tuple[str, str]]:
    """(label, value) rows under the headline: calls, time, exit code and what the outcome needs."""
    kind = outcome_kind(result, cancelled)
    exit_code = "—" if result.exit_code is None else str(result.exit_code)
    facts = [
        ("calls", f"{result.calls_consumed}/{result.calls_recorded} consumed"),
        ("time", f"{result.duration_seconds:.2f} s"),
        ("exit code", exit_code),
    ]
    if kind in ("incomplete", "mismatch", "position", "past_end") and result.never_requested:
        facts.append(("never requested", never_requested_text(result)))
    if kind == "past_end" and result.mismatch:
        facts.append(("replay", result.mismatch.one_line))
    if kind == "error" and result.error:
        facts.append(("error", result.error))
    if kind == "cancelled":
        facts.append(("stopped", "cancelled with esc; the program was killed"))
    facts += [("rule", rule) for rule in result.rules]
    absorbed = result.absorbed_summary()
    if absorbed is not None:  # as `openprogram recordings check` says it, then which they were
        facts.append(("absorbed", absorbed))
        facts += [
            ("", f"call {a.call_index} · {a.field_path} · {a.rule or 'a rule'}")
            for a in result.absorbed[:ABSORBED_SHOWN]
        ]
        if len(result.absorbed) > ABSORBED_SHOWN:
            facts.append(("", f"… {len(result.absorbed) - ABSORBED_SHOWN} more"))
    return facts


@dataclass(frozen=True)
class ProgramOutput:
    """The last lines the program wrote to one of its streams."""

    stream: Literal["stdout", "stderr"]
    lines: tuple[str, ...]


def program_output(result: CheckResult, cancelled: bool = False) -> tuple[ProgramOutput, ...]:
    """What the program printed last, for a run that failed or made fewer calls than recorded
    (a test runner reports its failures on stdout, a traceback goes to stderr)."""
    if outcome_kind(result, cancelled) not in ("error", "incomplete"):
        return ()
    shown = (
        ProgramOutput("stdout", tuple(result.stdout_tail)),
        ProgramOutput("stderr", tuple(result.stderr_tail)),
    )
    return tuple(output for output in shown if output.lines)
