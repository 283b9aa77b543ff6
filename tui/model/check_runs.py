"""The check screen's `check --runs`: the program run a few times, its differences sorted into
"changes by itself" and "the code changed", without drawing.

The runs are the library's `check_stability` in the run's thread. When it proposes rules it waits
for the user: the thread reports a `RulesQuestion` (as it reports progress) and blocks until the
screen answers it, so a yes writes the rules through the library, exactly as the CLI's yes does,
and the runs go on. Stopping the run answers no. Never imports Textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from openprogram.providers.recording.differences import PathToken, iter_request_differences
from openprogram.providers.recording.field_patterns import FieldPatternError, parse_field_path
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.rules import NormalizeRule
from openprogram.recordings import CheckProgress, CheckResult
from openprogram.recordings.rule_edits import project_rules_file
from openprogram.recordings.stability import StabilityReport, StableDifference, check_stability
from tui.model.check_commands import CheckCommand
from tui.model.request_comparison import RequestComparison

RUNS = 3
"""How many times the check screen's `t` runs the program: two to compare, one to confirm
what the rules written after them leave."""


@dataclass(frozen=True)
class RunStarted:
    """Run `number` of `runs` started."""

    number: int
    runs: int


@dataclass(eq=False)
class RulesQuestion:
    """The runs wait after `runs_made` runs: write `rules` (they absorb what changes by itself)
    and run again? `sorted` is every difference met so far; the run's thread waits for `answer`."""

    rules: list[NormalizeRule]
    sorted: list[StableDifference]
    runs_made: int
    rules_file: Path
    """Where a yes writes them (the project's `pyproject.toml`)."""
    cancel: threading.Event
    """The run's stop switch: stopping it answers no."""
    _answered: threading.Event = field(default_factory=threading.Event)
    _yes: bool = False

    def answer(self, yes: bool) -> None:
        """The user's answer (the first one counts); the runs go on."""
        if not self._answered.is_set():
            self._yes = yes
            self._answered.set()

    def wait(self) -> bool:
        """In the run's thread: block until answered or stopped; True to write the rules."""
        # The stop switch is looked at every quarter second: a screen that went away never
        # answers, and its thread must end with it.
        while not self._answered.wait(0.25):
            if self.cancel.is_set():
                return False
        return self._yes and not self.cancel.is_set()


RunsReport = CheckProgress | RunStarted | RulesQuestion
"""What a run of `check --runs` reports while it goes on."""


@dataclass(frozen=True)
class Sorted:
    """The runs ended (`cancelled`: esc stopped them): what changed by itself, what the code did;
    `last_run`: the requests the last run sent (a private copy), to compare side by side."""

    report: StabilityReport
    cancelled: bool = False
    last_run: Path | None = None

    @property
    def left(self) -> int:
        """Differences left unruled."""
        return len(self.report.changes_by_itself) + len(self.report.code_changed)


def sort_runs(
    recording: Path,
    command: CheckCommand,
    report: Callable[[RunsReport], None],
    cancel: threading.Event,
    runs: int = RUNS,
    keep: Path | None = None,
) -> Sorted:
    """Run `command` up to `runs` times on `recording` and sort its differences; `report` gets
    each call consumed, each run started and each question (whose answer the runs wait for).
    `keep`: where the last run's requests are kept (a private file the caller removes)."""
    made = 0
    # Where `check_stability` writes them: the project found from where the program runs.
    rules_file = project_rules_file(Path(command.cwd or ".").resolve())

    def accept(rules: list[NormalizeRule], found: list[StableDifference]) -> bool:
        if cancel.is_set():
            return False
        question = RulesQuestion(rules, found, made, rules_file, cancel)
        report(question)
        yes = question.wait()
        if yes and made < runs:
            report(RunStarted(made + 1, runs))  # the bar comes back, counting on
        return yes

    def ran(number: int, _result: CheckResult) -> None:
        nonlocal made
        made = number
        if number < runs and not cancel.is_set():
            report(RunStarted(number + 1, runs))

    report(RunStarted(1, runs))
    done = check_stability(
        str(recording),
        command.argv,
        runs,
        accept=accept,
        cwd=command.cwd,
        on_run=ran,
        on_progress=report,
        cancel=cancel,
        keep_last_run=keep,
    )
    return Sorted(done, cancel.is_set(), keep if keep is not None and keep.exists() else None)


def field_tokens(difference: StableDifference) -> tuple[PathToken, ...]:
    """The field a difference opens at in the recording view (its call, when the path does not
    read back)."""
    try:
        return parse_field_path(difference.field_path)
    except FieldPatternError:
        return ()


def comparison(done: Sorted, difference: StableDifference) -> RequestComparison | None:
    """The recorded request of the difference's call and the one the last run sent, side by side
    at that field (reads both files: in a thread); None when the last run's were not kept."""
    if done.last_run is None:
        return None
    call = difference.call_index
    recorded_calls = read_recording(Path(done.report.recording)).calls
    sent_calls = read_recording(done.last_run).calls
    if call >= min(len(recorded_calls), len(sent_calls)):
        return None
    recorded = recorded_calls[call].request_payload()
    incoming = sent_calls[call].request_payload()
    found = tuple(iter_request_differences(recorded, incoming))
    tokens = [d.path_tokens for d in found]
    wanted = field_tokens(difference)
    return RequestComparison(
        call_index=call,
        field_path=difference.field_path,
        message=f"call {call}: {difference.field_path}, the same every run",
        recorded_request=recorded,
        incoming_request=incoming,
        differences=found,
        first=tokens.index(wanted) if wanted in tokens else 0,
    )
