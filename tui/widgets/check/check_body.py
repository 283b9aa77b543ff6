"""The check screen's body: a run's progress, then what it found (the mismatch side by side, or the
verdict with the recorded timeline or the extra request below it)."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widget import Widget

from tui.model.check_outcome import (
    explanation,
    headline,
    outcome_kind,
    program_output,
    result_facts,
)
from tui.model.check_runs import RulesQuestion, RunsReport, RunStarted, Sorted
from tui.model.check_session import Checked
from tui.model.request_comparison import RequestComparison, value_at
from tui.widgets.check.check_outcome import CheckOutcome
from tui.widgets.check.check_progress import CheckProgressBar
from tui.widgets.check.event_timeline import EventTimelineView
from tui.widgets.check.stability_view import StabilityView
from tui.widgets.comparison.json_pane import JsonPane
from tui.widgets.comparison.mismatch_view import MismatchView


class CheckBody(Vertical):
    """One of: the progress bar of a run, the mismatch view, the outcome panel, or the differences
    of `check --runs`."""

    async def _replace(self, *widgets: Widget) -> None:
        await self.remove_children()
        await self.mount_all(widgets)

    async def show_running(self) -> None:
        """A run started: the progress bar, at "starting the program…"."""
        await self._replace(CheckProgressBar(id="check-progress"))

    async def show_progress(self, progress: RunsReport) -> None:
        """The run consumed more recorded calls, started its next run, or waits on a question."""
        if isinstance(progress, RulesQuestion):
            await self._replace(StabilityView(progress, id="runs"))
            return
        if not self.query(CheckProgressBar):  # the runs went on after a question
            await self.show_running()
        bar = self.query_one(CheckProgressBar)
        if isinstance(progress, RunStarted):
            bar.show_run(progress.number, progress.runs)
        else:
            bar.show_progress(progress.calls_consumed, progress.calls_recorded)

    async def show_sorted(self, done: Sorted) -> None:
        """The runs ended: their differences, in two groups."""
        await self._replace(StabilityView(done, id="runs"))

    def show_cancelling(self) -> None:
        """esc was pressed: the run is being stopped."""
        found = self.query(CheckProgressBar)
        if found:
            found.first().show_cancelling()

    async def show_failure(self, error: BaseException | None) -> None:
        """The run itself failed (not the program): the error, as an outcome."""
        outcome = CheckOutcome(id="check-outcome")
        await self._replace(outcome)
        facts = [("error", f"{type(error).__name__}: {error}")]
        outcome.show_outcome("error", "✗ error · the check itself failed", facts)

    async def show_checked(self, checked: Checked) -> None:
        """A finished check: the mismatch side by side, or the verdict and what explains it."""
        result, cancelled, timeline = checked.result, checked.cancelled, checked.timeline
        kind = outcome_kind(result, cancelled)
        if kind == "mismatch" and result.mismatch is not None:
            comparison = RequestComparison.from_mismatch(result.mismatch, result.absorbed)
            await self._replace(MismatchView(comparison, id="mismatch"))
            return
        outcome = CheckOutcome(id="check-outcome")
        widgets: list[Widget] = [outcome]
        mismatch = result.mismatch
        request = mismatch.incoming_request if mismatch is not None else None
        if kind == "position" and timeline is not None:
            widgets.append(EventTimelineView(id="check-timeline"))
        elif kind == "past_end" and mismatch is not None and request:
            call = mismatch.call_index
            widgets.append(JsonPane(f"Incoming request · call {call} (not recorded)", id="extra"))
        await self._replace(*widgets)
        output = program_output(result, cancelled)
        facts = result_facts(result, cancelled)
        said = explanation(result, cancelled)
        outcome.show_outcome(kind, headline(result, cancelled), facts, output, said)
        if timeline is not None and self.query("#check-timeline"):
            self.query_one(EventTimelineView).show_timeline(timeline)
        if self.query("#extra"):
            pane = self.query_one("#extra", JsonPane)
            pane.show_document(request)
            messages = value_at(request, ("context", "messages"))
            if isinstance(messages, list) and messages:
                pane.mark(("context", "messages", len(messages) - 1))  # the turn that is new
            pane.focus()
