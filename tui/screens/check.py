"""Check a recording against the current code and show what happened, mismatch side by side.

The check is the library's `run_check` (what `openprogram recordings check` runs) in a thread
worker that reports calls consumed as they happen; esc stops the program. The command comes from
the recording's `entry` (or the last edit, remembered per recording) and is shown for editing first.
A check, an accept and a rerecord are each one run (`launch`), ending in one `RunFinished`; which
run counts and what can be done next is the screen's `CheckSession`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from openprogram.errors import OpenProgramError
from openprogram.recordings import CheckResult
from openprogram.recordings.rerecord import plan_rerecord
from openprogram.recordings.versions import RewriteRun
from openprogram.text import plural
from tui.messages import CallOpenRequested
from tui.model.check_commands import CheckCommand, initial_command
from tui.model.check_runs import RUNS, RulesQuestion, RunsReport, Sorted
from tui.model.check_session import (
    Checked,
    CheckSession,
    Run,
    RunKind,
    RunOutcome,
    RunWork,
    accept_work,
    check_work,
    command_line,
    rerecord_question,
    rerecord_work,
    runs_work,
    save_rules,
)
from tui.screens.accept_review import AcceptReviewScreen
from tui.screens.command_editor import CommandEditorScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.rule_editor import RuleChoice, RuleEditorScreen
from tui.screens.rules import RulesScreen
from tui.widgets.check.check_body import CheckBody
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.title_bar import TitleBar
from tui.widgets.comparison.mismatch_view import MismatchView


class CheckScreen(Screen[None]):
    """Run the recording's program with replay forced on it; show ok, mismatch, or what went wrong."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Back", show=False, id="check.back"),
        Binding("r", "run_again", "Check", id="check.again"),
        Binding("e", "edit", "Edit", id="check.edit"),
        Binding("o", "open_call", "Open call", id="check.open-call"),
        Binding("a", "accept", "Accept", id="check.accept"),
        Binding("R", "rerecord", "Record again", show=False, id="check.rerecord"),
        Binding("u", "rules", "Rules", show=False, id="check.rules"),
        Binding("t", "runs", f"{RUNS} runs", id="check.runs"),
    ]
    DEFAULT_CSS = """
    CheckScreen {
        & > #check-command { height: auto; padding: 0 1; color: $text-muted; }
        & > #check-body { height: 1fr; }
    }
    """

    @dataclass(eq=False)
    class ProgressReported(Message):
        """The program of `run` has consumed more recorded calls, or `check --runs` started a run
        or waits on a question (a newer report of the same kind replaces one still waiting)."""

        run: Run
        progress: RunsReport

        def can_replace(self, message: Message) -> bool:
            if not isinstance(message, CheckScreen.ProgressReported) or message.run != self.run:
                return False
            return type(message.progress) is type(self.progress)

    @dataclass(eq=False)
    class RunFinished(Message):
        """A check, accept or rerecord run ended with `outcome`."""

        run: Run
        outcome: RunOutcome

    def __init__(
        self,
        recording: Path,
        argv: Sequence[str] | None = None,
        *,
        cwd: str | None = None,
        edit_first: bool = True,
        result: CheckResult | None = None,
    ) -> None:
        """Check `recording`: with `argv` (run at once, in `cwd`); else with the remembered or the
        recorded command shown for editing first (`edit_first`), or the recorded one run at once
        as `openprogram recordings check` does. `result` shows a finished check instead."""
        super().__init__()
        self.recording = recording
        given = CheckCommand(list(argv), cwd, "given", None) if argv else None
        self.session = CheckSession(recording, given)
        self.edit_first = edit_first and not argv
        self._given = result

    @property
    def result(self) -> CheckResult | None:
        """The last finished check."""
        return self.session.result

    @property
    def running(self) -> bool:
        """A check, accept or rerecord is running."""
        return self.session.running

    def compose(self) -> ComposeResult:
        yield TitleBar(f"Check {self.recording.name}", "preparing…")
        yield Static(id="check-command")
        yield CheckBody(id="check-body")
        yield KeyFooter(compact=True)

    async def on_mount(self) -> None:
        if self._given is not None or self.session.command is not None:
            await self._start(self._given)
        else:
            self._resolve_command()

    def on_unmount(self) -> None:
        self.session.close()

    # -- runs --

    @work(exclusive=True, group="check-command", exit_on_error=False)
    async def _resolve_command(self) -> None:
        # Reading the recording's `entry` takes a thread. Run at once (`--check`): the same
        # command as `openprogram recordings check`.
        command = await asyncio.to_thread(
            initial_command, self.recording, use_remembered=self.edit_first
        )
        self.session.command = command
        self.session.ask_first = command.untrusted  # the file's own, not allowed here yet
        if self.edit_first or command.untrusted or not command.argv:
            self.action_edit()  # a stored command not allowed here runs only on enter there
        else:
            await self._start()

    async def launch(self, kind: RunKind, facts: str, run_work: RunWork) -> None:
        """Start a run of `kind` (one at a time): the progress bar, then its `RunFinished`."""
        run = self.session.start(kind)
        self.refresh_bindings()
        self.query_one(TitleBar).set_facts(facts)
        await self.query_one(CheckBody).show_running()
        self._run_in_thread(run, run_work)

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _run_in_thread(self, run: Run, run_work: RunWork) -> None:
        def report(progress: RunsReport) -> None:
            self.post_message(self.ProgressReported(run, progress))

        self.post_message(self.RunFinished(run, run_work(report, run)))

    async def _start(self, given: CheckResult | None = None) -> None:
        """Check (or show the `given` result as a check's)."""
        self._show_command()
        check = check_work(self.recording, self.session.command, given)
        await self.launch("check", "running…" if given is None else "", check)

    async def on_check_screen_progress_reported(self, message: ProgressReported) -> None:
        if message.run.number == self.session.runs:
            if isinstance(message.progress, RulesQuestion):
                self.query_one(TitleBar).set_facts("rules proposed: w writes them, esc does not")
            await self.query_one(CheckBody).show_progress(message.progress)

    async def action_runs(self) -> None:
        """Run the program a few times: what changes by itself, apart from what the code changed."""
        if self.session.allows("runs") and self.session.command is not None:
            keep = self.session.private_file(f"runs-{self.recording.name}")
            runs = runs_work(self.recording, self.session.command, keep)
            await self.launch("runs", f"running the program {RUNS} times…", runs)

    async def on_check_screen_run_finished(self, message: RunFinished) -> None:
        outcome = message.outcome
        if not self.session.finish(message.run, outcome):
            if isinstance(outcome, RewriteRun):
                outcome.discard()
            return
        self.refresh_bindings()
        if isinstance(outcome, Checked):
            await self._show_result(outcome)
        elif isinstance(outcome, Sorted):
            left = plural(outcome.left, "difference")
            self.query_one(TitleBar).set_facts(f"{left} left", problem=outcome.left > 0)
            await self.query_one(CheckBody).show_sorted(outcome)
        else:
            await self._rewritten(outcome)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group in ("check", "check-command"):
            self.session.failed()
            self.refresh_bindings()
            self.query_one(TitleBar).set_facts("the check failed", problem=True)
            await self.query_one(CheckBody).show_failure(event.worker.error)

    # -- from the mismatch view: open a call, add a rule --

    def on_call_open_requested(self, message: CallOpenRequested) -> None:
        if message.recording is None:  # from the mismatch view: in this screen's recording
            message.stop()
            self.post_message(replace(message, recording=self.recording))

    def on_mismatch_view_rule_offered(self, message: MismatchView.RuleOffered) -> None:
        message.stop()
        if self.running:
            return
        project, in_force = self.session.rules_context()
        editor = RuleEditorScreen(
            message.kind, message.difference, self.recording, project, in_force
        )

        def chosen(choice: RuleChoice | None) -> None:
            self._write_rule(choice, project)

        self.app.push_screen(editor, chosen)

    def action_rules(self) -> None:
        """List the rules in force for this recording; removing one runs the check again."""
        if self.running:
            return

        async def after(removed: bool | None) -> None:
            if removed:
                await self.action_run_again()

        self.app.push_screen(RulesScreen(self.recording, self.session.start_dir()), after)

    @work(exclusive=True, group="rule", exit_on_error=False)
    async def _write_rule(self, choice: RuleChoice | None, project: Path) -> None:
        if choice is None:
            return
        self.query_one(TitleBar).set_facts("saving the rule…")
        # A recording's header is rewritten by copying the file: a thread, not the screen's loop.
        try:
            where = await asyncio.to_thread(
                save_rules, self.recording, project, choice.rules, choice.scope
            )
        except (OpenProgramError, OSError) as exc:
            self.query_one(TitleBar).set_facts("the rule was not saved", problem=True)
            self.notify(str(exc), title="Nothing was written", severity="error", timeout=10)
            return
        text = f"Added `{choice.describe()}` to {where}. Running again…"
        self.notify(text, title="Rule saved")
        await self.action_run_again()

    # -- a new version: accepting the new requests, or recording again --

    async def action_accept(self) -> None:
        command = self.session.command
        if not self.running and command is not None:
            accept = accept_work(self.recording, command)
            await self.launch("accept", "accepting: running again offline, answers kept…", accept)

    async def _rewritten(self, rewrite: RewriteRun) -> None:
        """An accept or rerecord ended: write its new version (an accept asks first), or say why
        there is none."""
        if (rewrite.how == "accept" or rewrite.refusal is not None) and self.result is not None:
            await self._show_result(Checked(self.result))  # the mismatch, as before
        if rewrite.refusal is not None:
            title = "Not accepted" if rewrite.how == "accept" else "Not recorded"
            refusal = f"{rewrite.refusal}; nothing written."
            self.notify(refusal, title=title, severity="error", timeout=10)
            return
        if rewrite.how == "rerecord":
            self._write_version(rewrite)
        elif not rewrite.accepted:
            rewrite.discard()
            self.notify("Every request matches now; nothing to accept.")
        else:

            def answered(yes: bool | None) -> None:
                if yes:
                    self._write_version(rewrite)
                else:
                    rewrite.discard()
                    self.notify("Nothing was written.")

            review = AcceptReviewScreen(rewrite.accepted, self.recording.name)
            self.app.push_screen(review, answered)

    def action_rerecord(self) -> None:
        start, command = self.session.diverging_call(), self.session.command
        if self.running or command is None or start is None:
            return
        try:
            plan = plan_rerecord(
                str(self.recording), command.argv, cwd=command.cwd, from_call=start
            )
        except (OpenProgramError, OSError) as exc:
            self.notify(str(exc), title="Cannot record again", severity="error")
            return

        async def answered(yes: bool | None) -> None:
            if yes:
                facts = f"recording again from call {start}…"
                await self.launch("rerecord", facts, rerecord_work(plan))

        self.app.push_screen(
            ConfirmScreen(rerecord_question(plan, start), "Make live calls"), answered
        )

    @work(exclusive=True, group="version-write", exit_on_error=False)
    async def _write_version(self, rewrite: RewriteRun) -> None:
        """Write the new version (in a thread), run the check on it, show what changed."""
        try:
            previous = await asyncio.to_thread(self.session.write_version, rewrite)
        except (OpenProgramError, OSError) as exc:
            self.notify(str(exc), title="Not written", severity="error", timeout=10)
            return
        self.notify("Running again on the new version…", title="New version written")
        await self._start()
        from tui.screens.diff import DiffScreen

        self.app.push_screen(DiffScreen(previous, self.recording))

    # -- showing --

    def _show_command(self) -> None:
        if self.session.command is not None:
            self.query_one("#check-command", Static).update(command_line(self.session.command))

    async def _show_result(self, checked: Checked) -> None:
        self._show_command()  # a given result brings its own command
        result = checked.result
        summary = f"{result.status} · {result.calls_consumed}/{result.calls_recorded} calls"
        summary += f" · {result.duration_seconds:.2f} s"
        self.query_one(TitleBar).set_facts(summary, problem=result.status != "ok")
        await self.query_one(CheckBody).show_checked(checked)

    # -- actions --

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Hidden, not greyed out: the footer shows what can be done now.
        return self.session.allows(action)

    async def action_escape(self) -> None:
        if self.session.cancel():
            self.query_one(CheckBody).show_cancelling()
        else:
            await self.app.run_action("go_back")

    async def action_run_again(self) -> None:
        command = self.session.command
        if command is not None and command.argv:
            await self._start()
        else:
            self.action_edit()

    def action_edit(self) -> None:
        command = self.session.command or CheckCommand([], None, "none", None)
        if self.result is None:
            self.query_one(TitleBar).set_facts("choose the command to run")
        ask_first = self.session.ask_first
        editor = CommandEditorScreen(command, self.recording.name, ask_first=ask_first)
        self.app.push_screen(editor, self._edited)

    async def _edited(self, argv: list[str] | None) -> None:
        if argv is None:
            if self.result is None and not self.running:
                await self.app.run_action("go_back")  # nothing ran yet: leave the check too
            return
        self.session.choose(argv)
        await self._start()

    def action_open_call(self) -> None:
        target = self.session.call_to_open()
        if target is not None:
            call, tokens, event = target.call_index, target.path_tokens, target.event_index
            self.post_message(CallOpenRequested(call, tokens, event, recording=self.recording))
