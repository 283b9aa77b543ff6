"""One recording: its calls down the side, the selected call in tabs, the strict verdict on top.

The file is indexed in a thread (rows appear while it runs) and validated by the strict reader in
the background; a damaged file still opens, with its problems marked. The call detail, the `:`
prompt and their modules are loaded once the first rows are on screen: they are not needed to
show them.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from openprogram.providers.recording.errors import RecordingFileError
from tui.model.call_rows import CallTable
from tui.model.recording_index import RecordingIndex
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.row_list import RowList
from tui.widgets.common.title_bar import TitleBar
from tui.widgets.recording.call_list import CallList
from tui.widgets.recording.find_bar import FindBar
from tui.widgets.recording.problem_banner import ProblemBanner
from tui.widgets.recording.recording_loader import RecordingLoader

if TYPE_CHECKING:
    from tui.model.call_detail import LoadedCall
    from tui.model.navigation import GotoTarget
    from tui.model.verdict import Verdict
    from tui.widgets.recording.call_detail import CallDetail
    from tui.widgets.recording.goto_bar import GotoBar


class RecordingScreen(Screen[None]):
    """Browse one recording file call by call and step through each call's events."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("colon", "goto", "Go to", id="recording.goto"),
        Binding("slash", "find", "Find", id="recording.find"),
        Binding("n", "match(True)", "Next match", show=False, id="recording.next-match"),
        Binding("N", "match(False)", "Previous match", show=False, id="recording.previous-match"),
        # Keys that move the focus or switch tabs are priority bindings: handled in the order they
        # are typed, before keys typed right after them are sent to the widget focused now.
        Binding(
            "right_square_bracket",
            "tab(1)",
            "Tab",
            key_display="[ ]",
            priority=True,
            id="recording.next-tab",
        ),
        Binding(
            "left_square_bracket",
            "tab(-1)",
            "Previous tab",
            show=False,
            priority=True,
            id="recording.previous-tab",
        ),
        Binding("J", "call(1)", "Next call", show=False, id="recording.next-call"),
        Binding("K", "call(-1)", "Previous call", show=False, id="recording.previous-call"),
        Binding("h", "focus_calls", "Calls", show=False, id="recording.focus-calls"),
        Binding(
            "enter,l,right", "open_call", "Open", show=False, priority=True, id="recording.open"
        ),
        Binding("r", "rerun", "Rerun", id="rerun"),
        Binding("escape", "dismiss_one", "Back", show=False, id="dismiss"),
    ]

    class FirstRowsShown(Message):
        """The first rows of the file are on screen (heavier work may start now)."""

    def __init__(
        self,
        path: Path,
        start_at: GotoTarget | None = None,
        field: tuple[str | int, ...] | None = None,
    ) -> None:
        """Open `path`; `start_at` goes to a call (and event), `field` opens its request there."""
        super().__init__()
        self.path = path
        self._start_at = start_at
        self._start_field = field
        self.index: RecordingIndex | None = None
        self.table: CallTable | None = None
        self.verdict: Verdict | None = None
        self.version_note: str | None = None
        """What accept or rerecord made of this recording, and the versions kept (title bar)."""
        self.loaded: LoadedCall | None = None
        self._open_error: RecordingFileError | None = None
        self._first_rows_scheduled = False
        self._ready_detail: CallDetail | None = None
        self._goto_bar: GotoBar | None = None

    def compose(self) -> ComposeResult:
        # Indexing starts while the screen is built, so the first rows can be in the first frame.
        try:
            self.index = RecordingIndex.open(self.path)
        except RecordingFileError as exc:
            self._open_error = exc
        else:
            self.table = CallTable(self.index)
            yield RecordingLoader(self.index)
        yield TitleBar(self.path.name, "opening…")
        yield ProblemBanner(limit=1, id="file-problems")
        with Horizontal(id="browser"):
            yield CallList(id="calls")
        yield FindBar()
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        if self._open_error is not None:
            self.query_one(TitleBar).set_facts("cannot be opened", problem=True)
            from openprogram.providers.recording.scan_facts import ScanProblem

            error = self._open_error
            problem = ScanProblem(
                line_number=error.line_number, call_index=error.call_index, reason=error.reason
            )
            self.query_one("#file-problems", ProblemBanner).show_problems((problem,))
            self.query_one("#browser").remove()
            self.post_message(self.FirstRowsShown())
            return
        self.query_one(CallList).show_table(self.table)
        self.query_one(CallList).focus()

    # -- messages --

    def on_recording_loader_index_updated(self, message: RecordingLoader.IndexUpdated) -> None:
        calls = self.query_one(CallList)
        calls.set_row_count(message.calls)
        calls.clear_cache()
        if not self._first_rows_scheduled:
            self._first_rows_scheduled = True
            self.call_after_refresh(self._first_rows_shown)
        elif self.loaded is not None and not self.loaded.settled:
            self._show_call(self.loaded.span.ordinal, keep_position=True)
        self._apply_start()
        if message.complete:
            self._update_facts()
            self.query_one(RecordingLoader).check()
        else:
            self.query_one(TitleBar).set_facts(f"indexing {message.fraction:.0%}…")

    def _first_rows_shown(self) -> None:
        browser = self.query_one("#browser")
        if not browser.is_attached:
            return  # closed before its first frame (the app ended: ctrl+q, SIGTERM)
        self.query_one(RecordingLoader).first_rows_drawn()
        self.post_message(self.FirstRowsShown())
        from tui.widgets.recording.call_detail import CallDetail

        browser.mount(CallDetail(id="detail"))
        self._mount_goto_bar()

    def _mount_goto_bar(self) -> GotoBar:
        # Mounted once the first rows are drawn, like the call detail: not needed for them.
        from tui.widgets.recording.goto_bar import GotoBar

        if self._goto_bar is None:
            self._goto_bar = GotoBar()
            self.mount(self._goto_bar)
        return self._goto_bar

    def on_call_detail_ready(self, message: CallDetail.Ready) -> None:
        self._ready_detail = message.call_detail
        self._show_call(self.query_one(CallList).cursor)
        self._apply_start()
        # What is alive once a recording is shown lives as long as the app: leave it out of later
        # garbage collections, which would otherwise walk ~100k objects inside a jump's frame.
        self.call_after_refresh(gc.freeze)

    def _apply_start(self) -> None:
        """Go where the command line asked, once that call is indexed (or the index is done)."""
        target, table, detail = self._start_at, self.table, self._detail()
        if detail is None or table is None or (target is None and self._start_field is None):
            return
        if target is not None and target.call_index >= table.count and not self.index_complete:
            return
        self._start_at = None
        if target is not None:
            self._goto(target)
        if self._start_field is not None:
            field, self._start_field = self._start_field, None
            if not detail.reveal_field(field):
                self.notify("That field is not in this call's request.", severity="warning")

    def on_recording_loader_failed(self, message: RecordingLoader.Failed) -> None:
        self.query_one(TitleBar).set_facts(message.reason, problem=True)

    def on_recording_loader_verdict_reached(self, message: RecordingLoader.VerdictReached) -> None:
        self.verdict = message.verdict
        if self.table is not None:
            self.table.set_verdict(message.verdict)
        self.query_one(CallList).clear_cache()
        problems = message.verdict.problems
        banner = self.query_one("#file-problems", ProblemBanner)
        banner.show_problems(problems, message.verdict.headline())
        if self.loaded is not None:
            self.loaded.set_problems(problems)
            if detail := self._detail():
                detail.show_problems()
        from tui.model.versions import version_note

        self.version_note = version_note(self.path)
        self._update_facts()

    def on_call_list_call_highlighted(self, message: CallList.CallHighlighted) -> None:
        if message.ordinal != message.call_list.cursor:
            return  # the cursor moved on since (keys typed ahead): show only where it is now
        if self.loaded is None or self.loaded.span.ordinal != message.ordinal:
            self._show_call(message.ordinal)

    def on_call_list_call_opened(self, message: CallList.CallOpened) -> None:
        self.action_open_call()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_call":
            return isinstance(self.focused, CallList)  # elsewhere enter belongs to the widget
        if action == "tab":
            return not isinstance(self.focused, Input)  # "[" typed into a prompt stays there
        return True

    def action_open_call(self) -> None:
        if detail := self._detail():
            # The call under the cursor now, not once the cursor's messages arrive: keys typed
            # right after enter go to that call's detail.
            cursor = self.query_one(CallList).cursor
            if self.loaded is None or self.loaded.span.ordinal != cursor:
                self._show_call(cursor)
            detail.focus_content()

    # -- helpers --

    @property
    def index_complete(self) -> bool:
        """True once the whole file is indexed."""
        return self.index is not None and self.index.complete

    def _detail(self) -> CallDetail | None:
        """The call detail, once it is mounted and ready (after the first rows)."""
        return self._ready_detail  # kept, not queried: a query walks the whole screen

    def _show_call(self, ordinal: int, keep_position: bool = False, tab: str | None = None) -> None:
        detail = self._detail()
        if self.index is None or detail is None or ordinal >= len(self.index.calls):
            return
        from tui.model.call_detail import LoadedCall

        problems = self.verdict.problems if self.verdict else ()
        self.loaded = LoadedCall(self.index, self.index.calls[ordinal], problems)
        detail.show_call(self.loaded, keep_position, tab)

    def _update_facts(self) -> None:
        if self.table is not None:
            facts, problem = self.table.facts()
            if self.version_note:
                facts += f" · {self.version_note}"
            self.query_one(TitleBar).set_facts(facts, problem)

    def _goto(self, target: GotoTarget | None) -> None:
        if target is None:
            return
        ordinal = self.table.ordinal_of(target.call_index) if self.table else None
        if ordinal is None:
            last = max((self.table.count if self.table else 0) - 1, 0)
            self.notify(
                f"There is no call {target.call_index}: calls are 0–{last}.", severity="warning"
            )
            return
        detail = self._detail()
        # An event target shows the Events tab first: only the tab shown is filled.
        self._show_call(ordinal, tab="tab-events" if target.event_index is not None else None)
        self.query_one(CallList).move_to(ordinal)
        if target.event_index is None or self.loaded is None or detail is None:
            return
        last = self.loaded.event_count - 1
        if target.event_index > last:
            self.notify(
                f"Call {target.call_index} has events 0–{last}; showing the last.",
                severity="warning",
            )
        detail.open_event(min(target.event_index, max(last, 0)))

    # -- actions --

    def action_goto(self) -> None:
        bar = self._goto_bar
        if bar is None or not bar.is_mounted:  # `:` before the first rows were drawn
            self._mount_goto_bar()
            self.call_after_refresh(self.action_goto)
            return
        # The prompt covers the footer: rebuilding it for the prompt's focus would be wasted.
        self.query_one(KeyFooter).hold()
        bar.open(self.table.count if self.table else 0, self._goto)

    def on_goto_bar_closed(self, message: GotoBar.Closed) -> None:
        self.query_one(KeyFooter).release()

    def action_find(self) -> None:
        index, loaded, focused = self.index, self.loaded, self.focused
        if index is None:
            return
        if loaded is not None and isinstance(focused, RowList) and focused.id == "events":
            lines = loaded.span.event_lines
            scope = f"in call {loaded.call_index}"
            self.query_one(FindBar).open(
                focused, lambda row: index.line(lines[row]), "events", scope
            )
        else:
            calls = self.query_one(CallList)
            self.query_one(FindBar).open(calls, index.call_bytes, "calls", "across calls")

    def action_match(self, forward: bool) -> None:
        if not self.query_one(FindBar).jump(forward):
            self.notify("No matches: press / to find.", severity="information")

    def action_tab(self, step: int) -> None:
        if detail := self._detail():
            detail.switch_tab(step)

    def action_call(self, step: int) -> None:
        calls = self.query_one(CallList)
        calls.move_to(calls.cursor + step)

    def action_focus_calls(self) -> None:
        if self.index is not None:
            self.query_one(CallList).focus()

    def action_rerun(self) -> None:
        from tui.screens.rerun import RerunScreen

        self.app.push_screen(RerunScreen(self.path))

    async def action_dismiss_one(self) -> None:
        find_bar = self.query_one(FindBar)
        if find_bar.has_matches:
            find_bar.clear()
        elif not isinstance(self.focused, CallList) and self.index is not None:
            self.query_one(CallList).focus()
        else:
            await self.app.run_action("go_back")
