"""The check runner and what its result means: the outcome, its facts, the timeline (every differing
field is `request_comparison`'s).

A check is the library's `run_check` (the same function as `openprogram recordings check`); this
module only turns its `CheckResult` into what the check screen shows and never imports Textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.replay import MismatchKind
from openprogram.recordings import CheckProgress, CheckResult, run_check
from openprogram.recordings.check import check_refused
from openprogram.text import plural
from tui.model.events import preview_event

OutcomeKind = Literal["ok", "mismatch", "position", "past_end", "incomplete", "error", "cancelled"]
"""`position`: the run read past where a recorded stream stopped (the mismatch has `event_index`);
`past_end`: the run made more calls than were recorded (field `call_index`)."""

ProgressCallback = Callable[[CheckProgress], None]


def run_tui_check(
    recording: Path,
    argv: Sequence[str] | None = None,
    *,
    cwd: str | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
) -> CheckResult:
    """`run_check` on `recording`; a check that cannot start comes back as an `error` result.

    The screen shows every failure as a result: a bad file, a missing command or an unstartable
    program is a message with the facts, never a traceback.
    """
    try:
        return run_check(str(recording), argv, cwd=cwd, on_progress=on_progress, cancel=cancel)
    except (OpenProgramError, OSError) as exc:  # a bad file, no command, an unusable selector
        refused = check_refused(str(recording), argv, exc)
        return refused.model_copy(
            update={"cwd": cwd or "", "error": f"the check could not start: {refused.error}"}
        )


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


@dataclass(frozen=True)
class TimelineEvent:
    """One recorded event as the timeline lists it."""

    event_index: int
    type: str
    preview: str


@dataclass(frozen=True)
class EventTimeline:
    """The recorded events of the call whose stream the run read past, and where it stopped."""

    call_index: int
    outcome: str
    events: tuple[TimelineEvent, ...]
    stopped_at: int
    """The `event_index` the run asked for: one past the last recorded event."""


def event_timeline(recording: Path, call_index: int, stopped_at: int) -> EventTimeline | None:
    """The timeline of `call_index` read by the strict reader, or None if the file cannot be read."""
    try:
        calls = read_recording(recording).calls
    except (OSError, RecordingFileError):
        return None
    if not 0 <= call_index < len(calls):
        return None
    call = calls[call_index]
    rows = tuple(
        TimelineEvent(n, event.type, preview_event(event)) for n, event in enumerate(call.events)
    )
    return EventTimeline(call_index, call.outcome, rows, stopped_at)


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
