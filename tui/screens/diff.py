"""Two recordings compared call by call: the call list by status, the requests side by side,
the answers as answers.

The comparison is the library's `diff_recordings` (what `openprogram recordings diff` prints), run
in a thread. The screen is drawn before the comparison's modules (the row models, the rules) are
imported: the calls both files have are listed as they are indexed, "comparing", and take their
status as they are compared. The request tab is the mismatch view (`n`/`N` walk the differences across calls); the
answer tab shows the text as a word diff, tool call differences, stop reason, error and usage.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from openprogram.errors import OpenProgramError
from openprogram.text import plural
from tui.messages import CallOpenRequested
from tui.model.index_pair import IndexPair
from tui.model.paths import display_path
from tui.theme import rich_style
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.title_bar import TitleBar

if TYPE_CHECKING:
    from openprogram.providers.recording.differences import PathToken
    from openprogram.word_diff import WordChange
    from tui.model.lazy_diff import DiffRow, LazyDiff
    from tui.widgets.check.mismatch_view import MismatchView

TABS = ("diff-tab-request", "diff-tab-answer")
STATUS_STYLES = {
    "same": "dim",
    "request_changed": "bold $text-warning",
    "answer_changed": "bold $text-accent",
    "both_changed": "bold $text-error",
    "only_a": "bold $text-error",
    "only_b": "bold $text-success",
}


class DiffScreen(Screen[None]):
    """Recording A and recording B: which calls differ, and how."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.go_back", "Back", show=False, id="diff.back"),
        Binding("n", "step(1)", "Next diff", id="diff.next"),
        Binding("N", "step(-1)", "Previous diff", show=False, id="diff.previous"),
        Binding(
            "right_square_bracket", "tab(1)", "Tab", key_display="[ ]", priority=True, id="diff.tab"
        ),
        Binding(
            "left_square_bracket", "tab(-1)", "Tab", show=False, priority=True, id="diff.tab-back"
        ),
        Binding("o", "open('a')", "Open in A", id="diff.open-a"),
        Binding("O", "open('b')", "Open in B", id="diff.open-b"),
        Binding("h", "focus_calls", "Calls", show=False, id="diff.calls"),
        Binding("j", "move(1)", "Next call", show=False, id="diff.next-call"),
        Binding("k", "move(-1)", "Previous call", show=False, id="diff.previous-call"),
        Binding("g", "move_to(0)", "First call", show=False, id="diff.first-call"),
        Binding("G", "move_to(-1)", "Last call", show=False, id="diff.last-call"),
    ]
    DEFAULT_CSS = """
    DiffScreen {
        & #diff-names { height: auto; padding: 0 1; color: $text-muted; }
        & #diff-warning { height: auto; padding: 0 1; color: $text-warning; display: none; }
        & #diff-totals { height: auto; padding: 0 1; color: $text-muted; }
        & #diff-body { height: 1fr; }
        & #diff-calls { height: 1fr; border: round $panel; text-wrap: nowrap; text-overflow: ellipsis; }
        & #diff-calls:focus { border: round $primary; }
        /* The row's own colours stay readable on the cursor (tui/theme.py checks this tint). */
        & #diff-calls > .option-list--option-highlighted { background: $row-cursor-blurred; }
        & #diff-calls:focus > .option-list--option-highlighted { background: $row-cursor; }
        & TabbedContent { width: 1fr; height: 1fr; }
        & TabPane { padding: 0; }
        & #diff-answer { padding: 0 1; }
        & #diff-problem { padding: 1 2; color: $text-error; }
    }
    """

    class CallsFound(Message):
        """The indexes found more calls (listed, before they are compared)."""

    class RowsReady(Message):
        """More rows were compared (`reset`: every row was replaced by the final alignment)."""

        def __init__(self, reset: bool) -> None:
            super().__init__()
            self.reset = reset

    class AnswersCompared(Message):
        """The answers of some rows were compared (`done`: of every row)."""

        def __init__(self, done: bool) -> None:
            super().__init__()
            self.done = done

    class CompareFailed(Message):
        """A recording cannot be compared; `reason` names the file and the line."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__()
        self.a, self.b = a, b
        self.pair: IndexPair | None = None
        self.diff: LazyDiff | None = None
        self.row = -1
        """The row shown (an index into `diff.rows`); -1 before the first."""
        self.answers_done = False
        self._width = 4
        """Of the call list's index column."""
        self._compared = 0
        """Options of the call list that show a compared row (the others: calls still compared)."""
        self._comparing = False
        """True once the comparison was started."""
        self._answers_listed: set[int] = set()
        """Rows whose call list entry shows their compared answer."""
        self._user_moved = False
        """Until the user moves, the view follows to the first row that differs as it is found."""
        self._biggest: dict[int, list[str]] = {}
        """Row number → what changed the most there (marked in the call list)."""

    def compose(self) -> ComposeResult:
        yield TitleBar(f"Diff {self.a.name} ↔ {self.b.name}", "comparing…")
        names = Text()
        names.append("A ", "bold")
        names.append(display_path(self.a))
        names.append("   B ", "bold")
        names.append(display_path(self.b))
        yield Static(names, id="diff-names")
        yield Static(id="diff-totals")
        yield Static(id="diff-warning")
        with Horizontal(id="diff-body"):
            yield OptionList(id="diff-calls")
            with TabbedContent(id="diff-tabs"):
                with TabPane("Request", id=TABS[0]):
                    yield Static(
                        Text("Comparing the requests…", "dim"), id="diff-request-placeholder"
                    )
                with TabPane("Answer", id=TABS[1]), VerticalScroll():
                    yield Static(id="diff-answer")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        # The calls are listed first (from the indexes alone); the comparison starts once they are
        # on screen (`on_diff_screen_calls_found`): the import of its modules waits for that.
        try:
            self.pair = IndexPair(self.a, self.b)
        except OpenProgramError as exc:
            self.post_message(self.CompareFailed(str(exc)))
            return

        def calls_found() -> None:
            self.post_message(self.CallsFound())

        self.pair.start(calls_found, first_screen=self.app.size.height)

    def on_unmount(self) -> None:
        if self.pair is not None:
            self.pair.close()

    def _start_comparing(self) -> None:
        # Imported here, once the calls are on screen: the row models, the rules, the request
        # panes. In this thread: an import in a worker takes half as long again beside the app.
        import tui.model.lazy_diff
        import tui.widgets.check.mismatch_view  # noqa: F401 (the first row shows one)

        self._compare()

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def _compare(self) -> None:
        # A file that cannot be compared is a result (one line naming it), not a failed worker.
        from openprogram.providers.recording.rules_sources import project_rules
        from tui.model.lazy_diff import REPORT_INTERVAL, LazyDiff

        pair = self.pair
        assert pair is not None
        try:
            diff = LazyDiff(pair, project_rules())
            self.diff = diff

            def rows_ready(reset: bool) -> None:
                self.post_message(self.RowsReady(reset))

            diff.build(rows_ready)
            told_at = time.monotonic()
            for row in list(diff.rows):
                diff.compare_answer(row)
                if time.monotonic() - told_at >= REPORT_INTERVAL:
                    self.post_message(self.AnswersCompared(False))
                    told_at = time.monotonic()
        except (OpenProgramError, OSError) as exc:
            self.post_message(self.CompareFailed(str(exc)))
            return
        self.post_message(self.AnswersCompared(True))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group in ("diff", "diff-answer"):
            self.post_message(self.CompareFailed(repr(event.worker.error)))

    def on_diff_screen_compare_failed(self, message: CompareFailed) -> None:
        self.query_one(TitleBar).set_facts("cannot compare", problem=True)
        body = self.query_one("#diff-body")
        body.remove_children()
        body.mount(Static(Text(f"✗ {message.reason}"), id="diff-problem"))

    def on_diff_screen_calls_found(self) -> None:
        pair = self.pair
        if pair is None or (self.diff is not None and self.diff.complete):
            return
        calls = self.query_one("#diff-calls", OptionList)
        if not self._comparing and (calls.option_count or pair.ended):
            self._comparing = True
            self.call_after_refresh(self._start_comparing)  # once the first rows are on screen
        found = pair.common_calls
        if found <= calls.option_count:
            return
        self._width = max(self._width, len(f"#{found - 1}") + 2)
        calls.add_options(
            [
                Option(Text.assemble((f"{f'#{n}':<{self._width}}", "bold"), ("… comparing", "dim")))
                for n in range(calls.option_count, found)
            ]
        )
        if self.diff is None or not self.diff.rows:
            self.query_one(TitleBar).set_facts(f"comparing… {plural(found, 'call')}")
        if not calls.has_focus and self.focused is None:
            calls.focus()

    async def on_diff_screen_rows_ready(self, message: RowsReady) -> None:
        from tui.model.recording_diff import call_row

        diff = self.diff
        if diff is None:
            return
        calls = self.query_one("#diff-calls", OptionList)
        if message.reset:
            shown = calls.option_count
            if diff.aligned_by == "signature" or shown != len(diff.rows):
                calls.clear_options()
                self.row = -1
                self._compared = 0
                self._answers_listed.clear()
        self._width = max((len(call_row(row)[0]) for row in diff.rows), default=2) + 2
        for number in range(self._compared, min(len(diff.rows), calls.option_count)):
            calls.replace_option_prompt_at_index(
                number, self._option(diff.rows[number], number).prompt
            )
        first = calls.option_count
        calls.add_options([self._option(row, first + n) for n, row in enumerate(diff.rows[first:])])
        self._compared = len(diff.rows)
        self._set_title()
        target = self._first_to_show()
        if target is not None and target != self.row:
            calls.highlighted = target
            await self._show_row(target)
        if self.pair is not None:
            self.call_after_refresh(self.pair.resume)  # the first row is drawn: index the rest
        if not calls.has_focus and self.focused is None:
            calls.focus()

    def _first_to_show(self) -> int | None:
        """Where the view goes by itself: the first row that differs (else the first row)."""
        assert self.diff is not None
        rows = self.diff.rows
        if not rows or (self._user_moved and self.row >= 0):
            return None
        first = next(
            (n for n, row in enumerate(rows) if row.request or row.a is None or row.b is None), None
        )
        if first is None:
            return 0 if self.row < 0 else None
        return first

    def on_diff_screen_answers_compared(self, message: AnswersCompared) -> None:
        diff = self.diff
        if diff is None:
            return
        self.answers_done = message.done
        calls = self.query_one("#diff-calls", OptionList)
        if message.done:
            self._biggest = self._biggest_rows()
            self._answers_listed.clear()  # listed again, the largest changes marked
        for number, row in enumerate(diff.rows[: calls.option_count]):
            if row.answer is not None and number not in self._answers_listed:
                calls.replace_option_prompt_at_index(number, self._option(row, number).prompt)
                self._answers_listed.add(number)
        self._set_title()
        if 0 <= self.row < len(diff.rows):
            self.query_one("#diff-answer", Static).update(
                self._answer_text(diff.rows[self.row], self.row)
            )

    def _set_title(self) -> None:
        from tui.model.recording_diff import summary_text

        assert self.diff is not None
        diff = self.diff
        if not diff.complete:
            self.query_one(TitleBar).set_facts(f"comparing… {plural(len(diff.rows), 'call')}")
            return
        self._warn_truncated()
        identical = self.answers_done and all(row.status == "same" for row in diff.rows)
        same = " · the recordings are the same" if identical else ""
        self.query_one(TitleBar).set_facts(
            summary_text(diff, self.answers_done) + same, problem=not identical
        )
        self._show_totals()

    def _biggest_rows(self) -> dict[int, list[str]]:
        """Row number → the numbers whose change is the largest there (`time`, `tokens`, `cost`)."""
        from tui.model.recording_diff import diff_totals

        assert self.diff is not None
        marks: dict[int, list[str]] = {}
        for name, number in diff_totals(self.diff.rows).biggest.items():
            marks.setdefault(number, []).append("time" if name == "duration" else name)
        return marks

    def _show_totals(self) -> None:
        """Both sessions' totals and where the largest changes are (once the answers are in)."""
        from tui.model.recording_diff import diff_totals, totals_text

        assert self.diff is not None
        line = self.query_one("#diff-totals", Static)
        if not self.answers_done:
            line.update(Text("A → B: comparing the answers…", "dim"))
            return
        text = totals_text(self.diff.rows, diff_totals(self.diff.rows))
        shown = Text("A → B  ", "bold")
        before, _, biggest = text.partition(" · biggest change: ")
        shown.append(before)
        if biggest:
            shown.append(" · ")
            shown.append(
                f"◆ biggest change: {biggest}",
                rich_style(self.app.theme_variables, "bold $text-warning"),
            )
        line.update(shown)

    def _warn_truncated(self) -> None:
        """One line per file whose last line has no newline (`recordings diff` refuses those)."""
        from openprogram.providers.recording.errors import TRUNCATED_LAST_LINE_REASON
        from openprogram.visible_text import visible_line

        if self.pair is None:
            return
        lines = [
            f"⚠ {side.upper()} {visible_line(index.path.name)}: line {index.line_count}: "
            f"{TRUNCATED_LAST_LINE_REASON}, compared without it"
            for side, index in self.pair.indexes.items()
            if index.truncated_tail
        ]
        warning = self.query_one("#diff-warning", Static)
        warning.update(Text("\n".join(lines)))
        warning.display = bool(lines)

    def _option(self, row: DiffRow, number: int) -> Option:
        from tui.model.recording_diff import call_row, row_delta_text

        label, words, status = call_row(row)
        marks = self._biggest.get(number)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(label, "bold")
        if marks:  # beside the index, never cut: the totals line and Answer tab say which change
            text.append("◆", rich_style(self.app.theme_variables, "bold $text-warning"))
        text.append(" " * (self._width - len(label) - (1 if marks else 0)))
        text.append(words, self._status_style(status))
        change = row_delta_text(row)
        if change:
            text.append("  ")
            text.append(change, "bold" if marks else "dim")
        return Option(text)

    def _status_style(self, status: str) -> str:
        return rich_style(self.app.theme_variables, STATUS_STYLES[status])

    # -- showing one row --

    async def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        current = self.query_one("#diff-calls", OptionList).highlighted
        if event.option_index != current:
            return  # a highlight the view has moved past already (it moves by itself, then n/N)
        if self.diff is None or event.option_index >= self._compared:
            return  # a call still being compared: shown once it is
        if event.option_index != self.row:
            self._user_moved = True
            await self._show_row(event.option_index)

    async def _show_row(self, number: int, at_end: bool = False) -> None:
        from tui.model.recording_diff import call_row, request_comparison
        from tui.widgets.check.mismatch_view import MismatchView

        assert self.diff is not None
        self.row = number
        row = self.diff.rows[number]
        label = call_row(row)[0]
        pane = self.query_one(f"#{TABS[0]}", TabPane)
        await pane.remove_children()
        view = MismatchView(
            request_comparison(self.diff, row),
            titles=(f"A · call {label}", f"B · call {label}"),
            sides=("A", "B"),
            wrap=False,
            offers_rules=False,
            start_at_end=at_end,
            take_focus=False,  # the focus stays where the user moves (the call list, a tab)
            id="diff-request",
        )
        await pane.mount(view)
        self._show_answer(number)

    @work(thread=True, exclusive=True, group="diff-answer", exit_on_error=False)
    def _show_answer(self, number: int) -> None:
        assert self.diff is not None
        try:
            row = self.diff.compare_answer(self.diff.rows[number])
        except (OpenProgramError, OSError) as exc:
            self.post_message(self.CompareFailed(str(exc)))
            return
        self.app.call_from_thread(self._answer_shown, number, row)

    def _answer_shown(self, number: int, row: DiffRow) -> None:
        if number == self.row:
            self.query_one("#diff-answer", Static).update(self._answer_text(row, number))

    def _answer_text(self, pair: DiffRow, number: int) -> Text:
        from tui.model.recording_diff import delta_lines, tool_call_lines

        variables = self.app.theme_variables
        text = Text()
        if pair.a is None or pair.b is None:
            side = "A" if pair.b is None else "B"
            text.append(f"This call is only in {side}.\n\n", "bold")
        answer = pair.answer
        if answer is None:
            text.append("Comparing the answers…", "dim")
            return text
        if pair.a is not None and pair.b is not None and not answer.changed:
            text.append("The answers are the same.\n\n", "dim")
        if answer.text:
            text.append("Text\n", "bold")
            self._words(text, answer.text)
        if answer.thinking:
            text.append("Thinking\n", "bold")
            self._words(text, answer.thinking)
        if answer.tool_calls:
            text.append("Tool calls\n", "bold")
            for path, left, right in tool_call_lines(pair):
                text.append(f"  {path}\n")
                text.append(f"    A  {left}\n", rich_style(variables, "$text-error"))
                text.append(f"    B  {right}\n", rich_style(variables, "$text-success"))
            text.append("\n")
        for name, change in (("Stop reason", answer.stop_reason), ("Error", answer.error)):
            if change is not None:
                text.append(f"{name}  ", "bold")
                text.append(f"{change[0]} → {change[1]}\n\n")
        numbers = delta_lines(pair.delta) if pair.delta is not None else []
        marks = self._biggest.get(number, [])
        for heading, labels in (
            ("Time", ("duration", "first token")),
            ("Usage (tokens)", ("tokens in", "tokens out", "cache read", "cache write")),
            ("", ("reasoning", "total")),
            ("Cost", ("cost",)),
        ):
            if heading:
                text.append(f"{'' if heading == 'Time' else chr(10)}{heading}\n", "bold")
            for label, value in numbers:
                if label in labels:
                    biggest = {"duration": "time", "total": "tokens", "cost": "cost"}.get(label)
                    text.append(f"  {label:<12}{value}")
                    if biggest in marks:
                        style = rich_style(self.app.theme_variables, "bold $text-warning")
                        text.append(f"  ◆ the biggest {biggest} change", style)
                    text.append("\n")
        return text

    @staticmethod
    def _words(text: Text, changes: tuple[WordChange, ...]) -> None:
        from openprogram.visible_text import visible

        for change in changes:  # the answers' words are file text, laid out here
            if change.op == "equal":
                text.append(visible(change.text))
            elif change.op == "delete":
                text.append(visible(change.text), "strike red")
            else:
                text.append(visible(change.text), "underline green")
        text.append("\n\n")

    # -- moving --

    async def action_step(self, step: int) -> None:
        from tui.widgets.check.mismatch_view import MismatchView

        view = self.query(MismatchView)
        if view and self.diff is not None and self.diff.rows[self.row].request:
            view.first().action_step(step)
        else:
            await self._next_changed(step)

    async def on_mismatch_view_stepped_past_end(self, message: MismatchView.SteppedPastEnd) -> None:
        message.stop()
        await self._next_changed(message.step)

    async def _next_changed(self, step: int) -> None:
        from tui.model.recording_diff import changed_rows

        if self.diff is None:
            return
        rows = changed_rows(self.diff.rows)
        later = [r for r in rows if (r > self.row if step > 0 else r < self.row)]
        if not later:
            where = "last" if step > 0 else "first"
            self.notify(f"No request difference after this one: it is the {where}.")
            return
        row = later[0] if step > 0 else later[-1]
        self._user_moved = True
        self.row = row  # shown here: the highlight message that follows finds it done
        self.query_one("#diff-calls", OptionList).highlighted = row
        await self._show_row(row, at_end=step < 0)

    def action_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        position = TABS.index(tabs.active) if tabs.active in TABS else 0
        tabs.active = TABS[(position + step) % len(TABS)]

    def action_move(self, step: int) -> None:
        calls = self.query_one("#diff-calls", OptionList)
        if calls.option_count:
            current = calls.highlighted if calls.highlighted is not None else 0
            calls.highlighted = max(0, min(current + step, calls.option_count - 1))

    def action_move_to(self, index: int) -> None:
        """Highlight call `index` of the list (-1: the last), as `g`/`G` do in every list."""
        calls = self.query_one("#diff-calls", OptionList)
        if calls.option_count:
            calls.highlighted = index % calls.option_count

    def action_focus_calls(self) -> None:
        self.query_one("#diff-calls").focus()

    def on_call_open_requested(self, message: CallOpenRequested) -> None:
        if message.recording is None:  # from the mismatch view: the call of A, at its field
            message.stop()
            self.action_open("a", message.path_tokens)

    def action_open(self, side: str, path_tokens: tuple[PathToken, ...] = ()) -> None:
        if self.diff is None or not 0 <= self.row < len(self.diff.rows):
            return
        row = self.diff.rows[self.row]
        call = row.a if side == "a" else row.b
        recording = self.a if side == "a" else self.b
        if call is None:
            self.notify(f"This call is not in {side.upper()}.", severity="warning")
            return
        from tui.widgets.check.mismatch_view import MismatchView

        view = self.query(MismatchView)
        if not path_tokens and view and row.request:
            path_tokens = view.first().difference.path_tokens
        self.post_message(CallOpenRequested(call, path_tokens, recording=recording))
