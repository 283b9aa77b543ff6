"""One recording: its calls down the side, the selected call in tabs, the strict verdict on top.

The file is indexed in a thread (rows appear while it runs) and validated by the strict reader in
the background; a damaged file still opens, with its problems marked. The call detail, the `:`
prompt and their modules are loaded once the first rows are on screen: they are not needed to
show them. The index waits until the first call is drawn too, and then for every key (and every
call shown) until it is handled: `tui.model.key_priority`.

The file is stat-ed twice a second. Followed (`f`), what is appended is indexed and shown as it
comes; otherwise a change is offered as a reload (`ctrl+r`). A file shortened, replaced or removed
says so, and its old verdict is dropped.
"""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.recordings import FileStamp, stamp_of
from openprogram.text import plural
from tui.model.call_order import CallFilter, CallOrder
from tui.model.call_rows import CallTable
from tui.model.file_stamp import FileChange, compare
from tui.model.key_priority import KEYS
from tui.model.recording_index import RecordingIndex
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.row_list import RowList
from tui.widgets.common.title_bar import TitleBar
from tui.widgets.recording.call_list import CallHeading, CallList, CallPane
from tui.widgets.recording.file_notice import FileNotice
from tui.widgets.recording.find_bar import FindBar
from tui.widgets.recording.problem_banner import ProblemBanner
from tui.widgets.recording.recording_loader import RecordingLoader

if TYPE_CHECKING:
    from tui.model.call_detail import LoadedCall
    from tui.model.call_numbers import CallNumbers
    from tui.model.navigation import GotoTarget
    from tui.model.verdict import Verdict
    from tui.widgets.recording.call_detail import CallDetail
    from tui.widgets.recording.goto_bar import GotoBar
    from tui.widgets.recording.raw_lines import RawLines
    from tui.widgets.recording.timeline import CallTimeline, TimelinePane

LOOK_SECONDS = 0.5
"""How often the file is stat-ed for changes (a change is noticed within a second)."""
BURST_SECONDS = 0.1
"""Cursor moves closer together than this are a burst (a key held, keys typed fast): while it
lasts, no call's detail is read and drawn; the call the cursor stops on is shown this long after
the last move. A move on its own shows its call once the cursor's frame is drawn."""

CALL_ACTIONS = frozenset(
    (
        *("goto", "find", "match", "tab", "call", "open_call", "rerun", "follow"),
        *("sort", "flip_sort", "filter", "widen_calls", "timeline", "unfold"),
    )
)
"""The screen's actions on calls: off while it shows the lines of a file that is not a recording."""
NOT_IN_PROMPTS = frozenset(
    (
        *("tab", "goto", "find", "sort", "flip_sort", "filter", "widen_calls", "timeline"),
        *("unfold", "migrate"),
    )
)
"""Actions whose keys typed into a prompt stay there (`[`, `:`, `/`, `o`, `&`, `w`, `t`, `u`,
`m`)."""


class RecordingScreen(Screen[None]):
    """Browse one recording file call by call and step through each call's events."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the bar opens before the keys typed after `:` or `/` are handed out, so they
        # are its query (check_action leaves both to a prompt that has the focus).
        Binding("colon", "goto", "Go to", priority=True, id="recording.goto"),
        Binding("slash", "find", "Find", priority=True, id="recording.find"),
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
            "u", "unfold", "Unfold earlier messages", show=False, id="recording.unfold-request"
        ),
        Binding(
            "enter,l,right", "open_call", "Open", show=False, priority=True, id="recording.open"
        ),
        Binding("r", "rerun", "Rerun", id="rerun"),
        Binding("m", "migrate", "Migrate", id="recording.migrate"),
        Binding("f", "follow", "Follow the file", show=False, id="recording.follow"),
        Binding("ctrl+r", "reload", "Reload the file", show=False, id="recording.reload"),
        Binding("o", "sort", "Sort", id="recording.sort"),
        Binding("O", "flip_sort", "Reverse the sort", show=False, id="recording.reverse-sort"),
        Binding("ampersand", "filter", "Filter", show=False, id="recording.filter"),
        Binding("w", "widen_calls", "Wide call list", show=False, id="recording.wide-calls"),
        Binding("t", "timeline", "Timeline", show=False, id="recording.timeline"),
        Binding("escape", "dismiss_one", "Back", show=False, id="dismiss"),
    ]

    burst_seconds = BURST_SECONDS
    """`BURST_SECONDS`, per screen (a test widens it)."""

    class Built(Message):
        """The first rows and the first call are on screen: work that can wait may start now."""

    def __init__(
        self,
        path: Path,
        start_at: GotoTarget | None = None,
        field: tuple[str | int, ...] | None = None,
        follow: bool | None = None,
        reloaded_because: FileChange | None = None,
    ) -> None:
        """Open `path`; `start_at` goes to a call (and event), `field` opens its request there.

        `follow`: show what is appended as it is written; None follows the file the
        configuration records into (found once the first rows are shown). `reloaded_because`:
        this view replaces one of the same file that changed so (said under the title)."""
        super().__init__()
        self.path = path
        self.following = bool(follow)
        """True while what is appended to the file is indexed and shown as it comes."""
        self._follow_default = follow is None
        self._seen: FileStamp | None = None
        """The file as last looked at (when it grew, what was indexed next came from it)."""
        self.file_change: FileChange | None = None
        """How the file on disk differs from what is shown, when it does."""
        self._verdict_due = False
        self._follow_on_reload = False
        """Followed until the file changed under it: the reload follows it again."""
        self._reload_note = (
            f"{reloaded_because.notice()} — read again" if reloaded_because is not None else None
        )
        self._start_at = start_at
        self._start_field = field
        self._listed: tuple[int, bool] = (0, False)
        """Calls the list was last told of, and whether that was all of them (the index's own
        counts run ahead of its messages: it is filled by a thread)."""
        self.index: RecordingIndex | None = None
        self.table: CallTable | None = None
        self.numbers: CallNumbers | None = None
        """Each call's numbers (duration, tokens, cost), read as they are needed."""
        self.verdict: Verdict | None = None
        self.version_note: str | None = None
        """What accept or rerecord made of this recording, and the versions kept (title bar)."""
        self.loaded: LoadedCall | None = None
        self._open_error: RecordingFileError | None = None
        self._first_rows_scheduled = False
        self._ready_detail: CallDetail | None = None
        self._goto_bar: GotoBar | None = None
        self._timeline: TimelinePane | None = None
        """The session's timeline and totals, while shown (`t`)."""
        self._raw_lines: RawLines | None = None
        """Shown instead of the calls when the file is not a recording (`RecordingIndex.foreign`)."""
        self._moved_at = 0.0
        """When the call list's cursor last moved (`time.monotonic()`)."""
        self._moves = 0
        """Cursor moves so far: a call is shown only if the cursor has not moved since."""

    @property
    def closing(self) -> bool:
        """The screen is closed or being closed (popped, or the app ending). Textual marks every
        widget of a closing screen at once, then removes them children first: work queued before
        (a message, a timer, a callback after refresh) must check this, not query a widget that
        may already be gone."""
        return not self.is_attached or self._pruning

    def compose(self) -> ComposeResult:
        # Indexing starts while the screen is built, so the first rows can be in the first frame.
        try:
            self.index = RecordingIndex.open(self.path)
        except RecordingFileError as exc:
            self._open_error = exc
        else:
            self.table = CallTable(self.index)
            self.index.growing = self.following
            self._seen = self.index.stamp
            yield RecordingLoader(self.index, follow=self.following)
        yield TitleBar(self.path.name, "opening…")
        yield FileNotice()
        yield ProblemBanner(limit=1, id="file-problems")
        if self._open_error is None:
            with Horizontal(id="browser"), CallPane(id="call-pane"):
                yield CallHeading()
                yield CallList(id="calls")
        yield FindBar()
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        if self._open_error is not None:
            self.query_one(TitleBar).set_facts("cannot be opened", problem=True)
            from openprogram.providers.recording.errors import RecordingProblem

            error = self._open_error
            problem = RecordingProblem(
                line_number=error.line_number, call_index=error.call_index, reason=error.reason
            )
            self.query_one("#file-problems", ProblemBanner).show_problems((problem,))
            self.post_message(self.Built())
            return
        self.query_one(CallList).show_table(self.table)
        self.query_one(CallList).focus()
        self.set_interval(LOOK_SECONDS, self.look_at_file)

    # -- messages --

    def on_recording_loader_index_updated(self, message: RecordingLoader.IndexUpdated) -> None:
        if self.closing:
            return  # indexed as the screen went
        if self.file_change is not None and self.file_change.invalidates:
            return  # indexed from a file that is no longer there as it was
        calls = self.query_one(CallList)
        on_last = calls.row_count > 0 and calls.cursor == calls.row_count - 1
        calls.set_row_count(message.calls)
        self._listed = (message.calls, message.complete)
        calls.clear_cache()
        if self.table is not None and message.appended:
            self.table.refresh()
        if not self._first_rows_scheduled:
            self._first_rows_scheduled = True
            self.call_after_refresh(self._first_rows_shown)
        elif self.following and on_last and calls.cursor < message.calls - 1:
            calls.move_to(message.calls - 1)  # on the latest call: stay on the latest
        elif self.loaded is not None and not self.loaded.settled:
            self._show_call(self.loaded.span.ordinal, keep_position=True)
        self._apply_start()
        if message.appended:
            self._verdict_due = True  # checked once the file stops growing
            self._update_facts()
        elif message.complete:
            if self.index is not None and self.index.foreign:
                self._show_raw_lines()
            elif self._ready_detail is not None:  # else once the first call is drawn
                self._read_numbers()
            self._update_facts()
            self.query_one(RecordingLoader).check(self.following)
        else:
            self.query_one(TitleBar).set_facts(f"indexing {message.fraction:.0%}…")

    def _first_rows_shown(self) -> None:
        if self.closing:
            return  # closed before its first frame (the app ended: ctrl+q, SIGTERM)
        if self.index is not None and self.index.foreign:
            self._show_raw_lines()
            self.call_after_refresh(self._built)
            return
        from tui.widgets.recording.call_detail import CallDetail

        self.query_one("#browser").mount(CallDetail(id="detail"))
        self._mount_goto_bar()

    def _show_raw_lines(self) -> None:
        """Another tool's file (no header, no call): its lines as stored take the calls' place."""
        if self._raw_lines is not None or self.index is None or self.closing:
            return
        from tui.widgets.recording.raw_lines import RawLines

        self._raw_lines = RawLines(self.index)
        self.query_one(CallList).display = False
        self.query_one(CallPane).display = False  # its heading too
        if self._ready_detail is not None:  # a big file: known to be foreign once indexed
            self._ready_detail.remove()
            self._ready_detail = None
        self.query_one("#browser").mount(self._raw_lines)
        self.refresh_bindings()

    def _mount_goto_bar(self) -> GotoBar:
        # Mounted once the first rows are drawn, like the call detail: not needed for them.
        from tui.widgets.recording.goto_bar import GotoBar

        if self._goto_bar is None:
            self._goto_bar = GotoBar()
            self.mount(self._goto_bar)
        return self._goto_bar

    def on_call_detail_ready(self, message: CallDetail.Ready) -> None:
        if self.closing:
            return  # `q` right after the first rows: the detail came up as the screen went
        if self._raw_lines is not None:  # found foreign while the detail was being built
            message.call_detail.remove()
            self.call_after_refresh(self._built)
            return
        self._ready_detail = message.call_detail
        self._show_call(self.query_one(CallList).cursor_ordinal)
        self._apply_start()
        self.call_after_refresh(self._built)

    def _built(self) -> None:
        """The first call is drawn: the index goes on, and the work that waited for it starts."""
        if self.closing:
            return  # closed before its first call was drawn (`q` right after the first rows)
        # What is alive once a recording is shown lives as long as the app: leave it out of later
        # garbage collections, which would otherwise walk ~100k objects inside a jump's frame.
        gc.freeze()
        self.query_one(RecordingLoader).screen_drawn()
        if self.index_complete:
            self._read_numbers()
        self.post_message(self.Built())
        if self._follow_default:
            self._follow_if_recording_into()

    def _apply_start(self) -> None:
        """Go where the command line asked, once the list has that call (or all calls)."""
        target, table, detail = self._start_at, self.table, self._detail()
        if detail is None or table is None or (target is None and self._start_field is None):
            return
        listed, all_listed = self._listed
        if target is not None and target.call_index >= listed and not all_listed:
            return  # the list has not the row yet: moving its cursor there would stop short
        self._start_at = None
        if target is not None:
            self._goto(target)
        if self._start_field is not None:
            field, self._start_field = self._start_field, None
            if not detail.reveal_field(field):
                self.notify("That field is not in this call's request.", severity="warning")

    def _read_numbers(self) -> None:
        """Give the call list its numbers: once the file is indexed and the first call drawn
        (reading calls beside the indexer slowed it and the keys)."""
        if self.numbers is not None or self.index is None or self.closing:
            return
        from tui.model.call_numbers import CallNumbers

        self.numbers = CallNumbers(self.index)
        self.query_one(CallList).show_numbers(self.numbers)
        if self._ready_detail is not None:
            self._ready_detail.numbers_ready(self.numbers)

    def on_recording_loader_failed(self, message: RecordingLoader.Failed) -> None:
        if self.closing:
            return
        self.query_one(TitleBar).set_facts(message.reason, problem=True)

    def on_recording_loader_verdict_reached(self, message: RecordingLoader.VerdictReached) -> None:
        if self.closing:
            return  # checked as the screen went
        if self.file_change is not None and self.file_change.invalidates:
            return  # a verdict on a file that is no longer there as it was
        if message.verdict.following != self.following:
            return  # asked for before following started or stopped; another one is coming
        if message.verdict.stopped is not None and self.following:
            self._verdict_due = True  # the file grew while it was read: again once it stops
        self._show_verdict(message.verdict)
        from tui.model.versions import version_note

        self.version_note = version_note(self.path)
        self._update_facts()

    def _show_verdict(self, verdict: Verdict | None, unknown: str | None = None) -> None:
        """Mark the strict reader's problems, or drop them (`unknown` says why)."""
        self.verdict = verdict
        if self.table is not None:
            if verdict is None:
                self.table.forget_verdict(unknown)
            else:
                self.table.set_verdict(verdict)
        self.query_one(CallList).clear_cache()
        problems = verdict.problems if verdict is not None else ()
        banner = self.query_one("#file-problems", ProblemBanner)
        headline = verdict.headline() if verdict is not None else ""
        if self._older_format:
            from tui.model.older_format import migration_offer

            headline = migration_offer(self.path)
        banner.show_problems(problems, headline)
        self.refresh_bindings()
        if self.loaded is not None:
            self.loaded.set_problems(problems)
            if detail := self._detail():
                detail.show_problems()

    def on_call_list_call_highlighted(self, message: CallList.CallHighlighted) -> None:
        if message.ordinal != message.call_list.cursor_ordinal:
            return  # the cursor moved on since (keys typed ahead): show only where it is now
        if self._timeline is not None:
            self._timeline.select(message.ordinal)
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
        if moves != self._moves:
            return  # it moved on: the call it stops on is shown then
        if self.closing:
            return  # the screen was closed meanwhile
        cursor = self.query_one(CallList).cursor_ordinal
        if self.loaded is None or self.loaded.span.ordinal != cursor:
            KEYS.key_arrived()  # the indexers wait while it is read and drawn
            self._show_call(cursor)

    def on_call_list_call_opened(self, message: CallList.CallOpened) -> None:
        self.action_open_call()

    def on_call_timeline_bar_highlighted(self, message: CallTimeline.BarHighlighted) -> None:
        calls = self.query_one(CallList)
        if calls.cursor_ordinal != message.ordinal:
            calls.move_to_call(message.ordinal)

    def on_call_timeline_bar_opened(self, message: CallTimeline.BarOpened) -> None:
        self.query_one(CallList).move_to_call(message.ordinal)
        if detail := self._detail():
            if self.loaded is None or self.loaded.span.ordinal != message.ordinal:
                self._show_call(message.ordinal)
            detail.focus_content()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._raw_lines is not None and action in CALL_ACTIONS:
            return False  # not a recording: no call to go to, find, open or rerun
        if action == "open_call":
            return isinstance(self.focused, CallList)  # elsewhere enter belongs to the widget
        # A version-1 file is read-only: migrate, no rerun (and no migrate for any other file).
        if action in ("rerun", "migrate") and (action == "migrate") != self._older_format:
            return False
        if action in NOT_IN_PROMPTS:
            return not isinstance(
                self.focused, Input
            )  # "[", ":", "/" typed into a prompt stay there
        return True

    def action_open_call(self) -> None:
        if detail := self._detail():
            # The call under the cursor now, not once the cursor's messages arrive: keys typed
            # right after enter go to that call's detail.
            cursor = self.query_one(CallList).cursor_ordinal
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
        detail.show_call(self.loaded, keep_position, tab, stay_on_latest=self.following)

    def _update_facts(self) -> None:
        if self._raw_lines is not None and self.index is not None:
            lines = plural(self.index.line_count, "line")
            self.query_one(TitleBar).set_facts(f"{lines} · not an OpenProgram recording", True)
            return
        if self.table is not None:
            facts, problem = self.table.facts()
            if self.version_note:
                facts += f" · {self.version_note}"
            self.query_one(TitleBar).set_facts(facts, problem)
            if self.following:
                self.query_one(FileNotice).show_notice(self.table.following_note(), following=True)
            elif self.file_change is None:
                self.query_one(FileNotice).show_notice(self._reload_note)

    # -- the file on disk --

    def look_at_file(self) -> None:
        """Look at the file on disk: index what was appended (following), or say how it changed."""
        index, seen = self.index, self._seen
        if index is None or seen is None or self.closing:
            return
        if self.file_change is not None and self.file_change.invalidates:
            return  # said once; nothing shown describes the file any more until a reload
        now = stamp_of(self.path)
        change = compare(seen, now, index.size)
        if not index.complete and change is not FileChange.SHRANK:
            return  # the rest is looked at once the file as opened is indexed
        loader = self.query_one(RecordingLoader)
        if change.invalidates:
            self._file_invalidated(change)
        elif change is FileChange.SAME:
            if self.following and self._verdict_due and not loader.extending:
                self._verdict_due = False  # it stopped growing: check it now
                loader.check(following=True)
        elif self.following:
            self._seen = now
            if change is FileChange.GREW:
                loader.extend()
        elif self.file_change is None:
            self.file_change = change
            self.query_one(FileNotice).show_notice(
                f"{change.notice()} — ctrl+r reloads · f follows"
            )

    def _file_invalidated(self, change: FileChange) -> None:
        """The file shrank, was replaced or removed: say so, and drop the verdict on the old one.

        A replaced or removed file is still the one read (its inode lives while it is mapped), so
        it stays on show; a shortened one has lost bytes that were shown: it is read again."""
        if change is FileChange.SHRANK:
            if self.index is not None:
                now = stamp_of(self.path)
                self.index.cut_short(now.size if now is not None else 0)
            self._reload(self.following or self._follow_on_reload, change)
            return
        self.file_change = change
        self._follow_on_reload = self.following
        self._set_following(False)
        self.query_one(RecordingLoader).cancel_check()
        self._show_verdict(None, change.notice())
        self.query_one(FileNotice).show_notice(
            f"{change.notice()} — what is shown is what was read · ctrl+r reloads"
        )
        self._update_facts()

    def _set_following(self, following: bool) -> None:
        self.following = following
        if self.index is not None:
            self.index.growing = following
        if self.table is not None:
            self.table.refresh()
        self.query_one(CallList).clear_cache()
        if self.loaded is not None and not self.loaded.settled:
            self._show_call(self.loaded.span.ordinal, keep_position=True)

    @work(thread=True, exclusive=True, group="follow-default", exit_on_error=False)
    def _follow_if_recording_into(self) -> None:
        """Follow this file when the configuration records into it (it is being written)."""
        from openprogram.recordings import recording_into

        target = recording_into()
        try:
            recording = target is not None and os.path.samefile(target, self.path)
        except OSError:
            recording = False
        if recording:
            self.app.call_from_thread(self._follow_by_default)

    def _follow_by_default(self) -> None:
        if not self.following and self._follow_default and not self.closing:
            self.action_follow()

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
        self.query_one(CallList).move_to_call(ordinal)
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
            self.query_one(FindBar).open(
                calls, lambda row: index.call_bytes(calls.ordinal_at(row)), "calls", "across calls"
            )

    def action_match(self, forward: bool) -> None:
        if not self.query_one(FindBar).jump(forward):
            self.notify("No matches: press / to find.", severity="information")

    def action_tab(self, step: int) -> None:
        if detail := self._detail():
            detail.switch_tab(step)

    def action_unfold(self) -> None:
        detail = self._detail()
        if detail is not None and not detail.toggle_unfold():
            self.notify("Nothing to unfold: this call's request is shown whole.")

    def action_call(self, step: int) -> None:
        calls = self.query_one(CallList)
        calls.move_to(calls.cursor + step)

    def action_focus_calls(self) -> None:
        if self.index is not None:
            self._main_list().focus()

    def _main_list(self) -> RowList:
        """The list the screen comes back to: the calls, or the lines of a file not a recording."""
        if self._raw_lines is not None:
            from tui.widgets.recording.raw_lines import RawLineList

            return self._raw_lines.query_one(RawLineList)
        return self.query_one(CallList)

    def action_sort(self) -> None:
        """Sort the call list by the next number (file order, duration, first token, ...)."""
        calls = self.query_one(CallList)
        current = calls.ordering or calls.order
        calls.set_order(CallOrder(current.key.next(), current.descending, current.filter))

    def action_flip_sort(self) -> None:
        """Biggest first, or smallest first."""
        calls = self.query_one(CallList)
        current = calls.ordering or calls.order
        calls.set_order(CallOrder(current.key, not current.descending, current.filter))

    def action_filter(self) -> None:
        """Show only the calls a filter accepts (outcome, model, slower than, more tokens than)."""
        from tui.widgets.recording.filter_bar import FilterBar

        calls = self.query_one(CallList)
        bars = self.query(FilterBar)
        bar = bars.first() if bars else FilterBar()
        if not bars:
            self.mount(bar)

        def apply(wanted: CallFilter) -> None:
            current = calls.ordering or calls.order
            calls.set_order(CallOrder(current.key, current.descending, wanted))
            calls.focus()

        self.call_after_refresh(bar.open, (calls.ordering or calls.order).filter, apply)

    def action_widen_calls(self) -> None:
        """Give the call list most of the width (every number column that fits), or its share."""
        self.query_one(CallPane).toggle_class("-wide")

    def action_timeline(self) -> None:
        """Show the session on a time axis with its totals under the calls, or hide it."""
        from tui.widgets.recording.timeline import CallTimeline, TimelinePane

        if self._timeline is not None:
            self._timeline.remove()
            self._timeline = None
            self.query_one(CallList).focus()
            return
        if self.numbers is None:
            self.notify("The timeline opens once the file is indexed.", severity="information")
            return
        calls = self.query_one(CallList)
        pane = self._timeline = TimelinePane(self.numbers, max(calls.cursor_ordinal, 0))
        self.mount(pane, after=self.query_one("#browser"))
        self.call_after_refresh(lambda: pane.query_one(CallTimeline).focus())

    def action_follow(self) -> None:
        """Follow the file as it is written: new calls and events appear as they come; again: stop."""
        index, loader = self.index, self.query_one(RecordingLoader) if self.index else None
        if index is None or loader is None:
            return
        self._follow_default = False  # chosen now: the configuration no longer decides
        if self.file_change is not None and self.file_change.invalidates:
            self.notify(f"The {self.file_change.notice()}: ctrl+r reloads it.", severity="warning")
            return
        if self.following:
            self._set_following(False)
            loader.cancel_check()
            self._show_verdict(None)
            loader.check(following=False)
        elif index.truncated_tail:
            self._reload(follow=True)  # its last line was read as cut off: read it again, followed
            return
        else:
            self.file_change = None
            self.query_one(FileNotice).show_notice(None)
            self._set_following(True)
            if self.verdict is not None:
                self._show_verdict(self.verdict.while_following(True))
            self._verdict_due = True
            self.look_at_file()
        self._update_facts()

    def action_reload(self) -> None:
        """Read the file again from the start (after it changed on disk), and the status."""
        refresh = getattr(self.app, "refresh_status", None)
        if callable(refresh):
            refresh()
        self._reload(self.following or self._follow_on_reload)

    def _reload(self, follow: bool, because: FileChange | None = None) -> None:
        from tui.model.navigation import GotoTarget

        target = GotoTarget(self.loaded.call_index, None) if self.loaded is not None else None
        screen = RecordingScreen(self.path, target, follow=follow, reloaded_because=because)
        self.app.switch_screen(screen)

    @property
    def _older_format(self) -> bool:
        """A version-1 file (the strict reader said so): shown read-only, migration offered."""
        from tui.model.older_format import is_older_format

        return self.verdict is not None and is_older_format(self.verdict.facts.format_version)

    @work(thread=True, exclusive=True, group="migrate", exit_on_error=False)
    def action_migrate(self) -> None:
        from openprogram.errors import OpenProgramError
        from tui.model.older_format import migrate_file

        try:
            done = migrate_file(self.path)
        except (OSError, ValueError, OpenProgramError) as exc:
            self.app.call_from_thread(self.notify, f"Not migrated: {exc}", severity="error")
            return
        self.app.call_from_thread(self.notify, done)
        self.app.call_from_thread(self.action_reload)

    def action_rerun(self) -> None:
        from tui.screens.check import CheckScreen

        self.app.push_screen(CheckScreen(self.path))

    async def action_dismiss_one(self) -> None:
        find_bar = self.query_one(FindBar)
        if self.index is not None and self.query_one(CallList).cancel_order():
            pass  # stopped reading every call to sort or filter
        elif find_bar.has_matches:
            find_bar.clear()
        elif self.index is not None and self.focused is not self._main_list():
            self._main_list().focus()
        else:
            await self.app.run_action("go_back")
