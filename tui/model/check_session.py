"""The check screen's state, without drawing: the command, the runs and what they allow.

A check (the library's `run_check`, as `openprogram recordings check` runs it: `run_tui_check`), an
accept, a rerecord and a `check --runs` are each one `Run` of the recording's program in a thread;
one runs at a time, and a run that was replaced (or stopped) reports to nobody: `finish` tells the
screen whether an outcome still counts. Never imports Textual.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.text import Text

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.differences import PathToken
from openprogram.providers.recording.rules import NO_RULES, IgnoreRule, MatchingRules, NormalizeRule
from openprogram.recordings import CheckProgress, CheckResult, RecordingEntry, run_check
from openprogram.recordings.accept import run_accept
from openprogram.recordings.check import check_refused
from openprogram.recordings.rerecord import RerecordPlan, run_rerecord
from openprogram.recordings.rule_edits import (
    add_rule_to_header,
    add_rule_to_pyproject,
    project_rules_file,
    rules_in_force,
)
from openprogram.recordings.trust import trust_command, trust_stored_command
from openprogram.recordings.versions import RewriteRun, write_rewrite
from openprogram.text import plural
from tui.model.check_commands import CheckCommand, CommandSource, choose_command, format_command
from tui.model.check_outcome import outcome_kind
from tui.model.check_runs import RUNS, RunsReport, Sorted, sort_runs
from tui.model.events import EventTimeline, event_timeline
from tui.model.request_comparison import RuleScope

RunKind = Literal["check", "accept", "rerecord", "runs"]
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


@dataclass(frozen=True)
class Run:
    """One run of the program: its number (the latest counts), what it does, its stop switch."""

    number: int
    kind: RunKind
    cancel: threading.Event


@dataclass(frozen=True)
class Checked:
    """A check ended (`cancelled`: esc stopped it); `timeline` for a position divergence."""

    result: CheckResult
    cancelled: bool = False
    timeline: EventTimeline | None = None

    @classmethod
    def of(cls, result: CheckResult, cancelled: bool) -> Checked:
        """A check's result, with the recorded timeline when the run read past a stream (this
        reads the recording: in the run's thread)."""
        mismatch = result.mismatch
        timeline = None
        if outcome_kind(result) == "position" and mismatch and mismatch.event_index is not None:
            timeline = event_timeline(
                Path(result.recording), mismatch.call_index, mismatch.event_index
            )
        return cls(result, cancelled, timeline)


RunOutcome = Checked | RewriteRun | Sorted
"""What a run ends with: a check's result, an accept's or rerecord's candidate version, or the
differences of `check --runs` sorted."""
RunWork = Callable[[Callable[[RunsReport], None], Run], RunOutcome]
"""What a run does in its thread, given where to report progress and the run (its stop switch)."""


def check_work(
    recording: Path, command: CheckCommand | None, given: CheckResult | None = None
) -> RunWork:
    """Check `recording` with `command` (or take the `given` result as the check's)."""

    def check(report: Callable[[CheckProgress], None], run: Run) -> Checked:
        result = given
        if result is None:
            assert command is not None
            argv, cwd = command.argv, command.cwd
            result = run_tui_check(recording, argv, cwd=cwd, on_progress=report, cancel=run.cancel)
        return Checked.of(result, run.cancel.is_set())

    return check


def accept_work(recording: Path, command: CheckCommand) -> RunWork:
    """Run again offline keeping the recorded answers, to accept the new requests."""

    def accept(report: Callable[[CheckProgress], None], run: Run) -> RewriteRun:
        argv, cwd = command.argv, command.cwd
        return run_accept(str(recording), argv, cwd=cwd, on_progress=report, cancel=run.cancel)

    return accept


def rerecord_work(plan: RerecordPlan) -> RunWork:
    """Replay the calls before the plan's first live call, record the rest live."""

    def rerecord(report: Callable[[CheckProgress], None], run: Run) -> RewriteRun:
        return run_rerecord(plan, on_progress=report, cancel=run.cancel)

    return rerecord


def runs_work(
    recording: Path, command: CheckCommand, keep: Path | None = None, runs: int = RUNS
) -> RunWork:
    """Run the program `runs` times and sort what changes by itself from what the code changed
    (the last run's requests kept in `keep`, to compare)."""

    def sort(report: Callable[[RunsReport], None], run: Run) -> Sorted:
        return sort_runs(recording, command, report, run.cancel, runs, keep)

    return sort


@dataclass(frozen=True)
class CallTarget:
    """Where `o` leads in the recording: a call, at a field or an event."""

    call_index: int
    path_tokens: tuple[PathToken, ...] = ()
    event_index: int | None = None


class CheckSession:
    """The command of one recording's check screen, its runs, and the last check's result."""

    def __init__(self, recording: Path, command: CheckCommand | None = None) -> None:
        self.recording = recording
        self.command = command
        self.result: CheckResult | None = None
        """The last finished check."""
        self.sorted: Sorted | None = None
        """The differences of the last `check --runs`, while they are what the screen shows."""
        self.ask_first = False
        """The stored command is not allowed on this machine yet: the editor says so."""
        self.runs = 0
        """Runs started so far (the number of the latest)."""
        self._current: Run | None = None
        self._cancel = threading.Event()
        self._previous_copies: Path | None = None
        """A private folder holding the versions before a rewrite and the last runs' requests, to
        compare (removed on close)."""

    @property
    def running(self) -> bool:
        """A run is going on (its outcome will count)."""
        return self._current is not None

    def start(self, kind: RunKind) -> Run:
        """A new run; a run still going is stopped and its outcome will not count."""
        self._cancel.set()
        self._cancel = threading.Event()
        self.runs += 1
        self._current = Run(self.runs, kind, self._cancel)
        return self._current

    def finish(self, run: Run, outcome: RunOutcome) -> bool:
        """`run` ended with `outcome`; False when it no longer counts (another run replaced it)."""
        if run != self._current:
            return False
        self._current = None
        self.sorted = outcome if isinstance(outcome, Sorted) else None
        if isinstance(outcome, Checked):
            self.result = outcome.result
            if self.command is None:  # a finished check was given: its command runs it again
                self.command = CheckCommand(outcome.result.argv, outcome.result.cwd, "given", None)
        return True

    def failed(self) -> None:
        """The run's worker raised: nothing is running any more."""
        self._current = None

    def cancel(self) -> bool:
        """Stop the run going on; False when none is, or it is being stopped already."""
        if self._current is None or self._cancel.is_set():
            return False
        self._cancel.set()
        return True

    def close(self) -> None:
        """The screen goes away: stop whatever runs, remove the copies of earlier versions."""
        self._cancel.set()
        if self._previous_copies is not None:
            shutil.rmtree(self._previous_copies, ignore_errors=True)

    def choose(self, argv: list[str]) -> None:
        """The user ran `argv` from the command editor: remember the edit; the recorded command,
        run on an explicit enter, is allowed on this machine from now on."""
        command = self.command or CheckCommand([], None, "none", None)
        choose_command(self.recording, argv, command)
        if argv == command.recorded_argv and command.cwd is not None:
            trust_command(self.recording, RecordingEntry(argv=argv, cwd=command.cwd))
            self.ask_first = False
        source: CommandSource = "recorded" if argv == command.recorded_argv else "remembered"
        self.command = CheckCommand(argv, command.cwd, source, command.recorded_argv)

    def private_file(self, name: str) -> Path:
        """A path in the screen's private folder (removed on close), for a copy only it reads."""
        if self._previous_copies is None:
            self._previous_copies = Path(tempfile.mkdtemp(prefix="openprogram-tui-versions-"))
        return self._previous_copies / f"{self.runs}-{name}"

    def write_version(self, rewrite: RewriteRun) -> Path:
        """Keep a copy of the version now in place (returned, to compare), then put the new one
        in its place; the command it stores ran here, so it is allowed here."""
        previous = self.private_file(f"before-{self.recording.name}")
        shutil.copyfile(self.recording, previous)
        previous.chmod(0o600)
        argv = self.command.argv if self.command is not None else rewrite.result.argv
        write_rewrite(rewrite, argv)
        trust_stored_command(self.recording)
        return previous

    def start_dir(self) -> Path:
        """Where the program runs: the project's rules are found from there."""
        cwd = (self.command.cwd if self.command else None) or (
            self.result.cwd if self.result else None
        )
        return Path(cwd) if cwd else Path.cwd()

    def rules_context(self) -> tuple[Path, MatchingRules]:
        """The project's rules file (found from where the program runs) and the rules in force
        for this recording: a new rule is previewed together with those, as replay merges them."""
        start_dir = self.start_dir()
        try:
            in_force = rules_in_force(self.recording, start_dir)
        except OpenProgramError:
            in_force = NO_RULES
        return project_rules_file(start_dir), in_force

    def diverging_call(self) -> int | None:
        """Where a rerecord starts: the call the run diverged at, or the first it never made."""
        result = self.result
        if result is None:
            return None
        if result.mismatch is not None and result.mismatch.kind != "unconsumed":
            return result.mismatch.call_index
        if result.status == "incomplete" and result.never_requested:
            return result.never_requested[0]
        return None

    def call_to_open(self) -> CallTarget | None:
        """Where `o` leads: the mismatching call, or the first call the run never made."""
        result = self.result
        if result is None:
            return None
        kind = outcome_kind(result)
        mismatch = result.mismatch
        if kind == "mismatch" and mismatch is not None:
            return CallTarget(mismatch.call_index, tuple(mismatch.path_tokens))
        if kind == "position" and mismatch is not None:
            event = mismatch.event_index or 0
            return CallTarget(mismatch.call_index, event_index=max(event - 1, 0))
        if kind == "incomplete" and result.never_requested:
            return CallTarget(result.never_requested[0])
        return None

    def allows(self, action: str) -> bool:
        """Whether the screen's action `action` can be done now (the footer shows only those)."""
        idle, result = not self.running, self.result
        if action == "run_again":
            return idle and (result is not None or self.sorted is not None)
        if action == "edit":
            return idle
        if action == "runs":
            return idle and self.command is not None and bool(self.command.argv)
        if self.sorted is not None and action in ("open_call", "rerecord", "accept"):
            return False  # the runs' differences are shown, not the last check's
        if action == "open_call":
            return idle and self.call_to_open() is not None
        if action == "rerecord":
            return idle and self.command is not None and self.diverging_call() is not None
        if action == "accept":
            mismatch = result is not None and outcome_kind(result) == "mismatch"
            return idle and mismatch and self.command is not None
        return True


def rerecord_question(plan: RerecordPlan, start: int) -> str:
    """What the confirmation asks before a rerecord from call `start`: which calls go live,
    to what, and (unless every one goes to a keyless API) that they need keys and are billed."""
    models = ", ".join(plan.live_models) or "the providers the program calls"
    cost = (
        "Their credentials (API keys) are needed and the calls are billed"
        if plan.needs_credentials
        else "It needs no credentials and bills nothing"
    )
    if not start:
        return f"Record again from call 0: every call goes LIVE to {models}. {cost}; esc stops it."
    recorded = plural(plan.live_calls, "recorded call")
    return (
        f"Record again from call {start}: calls 0–{start - 1} replay from the recording; from "
        f"call {start} on ({recorded} from there) every call goes LIVE to {models}. {cost}. "
        "The new version is written only if the program ends successfully; esc stops it."
    )


def command_line(command: CheckCommand) -> Text:
    """`$ python agent.py bye   in /project   (edited; recorded: python agent.py hi)`."""
    text = Text()
    text.append("$ ", "bold")
    text.append(format_command(command.argv))
    if command.cwd:
        text.append(f"   in {command.cwd}")
    if command.recorded_argv is not None and command.argv != command.recorded_argv:
        text.append(f"   (edited; recorded: {format_command(command.recorded_argv)})")
    return text


def save_rules(
    recording: Path,
    project: Path,
    rules: Sequence[IgnoreRule | NormalizeRule],
    scope: RuleScope,
) -> str:
    """Add `rules` to the recording's header or to the project's `pyproject.toml`; where to."""
    where = ""
    for rule in rules:
        if scope == "project":
            where = str(add_rule_to_pyproject(project, rule))
        else:
            add_rule_to_header(recording, rule)
            where = f"the header of {recording.name}"
    return where
