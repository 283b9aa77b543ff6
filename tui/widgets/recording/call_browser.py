"""The calls of a recording down the side and the selected call beside them: which call is shown
and when. A burst of cursor moves (a key held, keys typed fast) shows only the call the cursor
stops on; the timeline (`t`), when shown, follows the cursor both ways."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget

from tui.model.call_rows import CallTable
from tui.model.recording_index import KEYS
from tui.widgets.common.row_list import RowList
from tui.widgets.recording.call_list import CallHeading, CallList, CallPane

if TYPE_CHECKING:
    from openprogram.providers.recording.errors import RecordingProblem
    from tui.model.call_detail import LoadedCall
    from tui.model.call_numbers import CallNumbers
    from tui.model.navigation import GotoTarget
    from tui.model.recording_index import RecordingIndex
    from tui.model.verdict import Verdict
    from tui.widgets.recording.call_detail import CallDetail
    from tui.widgets.recording.find_bar import FindBar
    from tui.widgets.recording.goto_bar import GotoBar
    from tui.widgets.recording.raw_lines import RawLines
    from tui.widgets.recording.timeline import TimelinePane

Prompt = TypeVar("Prompt", bound=Widget)
BURST_SECONDS = 0.1
"""Cursor moves closer together than this are a burst (a key held, keys typed fast): while it
lasts, no call's detail is read and drawn; the call the cursor stops on is shown this long after
the last move. A move on its own shows its call once the cursor's frame is drawn."""


class CallBrowser(Horizontal):
    """The call list and the call under its cursor in tabs (the detail is mounted once the first
    rows are drawn: it is not needed for them)."""

    burst_seconds = BURST_SECONDS
    """`BURST_SECONDS`, per browser (a test widens it)."""

    @dataclass(eq=False)
    class DetailReady(Message):
        """The call detail is built and shows the cursor's call (or the file is not a
        recording: its lines are shown), drawn: work that waited for the first call may start."""

    def __init__(
        self,
        index: RecordingIndex,
        following: bool = False,
        start_at: GotoTarget | None = None,
        start_field: tuple[str | int, ...] | None = None,
    ) -> None:
        """Browse `index`; `start_at` goes to a call (and event), `start_field` opens its
        request there, once the list has that call."""
        super().__init__(id="browser")
        self.index = index
        self.table = CallTable(index)
        """Each call's row as listed (marked with the strict reader's verdict once it is in)."""
        self.start_at = start_at
        self.start_field = start_field
        self._listed: tuple[int, bool] = (0, False)
        """Calls the list was last told of, and whether that was all of them (the index's own
        counts run ahead of its messages: it is filled by a thread)."""
        self.numbers: CallNumbers | None = None
        """Each call's numbers (duration, tokens, cost), read as they are needed."""
        self.problems: tuple[RecordingProblem, ...] = ()
        """The strict reader's problems, marked in the call shown."""
        self.following = following
        """The file is followed: a call shown on its latest event stays on the latest."""
        self.loaded: LoadedCall | None = None
        """The call shown."""
        self.detail: CallDetail | None = None
        """The call detail, once it is mounted and ready (kept, not queried: a query walks the
        whole screen)."""
        self.raw_lines: RawLines | None = None
        """Shown instead of the calls when the file is not a recording (`RecordingIndex.foreign`)."""
        self.timeline: TimelinePane | None = None
        """The session's timeline and totals, while shown (`t`)."""
        self._first_rows_shown = False
        self._goto_bar: GotoBar | None = None
        self._moved_at = 0.0
        """When the call list's cursor last moved (`time.monotonic()`)."""
        self._moves = 0
        """Cursor moves so far: a call is shown only if the cursor has not moved since."""

    def compose(self) -> ComposeResult:
        with CallPane(id="call-pane"):
            yield CallHeading()
            yield CallList(id="calls")

    def show_calls(self) -> None:
        """List the calls indexed so far, the cursor in the list."""
        self.calls.show_table(self.table)
        self.calls.focus()

    @property
    def closing(self) -> bool:
        """The screen is going: queued work must not query widgets that may be gone."""
        return not self.is_attached or self._pruning

    @property
    def calls(self) -> CallList:
        return self.query_one(CallList)

    def main_list(self) -> RowList:
        """The list the screen comes back to: the calls, or the lines of a file not a recording."""
        if self.raw_lines is not None:
            from tui.widgets.recording.raw_lines import RawLineList

            return self.raw_lines.query_one(RawLineList)
        return self.calls

    def _build_detail(self) -> None:
        """Build the call detail (its modules are imported now: after the first rows)."""
        if self.closing:
            return  # closed before its first frame (the app ended: ctrl+q, SIGTERM)
        if self.index.foreign:
            self.show_raw_lines()
            self.call_after_refresh(self.post_message, self.DetailReady())
            return
        from tui.widgets.recording.call_detail import CallDetail

        self.mount(CallDetail(id="detail"))

    def show_raw_lines(self) -> None:
        """Another tool's file (no header, no call): its lines as stored take the calls' place."""
        if self.raw_lines is not None or self.closing:
            return
        from tui.widgets.recording.raw_lines import RawLines

        self.raw_lines = RawLines(self.index)
        self.calls.display = False
        self.query_one(CallPane).display = False  # its heading too
        if self.detail is not None:  # a big file: known to be foreign once indexed
            self.detail.remove()
            self.detail = None
        self.mount(self.raw_lines)
        self.screen.refresh_bindings()  # the keys for calls are off

    def on_call_detail_ready(self, message: CallDetail.Ready) -> None:
        message.stop()
        if self.closing:
            return  # `q` right after the first rows: the detail came up as the screen went
        if self.raw_lines is not None:  # found foreign while the detail was being built
            message.call_detail.remove()
        else:
            self.detail = message.call_detail
            self.show_call(self.calls.cursor_ordinal)
            self.apply_start()
        self.call_after_refresh(self.post_message, self.DetailReady())

    def calls_indexed(self, count: int, complete: bool, appended: bool) -> None:
        """The index published `count` calls (all of them once `complete`; `appended` to a
        followed file): list them, and go where the command line asked once that call is in.
        Once the first rows are drawn the detail is built; once the whole file is indexed the
        calls' numbers are read (or, not a recording, its lines shown)."""
        if not self._first_rows_shown:
            self._first_rows_shown = True
            self.call_after_refresh(self._build_detail)
        if complete and not appended:
            if self.index.foreign:
                self.show_raw_lines()
            elif self.detail is not None:  # else once the first call is drawn
                self.read_numbers()
        calls = self.calls
        on_last = calls.row_count > 0 and calls.cursor == calls.row_count - 1
        calls.set_row_count(count)
        self._listed = (count, complete)
        calls.clear_cache()
        if appended:
            self.table.refresh()
        if self.following and on_last and calls.cursor < count - 1:
            calls.move_to(count - 1)  # on the latest call: stay on the latest
        else:
            self.show_again()
        self.apply_start()

    def apply_start(self) -> None:
        """Go where the command line asked, once the list has that call (or all calls)."""
        target, detail = self.start_at, self.detail
        if detail is None or (target is None and self.start_field is None):
            return
        listed, all_listed = self._listed
        if target is not None and target.call_index >= listed and not all_listed:
            return  # the list has not the row yet: moving its cursor there would stop short
        self.start_at = None
        if target is not None:
            self.go_to(target)
        if self.start_field is not None:
            field, self.start_field = self.start_field, None
            detail.reveal_field(field)  # says so when the call has no such field

    def read_numbers(self) -> None:
        """Give the calls their numbers: once the file is indexed and the first call drawn
        (reading calls beside the indexer slowed it and the keys)."""
        if self.numbers is not None or self.closing:
            return
        from tui.model.call_numbers import CallNumbers

        self.numbers = CallNumbers(self.index)
        self.calls.show_numbers(self.numbers)
        if self.detail is not None:
            self.detail.numbers_ready(self.numbers)

    def show_call(self, ordinal: int, keep_position: bool = False, tab: str | None = None) -> None:
        """Read call `ordinal` and show it (`tab`: on that tab)."""
        detail = self.detail
        if detail is None or ordinal >= len(self.index.calls):
            return
        from tui.model.call_detail import LoadedCall

        self.loaded = LoadedCall(self.index, self.index.calls[ordinal], self.problems)
        detail.show_call(self.loaded, keep_position, tab, stay_on_latest=self.following)

    def show_again(self) -> None:
        """Show the call again when it was still being written (followed)."""
        if self.loaded is not None and not self.loaded.settled:
            self.show_call(self.loaded.span.ordinal, keep_position=True)

    def set_following(self, following: bool) -> None:
        """The file is followed (calls `in progress`), or no longer."""
        self.following = following
        self.table.refresh()
        self.calls.clear_cache()
        self.show_again()

    def show_verdict(self, verdict: Verdict | None, unknown: str | None = None) -> None:
        """Mark the strict reader's problems in the rows and the call shown, or drop them
        (`unknown` says why)."""
        if verdict is None:
            self.table.forget_verdict(unknown)
        else:
            self.table.set_verdict(verdict)
        problems = verdict.problems if verdict is not None else ()
        self.problems = problems
        self.calls.clear_cache()
        if self.loaded is not None:
            self.loaded.set_problems(problems)
            if self.detail is not None:
                self.detail.show_problems()

    def open_call(self, ordinal: int | None = None) -> None:
        """Show call `ordinal` (the cursor's now: keys typed right after enter go to it) and move
        into its detail."""
        if ordinal is None:
            ordinal = self.calls.cursor_ordinal
        else:
            self.calls.move_to_call(ordinal)
        if (detail := self.detail) is None:
            return
        if self.loaded is None or self.loaded.span.ordinal != ordinal:
            self.show_call(ordinal)
        detail.focus_content()

    def go_to(self, target: GotoTarget | None) -> None:
        """Show call `target.call_index` (at its event, on the Events tab), or say there is none."""
        if target is None:
            return
        table = self.calls.table
        ordinal = table.ordinal_of(target.call_index) if table else None
        if ordinal is None:
            last = max((table.count if table else 0) - 1, 0)
            self.notify(
                f"There is no call {target.call_index}: calls are 0–{last}.", severity="warning"
            )
            return
        detail = self.detail
        # An event target shows the Events tab first: only the tab shown is filled.
        self.show_call(ordinal, tab="tab-events" if target.event_index is not None else None)
        self.calls.move_to_call(ordinal)
        if target.event_index is None or self.loaded is None or detail is None:
            return
        last = self.loaded.event_count - 1
        if target.event_index > last:
            self.notify(
                f"Call {target.call_index} has events 0–{last}; showing the last.",
                severity="warning",
            )
        detail.open_event(min(target.event_index, max(last, 0)))

    def prompt(self, kind: type[Prompt]) -> Prompt:
        """The screen's prompt bar of `kind` (`GotoBar`, `FilterBar`), mounted on the screen
        when first asked for: it lies over the footer, and hidden it must not take the focus."""
        bars = self.screen.query(kind)
        if bars:
            return bars.first()
        bar = kind()
        if self.is_attached:
            self.screen.mount(bar)
        return bar

    def goto_bar(self) -> GotoBar:
        """The `:` prompt (its module loaded once the first rows are drawn: not needed for them)."""
        from tui.widgets.recording.goto_bar import GotoBar

        if self._goto_bar is None or not self._goto_bar.is_attached:
            self._goto_bar = self.prompt(GotoBar)
        return self._goto_bar

    def filter(self) -> None:
        """`&`: show only the calls a filter accepts (outcome, model, slower than, more tokens)."""
        from tui.widgets.recording.filter_bar import FilterBar

        current = (self.calls.ordering or self.calls.order).filter
        self.call_after_refresh(self.prompt(FilterBar).open, current, self.calls.filter_calls)

    def step_back(self, find_bar: FindBar, focused: Widget | None) -> bool:
        """`escape`: stop reading every call to sort or filter, else forget the matches found,
        else put the focus back on the list; False when there was nothing to step back from."""
        if self.calls.cancel_order():
            return True  # stopped reading every call to sort or filter
        if find_bar.has_matches:
            find_bar.clear()
            return True
        if focused is not self.main_list():
            self.main_list().focus()
            return True
        return False

    def find(self, find_bar: FindBar, focused: Widget | None) -> None:
        """`/`: find in the events of the call shown when they have the focus, else in the calls."""
        index, loaded = self.index, self.loaded
        if loaded is not None and isinstance(focused, RowList) and focused.id == "events":
            lines = loaded.span.event_lines
            scope = f"in call {loaded.call_index}"
            find_bar.open(focused, lambda row: index.line(lines[row]), "events", scope)
        else:
            calls = self.calls
            find_bar.open(
                calls, lambda row: index.call_bytes(calls.ordinal_at(row)), "calls", "across calls"
            )

    def on_call_list_call_highlighted(self, message: CallList.CallHighlighted) -> None:
        if message.ordinal != message.call_list.cursor_ordinal:
            return  # the cursor moved on since (keys typed ahead): show only where it is now
        if self.timeline is not None:
            self.timeline.select(message.ordinal)
        now, before = time.monotonic(), self._moved_at
        self._moved_at = now
        self._moves += 1
        moves = self._moves
        if now - before < self.burst_seconds:  # keys come fast: show where the cursor stops
            self.set_timer(self.burst_seconds, lambda: self._show_cursor_call(moves))
        else:
            self.call_after_refresh(self._show_cursor_call, moves)

    def _show_cursor_call(self, moves: int) -> None:
        """Show the call under the cursor, unless it moved again since move `moves`."""
        if moves != self._moves or self.closing:
            return  # it moved on (the call it stops on is shown then), or the screen went
        cursor = self.calls.cursor_ordinal
        if self.loaded is None or self.loaded.span.ordinal != cursor:
            KEYS.key_arrived()  # the indexers wait while it is read and drawn
            self.show_call(cursor)

    def on_call_list_order_changed(self, message: CallList.OrderChanged) -> None:
        """A filter that hides every call hides the call shown too (the list says `no calls`)."""
        if self.detail is not None and message.busy is None:
            self.detail.display = self.calls.row_count > 0

    def on_call_list_call_opened(self, message: CallList.CallOpened) -> None:
        message.stop()
        self.open_call()

    def toggle_timeline(self) -> None:
        """Show the session on a time axis with its totals under the calls, or hide it."""
        from tui.widgets.recording.timeline import CallTimeline, TimelinePane

        if self.timeline is not None:
            self.timeline.remove()
            self.timeline = None
            self.calls.focus()
            return
        if self.numbers is None:
            self.notify("The timeline opens once the file is indexed.", severity="information")
            return
        pane = self.timeline = TimelinePane(self.numbers, max(self.calls.cursor_ordinal, 0))
        self.screen.mount(pane, after=self)
        self.call_after_refresh(lambda: pane.query_one(CallTimeline).focus())

    def bar_highlighted(self, ordinal: int) -> None:
        """The timeline's cursor moved to call `ordinal`: the list's follows."""
        if self.calls.cursor_ordinal != ordinal:
            self.calls.move_to_call(ordinal)
