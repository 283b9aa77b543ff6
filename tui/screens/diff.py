"""Two recordings compared call by call: the call list by status, the requests side by side,
the answers as answers.

The comparison is the library's `diff_recordings` (what `openprogram recordings diff` prints), run
in a thread. The screen is drawn before the comparison's modules (the row models, the rules) are
imported: the calls both files have are listed as they are indexed, "comparing", and take their
status as they are compared. The request tab is the mismatch view (`n`/`N` walk the differences across calls); the
answer tab shows the text as a word diff, tool call differences, stop reason, error and usage.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from openprogram.errors import OpenProgramError
from openprogram.text import plural
from tui.messages import CallOpenRequested
from tui.model.recording_index import IndexPair
from tui.model.state_dir import display_path
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.title_bar import TitleBar
from tui.widgets.diff.diff_answer import DiffAnswer
from tui.widgets.diff.diff_call_list import DiffCallList
from tui.widgets.diff.diff_totals import DiffTotalsLine

if TYPE_CHECKING:
    from openprogram.providers.recording.differences import PathToken
    from tui.model.diff import DiffRow, LazyDiff
    from tui.widgets.comparison.mismatch_view import MismatchView

TABS = ("diff-tab-request", "diff-tab-answer")
NARROW = 100
"""Below this many columns the call list narrows to the index and the status mark."""


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

    @dataclass(eq=False)
    class RowsReady(Message):
        """More rows were compared (`reset`: every row was replaced by the final alignment)."""

        reset: bool

    @dataclass(eq=False)
    class AnswersCompared(Message):
        """The answers of some rows were compared (`done`: of every row)."""

        done: bool

    @dataclass(eq=False)
    class CompareFailed(Message):
        """A recording cannot be compared; `reason` names the file and the line."""

        reason: str

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__()
        self.a, self.b = a, b
        self.pair: IndexPair | None = None
        self.diff: LazyDiff | None = None
        self.row = -1
        """The row shown (an index into `diff.rows`); -1 before the first."""
        self.answers_done = False
        self._comparing = False
        """True once the comparison was started."""
        self._user_moved = False
        """Until the user moves, the view follows to the first row that differs as it is found."""

    def compose(self) -> ComposeResult:
        yield TitleBar(f"Diff {self.a.name} ↔ {self.b.name}", "comparing…")
        names = Text()
        names.append("A ", "bold")
        names.append(display_path(self.a))
        names.append("   B ", "bold")
        names.append(display_path(self.b))
        yield Static(names, id="diff-names")
        yield DiffTotalsLine(id="diff-totals")
        yield Static(id="diff-warning")
        with Horizontal(id="diff-body"):
            yield DiffCallList(id="diff-calls")
            with TabbedContent(id="diff-tabs"):
                with TabPane("Request", id=TABS[0]):
                    yield Static(
                        Text("Comparing the requests…", "dim"), id="diff-request-placeholder"
                    )
                with TabPane("Answer", id=TABS[1]), VerticalScroll():
                    yield DiffAnswer(id="diff-answer")
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

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    def on_unmount(self) -> None:
        if self.pair is not None:
            self.pair.close()

    def _start_comparing(self) -> None:
        # Imported here, once the calls are on screen: the row models, the rules, the request
        # panes. In this thread: an import in a worker takes half as long again beside the app.
        import tui.model.diff
        import tui.widgets.comparison.mismatch_view  # noqa: F401 (the first row shows one)

        self._compare()

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def _compare(self) -> None:
        # A file that cannot be compared is a result (one line naming it), not a failed worker.
        from openprogram.providers.recording.rules_sources import project_rules
        from tui.model.diff import LazyDiff

        assert self.pair is not None
        try:
            self.diff = LazyDiff(self.pair, project_rules())
            self.diff.compare_all(
                lambda reset: self.post_message(self.RowsReady(reset)),
                lambda done: self.post_message(self.AnswersCompared(done)),
            )
        except (OpenProgramError, OSError) as exc:
            self.post_message(self.CompareFailed(str(exc)))

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
        calls = self.query_one(DiffCallList)
        if not self._comparing and (calls.option_count or pair.ended):
            self._comparing = True
            self.call_after_refresh(self._start_comparing)  # once the first rows are on screen
        found = pair.common_calls
        if found <= calls.option_count:
            return
        calls.list_found(found)
        self._show_progress()
        if not calls.has_focus and self.focused is None:
            calls.focus()

    async def on_diff_screen_rows_ready(self, message: RowsReady) -> None:
        diff = self.diff
        if diff is None:
            return
        calls = self.query_one(DiffCallList)
        if calls.list_rows(diff.rows, message.reset, diff.aligned_by == "signature"):
            self.row = -1
        self._set_title()
        from tui.model.diff_text import first_to_show

        target = first_to_show(diff.rows, self.row, self._user_moved)
        if target is not None and target != self.row:
            calls.highlighted = target
            await self._show_row(target)
        if self.pair is not None:
            self.call_after_refresh(self.pair.resume)  # the first row is drawn: index the rest
        if not calls.has_focus and self.focused is None:
            calls.focus()

    def on_diff_screen_answers_compared(self, message: AnswersCompared) -> None:
        diff = self.diff
        if diff is None:
            return
        from tui.model.diff_text import diff_totals

        self.answers_done = message.done
        calls = self.query_one(DiffCallList)
        calls.list_answers(diff.rows, diff_totals(diff.rows).marks() if message.done else None)
        self._set_title()
        if 0 <= self.row < len(diff.rows):
            self._answer_shown(self.row, diff.rows[self.row])

    def _show_progress(self) -> None:
        """`comparing… 128/300 calls`: the rows compared of the calls found; both only grow."""
        found = self.pair.common_calls if self.pair is not None else 0
        compared = len(self.diff.rows) if self.diff is not None else 0
        self.query_one(TitleBar).set_facts(f"comparing… {compared}/{plural(found, 'call')}")

    def _set_title(self) -> None:
        from tui.model.diff_text import summary_text

        assert self.diff is not None
        diff = self.diff
        if not diff.complete:
            self._show_progress()
            return
        warnings = self.pair.truncation_warnings() if self.pair is not None else []
        warning = self.query_one("#diff-warning", Static)
        warning.update(Text("\n".join(warnings)))
        warning.display = bool(warnings)
        summary, identical = summary_text(diff, self.answers_done)
        self.query_one(TitleBar).set_facts(summary, problem=not identical)
        self.query_one(DiffTotalsLine).show_totals(diff.rows if self.answers_done else None)

    # -- showing one row --

    async def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        calls = self.query_one(DiffCallList)
        if event.option_index != calls.highlighted:
            return  # a highlight the view has moved past already (it moves by itself, then n/N)
        if self.diff is None or event.option_index >= calls.compared:
            return  # a call still being compared: shown once it is
        if event.option_index != self.row:
            self._user_moved = True
            await self._show_row(event.option_index)

    async def _show_row(self, number: int, at_end: bool = False) -> None:
        from tui.model.diff_text import call_row, request_comparison
        from tui.widgets.comparison.mismatch_view import MismatchView

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
            marks = self.query_one(DiffCallList).marks_of(number)
            self.query_one(DiffAnswer).show_row(row, marks)

    # -- moving --

    async def action_step(self, step: int) -> None:
        from tui.widgets.comparison.mismatch_view import MismatchView

        view = self.query(MismatchView)
        if view and self.diff is not None and self.diff.rows[self.row].request:
            view.first().action_step(step)
        else:
            await self._next_changed(step)

    async def on_mismatch_view_stepped_past_end(self, message: MismatchView.SteppedPastEnd) -> None:
        message.stop()
        await self._next_changed(message.step)

    async def _next_changed(self, step: int) -> None:
        from tui.model.diff_text import next_changed

        if self.diff is None:
            return
        row = next_changed(self.diff.rows, self.row, step)
        if row is None:
            where = "last" if step > 0 else "first"
            self.notify(f"No request difference after this one: it is the {where}.")
            return
        self._user_moved = True
        self.row = row  # shown here: the highlight message that follows finds it done
        self.query_one(DiffCallList).highlighted = row
        await self._show_row(row, at_end=step < 0)

    def action_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        position = TABS.index(tabs.active) if tabs.active in TABS else 0
        tabs.active = TABS[(position + step) % len(TABS)]

    def action_move(self, step: int) -> None:
        self.query_one(DiffCallList).move(step)

    def action_move_to(self, index: int) -> None:
        """Highlight call `index` of the list (-1: the last), as `g`/`G` do in every list."""
        self.query_one(DiffCallList).move_to(index)

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
        from tui.widgets.comparison.mismatch_view import MismatchView

        view = self.query(MismatchView)
        if not path_tokens and view and row.request:
            path_tokens = view.first().difference.path_tokens
        self.post_message(CallOpenRequested(call, path_tokens, recording=recording))
