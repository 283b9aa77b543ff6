"""Rerun a recording against the current code and show what happened, mismatch side by side.

The rerun is the library's `run_check` (what `openprogram recordings check` runs) in a thread
worker that reports calls consumed as they happen; esc stops the program. The command comes from
the recording's `entry` (or the last edit, remembered per recording) and is shown for editing first.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.rules import NO_RULES
from openprogram.recordings import CheckProgress, CheckResult, RecordingEntry
from openprogram.recordings.accept import run_accept
from openprogram.recordings.rerecord import (
    RerecordPlan,
    plan_rerecord,
    run_rerecord,
)
from openprogram.recordings.rule_edits import (
    add_rule_to_header,
    add_rule_to_pyproject,
    project_rules_file,
    rules_in_force,
)
from openprogram.recordings.trust import trust_command, trust_stored_command
from openprogram.recordings.versions import RewriteRun, write_rewrite
from tui.messages import CallOpenRequested
from tui.model.check import (
    EventTimeline,
    RequestComparison,
    event_timeline,
    headline,
    outcome_kind,
    program_output,
    result_facts,
    run_tui_check,
    value_at,
)
from tui.model.check_commands import (
    CheckCommand,
    CommandSource,
    choose_command,
    format_command,
    initial_command,
)
from tui.screens.accept_review import AcceptReviewScreen
from tui.screens.command_editor import CommandEditorScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.rule_editor import RuleChoice, RuleEditorScreen
from tui.screens.rules import RulesScreen
from tui.widgets.check.check_outcome import CheckOutcome
from tui.widgets.check.check_progress import CheckProgressBar
from tui.widgets.check.event_timeline import EventTimelineView
from tui.widgets.check.json_pane import JsonPane
from tui.widgets.check.mismatch_view import MismatchView
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.title_bar import TitleBar


class CheckScreen(Screen[None]):
    """Run the recording's program with replay forced on it; show ok, mismatch, or what went wrong."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Back", show=False, id="rerun.back"),
        Binding("r", "run_again", "Rerun", id="rerun.again"),
        Binding("e", "edit", "Edit", id="rerun.edit"),
        Binding("o", "open_call", "Open call", id="rerun.open-call"),
        Binding("a", "accept", "Accept", id="rerun.accept"),
        Binding("R", "rerecord", "Record again", show=False, id="rerun.rerecord"),
        Binding("u", "rules", "Rules", show=False, id="rerun.rules"),
    ]
    DEFAULT_CSS = """
    CheckScreen {
        & > #rerun-command { height: auto; padding: 0 1; color: $text-muted; }
        & > #rerun-body { height: 1fr; }
    }
    """

    class CommandResolved(Message):
        """The command to start with is known (reading the recording's `entry` takes a thread)."""

        def __init__(self, command: CheckCommand, ask_first: bool = False) -> None:
            super().__init__()
            self.command = command
            self.ask_first = ask_first
            """The command is the file's own and this machine has not recorded or allowed it."""

    class ProgressReported(Message):
        """The program has consumed more recorded calls."""

        def __init__(self, run: int, progress: CheckProgress) -> None:
            super().__init__()
            self.run, self.progress = run, progress

    class CheckFinished(Message):
        """The rerun is over (`cancelled` when esc stopped it); `timeline` for a position divergence."""

        def __init__(
            self, run: int, result: CheckResult, cancelled: bool, timeline: EventTimeline | None
        ) -> None:
            super().__init__()
            self.run, self.result, self.cancelled, self.timeline = run, result, cancelled, timeline

    class AcceptFinished(Message):
        """An accept-mode run ended: `run` holds what it would write (or why it cannot)."""

        def __init__(self, run: int, accepted: RewriteRun) -> None:
            super().__init__()
            self.run, self.accepted = run, accepted

    class AcceptWritten(Message):
        """The new version is in place (`previous`: a copy of the old one to compare), or not
        (`error`)."""

        def __init__(self, previous: Path | None, error: str | None) -> None:
            super().__init__()
            self.previous, self.error = previous, error

    class RerecordFinished(Message):
        """A rerecord-mode run ended: `rerecorded` holds the new version (or why there is none)."""

        def __init__(self, run: int, rerecorded: RewriteRun) -> None:
            super().__init__()
            self.run, self.rerecorded = run, rerecorded

    class RuleSaved(Message):
        """A rule was written (`choice`) or refused (None, `text` says why)."""

        def __init__(self, choice: RuleChoice | None, text: str) -> None:
            super().__init__()
            self.choice, self.text = choice, text

    def __init__(
        self,
        recording: Path,
        argv: Sequence[str] | None = None,
        *,
        cwd: str | None = None,
        edit_first: bool = True,
        result: CheckResult | None = None,
    ) -> None:
        """Rerun `recording`: with `argv` (run at once, in `cwd`); else with the remembered or the
        recorded command shown for editing first (`edit_first`), or the recorded one run at once
        as `openprogram recordings check` does. `result` shows a finished check instead."""
        super().__init__()
        self.recording = recording
        self.command: CheckCommand | None = (
            CheckCommand(list(argv), cwd, "given", None) if argv else None
        )
        self.edit_first = edit_first and not argv
        self.result: CheckResult | None = None
        """The last finished check."""
        self.running = False
        self._given = result
        self._cancel = threading.Event()
        self._run = 0
        """Counts runs, so a message from a run that was replaced is ignored."""
        self._ask_first = False
        """The stored command is not allowed on this machine yet: the editor says so."""
        self._previous_copies: Path | None = None
        """A private folder holding the version before an accept, to compare (removed on close)."""

    def compose(self) -> ComposeResult:
        yield TitleBar(f"Rerun {self.recording.name}", "preparing…")
        yield Static(id="rerun-command")
        yield Vertical(id="rerun-body")
        yield KeyFooter(compact=True)

    async def on_mount(self) -> None:
        if self._given is not None:
            await self._start(self._given)
        elif self.command is not None:
            await self._start()
        else:
            self._resolve_command()

    def on_unmount(self) -> None:
        self._cancel.set()
        if self._previous_copies is not None:
            shutil.rmtree(self._previous_copies, ignore_errors=True)

    # -- background work --

    @work(thread=True, exclusive=True, group="rerun-command", exit_on_error=False)
    def _resolve_command(self) -> None:
        # Run at once (`--check`): the same command as `openprogram recordings check`.
        command = initial_command(self.recording, use_remembered=self.edit_first)
        self.post_message(self.CommandResolved(command, command.untrusted))

    @work(thread=True, exclusive=True, group="rerun", exit_on_error=False)
    def _check(self, run: int, command: CheckCommand | None, given: CheckResult | None) -> None:
        cancel = self._cancel

        def report(progress: CheckProgress) -> None:
            self.post_message(self.ProgressReported(run, progress))

        if given is not None:
            result = given
        else:
            assert command is not None
            result = run_tui_check(
                self.recording,
                command.argv,
                cwd=command.cwd,
                on_progress=report,
                cancel=cancel,
            )
        timeline = None
        mismatch = result.mismatch
        if outcome_kind(result) == "position" and mismatch and mismatch.event_index is not None:
            timeline = event_timeline(
                Path(result.recording), mismatch.call_index, mismatch.event_index
            )
        self.post_message(self.CheckFinished(run, result, cancel.is_set(), timeline))

    async def _start(self, given: CheckResult | None = None) -> None:
        self._cancel.set()  # a run still going is stopped, its result ignored
        self._cancel = threading.Event()
        self._run += 1
        self.running = True
        self._show_command()
        self.query_one(TitleBar).set_facts("running…" if given is None else "")
        await self._replace_body(CheckProgressBar(id="rerun-progress"))
        self.refresh_bindings()
        self._check(self._run, self.command, given)

    # -- messages --

    async def on_check_screen_command_resolved(self, message: CommandResolved) -> None:
        self.command = message.command
        self._ask_first = message.ask_first
        if self.edit_first or self._ask_first or not message.command.argv:
            self.action_edit()  # a stored command not allowed here runs only on enter there
        else:
            await self._start()

    def on_check_screen_progress_reported(self, message: ProgressReported) -> None:
        found = self.query(CheckProgressBar)
        if found and message.run == self._run:
            found.first().show_progress(
                message.progress.calls_consumed, message.progress.calls_recorded
            )

    async def on_check_screen_check_finished(self, message: CheckFinished) -> None:
        if message.run != self._run:
            return
        self.running = False
        self.result = message.result
        self.refresh_bindings()
        await self._show_result(message.result, message.cancelled, message.timeline)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group in ("rerun", "rerun-command"):
            self.running = False
            self.refresh_bindings()
            self.query_one(TitleBar).set_facts("the rerun failed", problem=True)
            outcome = CheckOutcome(id="rerun-outcome")
            await self._replace_body(outcome)
            error = event.worker.error
            facts = [("error", f"{type(error).__name__}: {error}")]
            outcome.show_outcome("error", "✗ error · the rerun itself failed", facts)

    def on_call_open_requested(self, message: CallOpenRequested) -> None:
        if message.recording is None:  # from the mismatch view: in this screen's recording
            message.stop()
            self.post_message(replace(message, recording=self.recording))

    def on_mismatch_view_rule_offered(self, message: MismatchView.RuleOffered) -> None:
        message.stop()
        if self.running:
            return
        project = project_rules_file(self._start_dir())
        try:  # what replay merges: the preview judges the new rule together with these
            in_force = rules_in_force(self.recording, self._start_dir())
        except OpenProgramError:
            in_force = NO_RULES
        editor = RuleEditorScreen(
            message.kind, message.difference, self.recording, project, in_force
        )
        self.app.push_screen(editor, lambda choice: self._save_rule(choice, project))

    def _start_dir(self) -> Path:
        """Where the program runs: the project's rules are found from there."""
        cwd = (self.command.cwd if self.command else None) or (
            self.result.cwd if self.result else None
        )
        return Path(cwd) if cwd else Path.cwd()

    def action_rules(self) -> None:
        """List the rules in force for this recording; removing one runs the check again."""
        if self.running:
            return

        async def after(removed: bool | None) -> None:
            if removed:
                await self.action_run_again()

        self.app.push_screen(RulesScreen(self.recording, self._start_dir()), after)

    def _save_rule(self, choice: RuleChoice | None, project: Path) -> None:
        if choice is not None:
            self.query_one(TitleBar).set_facts("saving the rule…")
            self._write_rule(choice, project)

    @work(thread=True, exclusive=True, group="rule", exit_on_error=False)
    def _write_rule(self, choice: RuleChoice, project: Path) -> None:
        # A recording's header is rewritten by copying the file: a thread, not the screen's loop.
        try:
            for rule in choice.rules:
                if choice.scope == "project":
                    where = str(add_rule_to_pyproject(project, rule))
                else:
                    add_rule_to_header(self.recording, rule)
                    where = f"the header of {self.recording.name}"
        except (OpenProgramError, OSError) as exc:
            self.post_message(self.RuleSaved(None, str(exc)))
            return
        self.post_message(self.RuleSaved(choice, f"Added `{choice.describe()}` to {where}."))

    async def on_check_screen_rule_saved(self, message: RuleSaved) -> None:
        if message.choice is None:
            self.query_one(TitleBar).set_facts("the rule was not saved", problem=True)
            self.notify(message.text, title="Nothing was written", severity="error", timeout=10)
            return
        self.notify(message.text + " Running again…", title="Rule saved")
        await self.action_run_again()

    # -- accepting the new requests --

    async def action_accept(self) -> None:
        if self.running or self.command is None:
            return
        self._cancel = threading.Event()
        self._run += 1
        self.running = True
        self.refresh_bindings()
        self.query_one(TitleBar).set_facts("accepting: rerunning offline, answers kept…")
        await self._replace_body(CheckProgressBar(id="rerun-progress"))
        self._accept_run(self._run, self.command)

    @work(thread=True, exclusive=True, group="rerun", exit_on_error=False)
    def _accept_run(self, run: int, command: CheckCommand) -> None:
        def report(progress: CheckProgress) -> None:
            self.post_message(self.ProgressReported(run, progress))

        accepted = run_accept(
            str(self.recording),
            command.argv,
            cwd=command.cwd,
            on_progress=report,
            cancel=self._cancel,
        )
        self.post_message(self.AcceptFinished(run, accepted))

    async def on_check_screen_accept_finished(self, message: AcceptFinished) -> None:
        if message.run != self._run:
            message.accepted.discard()
            return
        self.running = False
        self.refresh_bindings()
        accepted = message.accepted
        if self.result is not None:
            await self._show_result(self.result, False, None)  # the mismatch, as before
        if accepted.refusal is not None:
            self.notify(
                f"{accepted.refusal}; nothing written.",
                title="Not accepted",
                severity="error",
                timeout=10,
            )
            return
        if not accepted.accepted:
            accepted.discard()
            self.notify("Every request matches now; nothing to accept.")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._write_accepted(accepted)
            else:
                accepted.discard()
                self.notify("Nothing was written.")

        self.app.push_screen(AcceptReviewScreen(accepted.accepted, self.recording.name), answered)

    def _write_accepted(self, accepted: RewriteRun) -> None:
        command = self.command.argv if self.command is not None else accepted.result.argv
        self._write_version(lambda: write_rewrite(accepted, command))

    @work(thread=True, exclusive=True, group="version-write", exit_on_error=False)
    def _write_version(self, write: Callable[[], object]) -> None:
        """Keep a copy of the version now in place (to compare), then write the new one."""
        try:
            if self._previous_copies is None:
                self._previous_copies = Path(tempfile.mkdtemp(prefix="openprogram-tui-versions-"))
            previous = self._previous_copies / f"before-{self._run}-{self.recording.name}"
            shutil.copyfile(self.recording, previous)
            previous.chmod(0o600)
            write()
            trust_stored_command(self.recording)  # the command it now stores ran here
        except (OpenProgramError, OSError) as exc:
            self.post_message(self.AcceptWritten(None, str(exc)))
            return
        self.post_message(self.AcceptWritten(previous, None))

    async def on_check_screen_accept_written(self, message: AcceptWritten) -> None:
        if message.previous is None:
            self.notify(f"{message.error}", title="Not written", severity="error", timeout=10)
            return
        self.notify("Running again on the new version…", title="New version written")
        await self._start()
        from tui.screens.diff import DiffScreen

        self.app.push_screen(DiffScreen(message.previous, self.recording))

    # -- recording again from the diverging call --

    def _diverging_call(self) -> int | None:
        """Where a rerecord starts: the call the run diverged at, or the first it never made."""
        result = self.result
        if result is None:
            return None
        if result.mismatch is not None and result.mismatch.kind != "unconsumed":
            return result.mismatch.call_index
        if result.status == "incomplete" and result.never_requested:
            return result.never_requested[0]
        return None

    def action_rerecord(self) -> None:
        start = self._diverging_call()
        if self.running or self.command is None or start is None:
            return
        try:
            plan = plan_rerecord(
                str(self.recording), self.command.argv, cwd=self.command.cwd, from_call=start
            )
        except (OpenProgramError, OSError) as exc:
            self.notify(str(exc), title="Cannot record again", severity="error")
            return
        models = ", ".join(plan.live_models) or "the providers the program calls"
        question = (
            f"Record again from call {start}: calls 0–{start - 1} replay from the recording; from "
            f"call {start} on ({plan.live_calls} recorded call(s) follow) every call goes LIVE to "
            f"{models}. Their credentials (API keys) are needed and the calls are billed. The new "
            "version is written only if the program ends successfully; esc stops it."
            if start
            else f"Record again from call 0: every call goes LIVE to {models}. Their credentials "
            "(API keys) are needed and the calls are billed; esc stops it."
        )

        async def answered(yes: bool | None) -> None:
            if yes:
                await self._start_rerecord(plan)

        self.app.push_screen(ConfirmScreen(question, "Make live calls"), answered)

    async def _start_rerecord(self, plan: RerecordPlan) -> None:
        self._cancel = threading.Event()
        self._run += 1
        self.running = True
        self.refresh_bindings()
        self.query_one(TitleBar).set_facts(f"recording again from call {plan.from_call}…")
        await self._replace_body(CheckProgressBar(id="rerun-progress"))
        self._rerecord_run(self._run, plan)

    @work(thread=True, exclusive=True, group="rerun", exit_on_error=False)
    def _rerecord_run(self, run: int, plan: RerecordPlan) -> None:
        def report(progress: CheckProgress) -> None:
            self.post_message(self.ProgressReported(run, progress))

        self.post_message(
            self.RerecordFinished(run, run_rerecord(plan, on_progress=report, cancel=self._cancel))
        )

    async def on_check_screen_rerecord_finished(self, message: RerecordFinished) -> None:
        rerecorded = message.rerecorded
        if message.run != self._run:
            rerecorded.discard()
            return
        self.running = False
        self.refresh_bindings()
        if rerecorded.refusal is not None:
            if self.result is not None:
                await self._show_result(self.result, False, None)
            self.notify(
                f"{rerecorded.refusal}; nothing written.",
                title="Not recorded",
                severity="error",
                timeout=10,
            )
            return
        command = self.command.argv if self.command is not None else rerecorded.result.argv
        self._write_version(lambda: write_rewrite(rerecorded, command))

    # -- showing --

    def _show_command(self) -> None:
        command = self.command
        if command is None:
            return
        text = Text()
        text.append("$ ", "bold")
        text.append(format_command(command.argv))
        if command.cwd:
            text.append(f"   in {command.cwd}")
        if command.recorded_argv is not None and command.argv != command.recorded_argv:
            text.append(f"   (edited; recorded: {format_command(command.recorded_argv)})")
        self.query_one("#rerun-command", Static).update(text)

    async def _replace_body(self, *widgets: Widget) -> None:
        body = self.query_one("#rerun-body", Vertical)
        await body.remove_children()
        await body.mount_all(widgets)

    async def _show_result(
        self, result: CheckResult, cancelled: bool, timeline: EventTimeline | None
    ) -> None:
        if self.command is None:
            self.command = CheckCommand(result.argv, result.cwd, "given", None)
            self._show_command()
        kind = outcome_kind(result, cancelled)
        facts = result_facts(result, cancelled)
        summary = f"{result.status} · {result.calls_consumed}/{result.calls_recorded} calls"
        summary += f" · {result.duration_seconds:.2f} s"
        self.query_one(TitleBar).set_facts(summary, problem=result.status != "ok")
        if kind == "mismatch" and result.mismatch is not None:
            comparison = RequestComparison.from_mismatch(result.mismatch, result.absorbed)
            view = MismatchView(comparison, id="mismatch")
            await self._replace_body(view)
            return
        outcome = CheckOutcome(id="rerun-outcome")
        widgets: list[Widget] = [outcome]
        mismatch = result.mismatch
        request = mismatch.incoming_request if mismatch is not None else None
        if kind == "position" and timeline is not None:
            widgets.append(EventTimelineView(id="rerun-timeline"))
        elif kind == "past_end" and mismatch is not None and request:
            call = mismatch.call_index
            widgets.append(JsonPane(f"Incoming request · call {call} (not recorded)", id="extra"))
        await self._replace_body(*widgets)
        output = program_output(result, cancelled)
        outcome.show_outcome(kind, headline(result, cancelled), facts, output)
        if timeline is not None and self.query("#rerun-timeline"):
            self.query_one(EventTimelineView).show_timeline(timeline)
        if self.query("#extra"):
            pane = self.query_one("#extra", JsonPane)
            pane.show_document(request)
            messages = value_at(request, ("context", "messages"))
            if isinstance(messages, list) and messages:
                pane.mark(("context", "messages", len(messages) - 1))  # the turn that is new
            pane.focus()

    # -- actions --

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Hidden, not greyed out: the footer shows what can be done now.
        if action == "run_again":
            return not self.running and self.result is not None
        if action == "edit":
            return not self.running
        if action == "open_call":
            return not self.running and self._call_to_open() is not None
        if action == "rerecord":
            return (
                not self.running and self.command is not None and self._diverging_call() is not None
            )
        if action == "accept":
            result = self.result
            return (
                not self.running
                and result is not None
                and outcome_kind(result) == "mismatch"
                and self.command is not None
            )
        return True

    async def action_escape(self) -> None:
        if self.running and not self._cancel.is_set():
            self._cancel.set()
            found = self.query(CheckProgressBar)
            if found:
                found.first().show_cancelling()
            return
        await self.app.run_action("go_back")

    async def action_run_again(self) -> None:
        if self.command is not None and self.command.argv:
            await self._start()
        else:
            self.action_edit()

    def action_edit(self) -> None:
        command = self.command or CheckCommand([], None, "none", None)
        if self.result is None:
            self.query_one(TitleBar).set_facts("choose the command to run")
        editor = CommandEditorScreen(command, self.recording.name, ask_first=self._ask_first)
        self.app.push_screen(editor, self._edited)

    async def _edited(self, argv: list[str] | None) -> None:
        if argv is None:
            if self.result is None and not self.running:
                await self.app.run_action("go_back")  # nothing ran yet: leave the rerun too
            return
        command = self.command or CheckCommand([], None, "none", None)
        choose_command(self.recording, argv, command)
        if argv == command.recorded_argv and command.cwd is not None:
            # Run on an explicit enter: the stored command is allowed here from now on.
            trust_command(self.recording, RecordingEntry(argv=argv, cwd=command.cwd))
            self._ask_first = False
        source: CommandSource = "recorded" if argv == command.recorded_argv else "remembered"
        self.command = CheckCommand(argv, command.cwd, source, command.recorded_argv)
        await self._start()

    def _call_to_open(self) -> CallOpenRequested | None:
        """Where `o` leads: the mismatching call, or the first call the run never made."""
        result = self.result
        if result is None:
            return None
        kind = outcome_kind(result)
        mismatch = result.mismatch
        if kind == "mismatch" and mismatch is not None:
            tokens = tuple(mismatch.path_tokens)
            return CallOpenRequested(mismatch.call_index, tokens, recording=self.recording)
        if kind == "position" and mismatch is not None:
            call, event = mismatch.call_index, mismatch.event_index or 0
            return CallOpenRequested(call, event_index=max(event - 1, 0), recording=self.recording)
        if kind == "incomplete" and result.never_requested:
            return CallOpenRequested(result.never_requested[0], recording=self.recording)
        return None

    def action_open_call(self) -> None:
        request = self._call_to_open()
        if request is not None:
            self.post_message(request)
