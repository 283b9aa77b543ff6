"""`check --runs` on the check screen: the differences in two groups, "changes by itself" (with the
rule proposed for each) and "the code changed"; `w` writes the proposed rules after a yes.

While the runs wait on a `RulesQuestion`, the view shows what was sorted so far and the rules
whole; `w` asks once more (naming the file) and answers the question, and the runs go on: the
library writes the rules, as the CLI's yes does. When the runs ended, `enter` on a difference the
code made shows it side by side (the recorded request and the one the last run sent: the check
screen's `MismatchView`, `esc` comes back); `o` opens a difference's call at its field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openprogram.recordings.stability import StableDifference
from openprogram.text import plural
from openprogram.visible_text import visible_line
from tui.messages import CallOpenRequested
from tui.model.check_runs import RulesQuestion, Sorted, comparison, field_tokens
from tui.model.request_comparison import RequestComparison
from tui.screens.confirm import ConfirmScreen
from tui.widgets.comparison.mismatch_view import MismatchView

_GROUPS = (  # what is left to decide first; what the rules written absorb last
    ("by_itself", "changes by itself", "the incoming value differs between runs"),
    ("code_changed", "the code changed", "the same incoming value every run"),
    ("ruled", "ruled", "changed by itself; the rules written absorb it"),
)


def difference_text(difference: StableDifference) -> Text:
    """One difference: its call and field, the recorded value, each run's (or the one every run
    sent) and the rules proposed for it."""
    text = Text()
    text.append(f"call {difference.call_index}  ", "bold")
    text.append(visible_line(difference.field_path), "bold")
    text.append("\n  recorded: " + visible_line(difference.recorded))
    if difference.kind == "code_changed":
        text.append("\n  incoming: " + visible_line(difference.incoming[0]) + "   (every run)")
        return text
    for number, value in enumerate(difference.incoming, start=1):
        text.append(f"\n  run {number}:    " + visible_line(value))
    for rule in difference.rules:
        text.append("\n  rule:     " + visible_line(rule), "bold")
    if not difference.rules:
        text.append("\n  rule:     none fits: no preset makes the runs' values equal", "italic")
    return text


class StabilityView(Vertical):
    """What the runs found so far (a `RulesQuestion` waiting) or in the end (`Sorted`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w", "write_rules", "Write rules", id="runs.write-rules"),
        Binding("o", "open_call", "Open call", id="runs.open-call"),
        Binding("escape", "close_comparison", "Back to the runs", id="runs.close-comparison"),
    ]
    DEFAULT_CSS = """
    StabilityView {
        height: 1fr;
        & > #runs-summary { height: auto; padding: 0 1; }
        & > OptionList { height: 1fr; border: none; }
        &.-comparing > #runs-summary, &.-comparing > OptionList { display: none; }
    }
    """

    @dataclass
    class ComparisonRead(Message):
        """A difference of the code's, side by side (None: the last run's requests are gone)."""

        comparison: RequestComparison | None

    def __init__(self, shown: RulesQuestion | Sorted, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown = shown
        self._differences: list[StableDifference] = []

    def compose(self) -> ComposeResult:
        yield Static(self._summary(), id="runs-summary")
        yield OptionList(*self._options(), id="runs-differences")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _groups(self) -> dict[str, list[StableDifference]]:
        if isinstance(self.shown, RulesQuestion):
            found = self.shown.sorted
            by_itself = [d for d in found if d.kind == "by_itself"]
            return {
                "by_itself": by_itself,
                "code_changed": [d for d in found if d.kind != "by_itself"],
            }
        report = self.shown.report
        return {
            "ruled": report.ruled,
            "by_itself": report.changes_by_itself,
            "code_changed": report.code_changed,
        }

    def _options(self) -> list[Option | None]:
        options: list[Option | None] = []
        groups = self._groups()
        for key, title, meaning in _GROUPS:
            members = groups.get(key, [])
            if not members:
                continue
            heading = Text.assemble((title, "bold underline"), f"  ({meaning}): {len(members)}")
            options.append(Option(heading, disabled=True))
            for difference in members:
                options.append(Option(difference_text(difference), id=str(len(self._differences))))
                self._differences.append(difference)
        return options

    def _summary(self) -> Text:
        shown = self.shown
        if isinstance(shown, RulesQuestion):
            text = Text.assemble(
                (f"after {plural(shown.runs_made, 'run')}: ", "bold"),
                "rules that absorb what changes by itself:",
            )
            for rule in shown.rules:
                text.append("\n  " + visible_line(rule.describe()), "bold")
            text.append(
                f"\nw writes them to {visible_line(str(shown.rules_file))} and runs again;"
                " esc leaves them unwritten"
            )
            return text
        report = shown.report
        said = f"{plural(report.runs, 'run')} of {report.runs_allowed}"
        if shown.cancelled:
            said += " (stopped)"
        text = Text(said, "bold")
        if report.rules_written:
            written = ", ".join(report.rules_written)
            text.append(
                f"\nwrote to {visible_line(str(report.rules_file))}: {visible_line(written)}"
            )
        failed = report.last_run.error
        if failed:  # a program that fails before its calls shows no difference: not stable
            text.append(f"\nthe last run failed: {visible_line(failed)}", "bold")
        elif not shown.left:
            text.append(f"\nstable: no difference left after {plural(report.runs, 'run')}")
        return text

    def highlighted(self) -> StableDifference | None:
        """The difference under the cursor."""
        option_list = self.query_one(OptionList)
        index = option_list.highlighted
        if index is None:
            return None
        option_id = option_list.get_option_at_index(index).id
        return self._differences[int(option_id)] if option_id is not None else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "write_rules":
            return isinstance(self.shown, RulesQuestion)
        if action == "close_comparison":  # otherwise esc is the screen's
            return self.has_class("-comparing")
        return True

    def action_write_rules(self) -> None:
        question = self.shown
        if not isinstance(question, RulesQuestion):
            return
        lines = "\n".join("  " + visible_line(rule.describe()) for rule in question.rules)
        ask = f"Write to {visible_line(str(question.rules_file))}:\n{lines}\nand run again?"

        def answered(yes: bool | None) -> None:
            if yes:
                question.answer(True)

        self.app.push_screen(ConfirmScreen(ask, "Write rules"), answered)

    def action_open_call(self) -> None:
        difference = self.highlighted()
        if difference is not None:
            self.post_message(CallOpenRequested(difference.call_index, field_tokens(difference)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        difference = self.highlighted()
        if isinstance(self.shown, Sorted) and difference and difference.kind == "code_changed":
            self._compare(self.shown, difference)
        else:
            self.action_open_call()

    @work(thread=True, exclusive=True, group="runs-comparison", exit_on_error=False)
    def _compare(self, done: Sorted, difference: StableDifference) -> None:
        # Both files are read whole by the strict reader: a thread, not the screen's loop.
        self.post_message(self.ComparisonRead(comparison(done, difference)))

    async def on_stability_view_comparison_read(self, message: ComparisonRead) -> None:
        message.stop()
        if message.comparison is None:  # the last run's requests were not kept: its call
            self.action_open_call()
            return
        await self.query(MismatchView).remove()
        self.add_class("-comparing")
        await self.mount(MismatchView(message.comparison, id="runs-comparison"))
        self.query_one(MismatchView).focus()

    async def action_close_comparison(self) -> None:
        await self.query(MismatchView).remove()
        self.remove_class("-comparing")
        self.query_one(OptionList).focus()
