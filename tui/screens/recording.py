"""One recording: its calls down the side, the selected call in tabs, the strict verdict on top.

The file is indexed in a thread (rows appear while it runs) and validated by the strict reader in
the background; a damaged file still opens, with its problems marked. The call detail, the `:`
prompt and their modules are loaded once the first rows are on screen: they are not needed to
show them. The index waits until the first call is drawn too, and then for every key (and every
call shown) until it is handled: `tui.model.recording_index` (`KeyPriority`).

The file is stat-ed twice a second. Followed (`f`), what is appended is indexed and shown as it
comes; otherwise a change is offered as a reload (`ctrl+r`). A file shortened, replaced or removed
says so, and its old verdict is dropped.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from openprogram.providers.recording.errors import RecordingFileError
from tui.model.call_rows import is_older_format
from tui.model.file_stamp import LOOK_SECONDS, FileChange, FileWatch, FollowStep, WatchStep
from tui.model.navigation import GotoTarget  # loaded with the app already
from tui.model.recording_index import RecordingIndex
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.recording.call_browser import CallBrowser
from tui.widgets.recording.call_list import CallList, CallPane
from tui.widgets.recording.find_bar import FindBar
from tui.widgets.recording.recording_header import RecordingHeader
from tui.widgets.recording.recording_loader import RecordingLoader

if TYPE_CHECKING:
    from tui.model.call_detail import LoadedCall
    from tui.model.verdict import Verdict
    from tui.widgets.recording.goto_bar import GotoBar
    from tui.widgets.recording.timeline import CallTimeline

CALL_ACTIONS = frozenset(
    (
        *("goto", "find", "match", "tab", "call", "open_call", "check", "follow"),
        *("sort", "flip_sort", "filter", "widen_calls", "timeline", "unfold", "cache_break"),
    )
)
"""The screen's actions on calls: off while it shows the lines of a file that is not a recording."""
NOT_IN_PROMPTS = frozenset(
    (
        *("tab", "goto", "find", "sort", "flip_sort", "filter", "widen_calls", "timeline"),
        *("unfold", "migrate", "cache_break"),
    )
)
"""Actions whose keys typed into a prompt stay there (`[`, `:`, `/`, `o`, `&`, `w`, `t`, `u`,
`m`, `b`)."""


class RecordingScreen(Screen[None]):
    """Browse one recording file call by call and step through each call's events."""

    HELP_INTRO: ClassVar[str] = (
        "`:` takes 12 (call 12) or 12.40 (call 12, event 40); `/` finds text in the stored rows, "
        "n / N go to the next / previous match."
    )
    # From 150 columns the call list takes about half, for its number columns (app.tcss). Not a
    # ClassVar: Textual's annotation reads to mypy as an instance variable.
    HORIZONTAL_BREAKPOINTS = [(0, "-usual-width"), (150, "-wide-terminal")]  # noqa: RUF012
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
        Binding("r", "check", "Check", id="check"),
        Binding("m", "migrate", "Migrate", id="recording.migrate"),
        Binding("f", "follow", "Follow the file", show=False, id="recording.follow"),
        Binding("ctrl+r", "reload", "Reload the file", show=False, id="recording.reload"),
        Binding("o", "sort", "Sort", id="recording.sort"),
        Binding("O", "flip_sort", "Reverse the sort", show=False, id="recording.reverse-sort"),
        Binding("ampersand", "filter", "Filter", show=False, id="recording.filter"),
        Binding("w", "widen_calls", "Wide call list", show=False, id="recording.wide-calls"),
        Binding("t", "timeline", "Timeline", show=False, id="recording.timeline"),
        Binding("b", "cache_break", "Go to cache break", show=False, id="recording.cache-break"),
        Binding("escape", "dismiss_one", "Back", show=False, id="dismiss"),
    ]

    @dataclass(eq=False)
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
        self.file_watch = FileWatch(follow, reloaded_because)
        """The file on disk against what is shown: followed, changed, replaced."""
        self._start = (start_at, field)
        self.index: RecordingIndex | None = None
        self.verdict: Verdict | None = None
        self._open_error: RecordingFileError | None = None
        self.browser: CallBrowser | None = None
        """The calls and the call shown (None when the file cannot be opened)."""

    @property
    def following(self) -> bool:
        """True while what is appended to the file is indexed and shown as it comes."""
        return self.file_watch.following

    @property
    def loaded(self) -> LoadedCall | None:
        """The call shown (None before the first one is drawn, or for a file not a recording)."""
        return self.browser.loaded if self.browser is not None else None

    @property
    def closing(self) -> bool:
        """The screen is closed or being closed (popped, the app ending). Textual marks a closing
        screen's widgets at once and removes them children first: work queued before (a message,
        a timer, a callback after refresh) checks this, not a widget that may be gone."""
        return not self.is_attached or self._pruning

    def compose(self) -> ComposeResult:
        # Indexing starts while the screen is built, so the first rows can be in the first frame.
        try:
            self.index = RecordingIndex.open(self.path)
        except RecordingFileError as exc:
            self._open_error = exc
        else:
            self.index.growing = self.following
            self.file_watch.seen = self.index.stamp
            yield RecordingLoader(self.index, self.file_watch)
        yield RecordingHeader(self.path.name)
        if self.index is not None:
            self.browser = CallBrowser(self.index, self.following, *self._start)
            yield self.browser
        yield FindBar()
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        if self._open_error is not None:
            self.query_one(RecordingHeader).cannot_open(self._open_error.problem)
            self.post_message(self.Built())
            return
        self._browser.show_calls()
        self.set_interval(LOOK_SECONDS, self.look_at_file)

    @property
    def _browser(self) -> CallBrowser:
        """The browser, where the file was opened (every path that asks for it)."""
        assert self.browser is not None
        return self.browser

    # -- the index and the verdict --

    def on_recording_loader_index_updated(self, message: RecordingLoader.IndexUpdated) -> None:
        if self.closing or self.file_watch.stale:
            return  # indexed as the screen went, or from a file no longer there as it was
        self._browser.calls_indexed(message.calls, message.complete, message.appended)
        if not (self.index is None or self.index.foreign):
            # Mounted once the first rows are drawn, like the call detail: not needed for them.
            self.call_after_refresh(self._browser.goto_bar)
        if not message.complete:
            self.query_one(RecordingHeader).say(f"indexing {message.fraction:.0%}…")
            return
        self._update_facts()
        if not message.appended:
            self.query_one(RecordingLoader).check(self.following)

    def on_call_browser_detail_ready(self, message: CallBrowser.DetailReady) -> None:
        """The first call is drawn: the index goes on, and the work that waited for it starts."""
        if self.closing:
            return  # closed before its first call was drawn (`q` right after the first rows)
        # What is alive once a recording is shown lives as long as the app: leave it out of later
        # garbage collections, which would otherwise walk ~100k objects inside a jump's frame.
        gc.freeze()
        self.query_one(RecordingLoader).screen_drawn()
        if self.index is not None and self.index.complete:
            self._browser.read_numbers()
        self.post_message(self.Built())

    def on_recording_loader_failed(self, message: RecordingLoader.Failed) -> None:
        if not self.closing:
            self.query_one(RecordingHeader).say(message.reason, problem=True)

    def on_recording_loader_verdict_reached(self, message: RecordingLoader.VerdictReached) -> None:
        if self.closing or self.file_watch.stale:
            return  # checked as the screen went, or a file no longer there as it was
        self._show_verdict(message.verdict)
        self.query_one(RecordingHeader).version_note = message.version_note
        self._update_facts()

    def _show_verdict(self, verdict: Verdict | None, unknown: str | None = None) -> None:
        """Mark the strict reader's problems, or drop them (`unknown` says why)."""
        self.verdict = verdict
        self.query_one(RecordingHeader).show_verdict(verdict)
        self.refresh_bindings()
        self._browser.show_verdict(verdict, unknown)

    def _update_facts(self) -> None:
        if self.browser is not None:
            self.query_one(RecordingHeader).show_facts(self.browser, self.file_watch)

    # -- the file on disk --

    def look_at_file(self) -> None:
        """Look at the file on disk: what was appended is indexed (followed), a change is said."""
        if self.index is None or self.closing:
            return
        step = self.query_one(RecordingLoader).look_at_file()
        if step is WatchStep.READ_AGAIN:  # shortened: bytes on show are gone
            self._reload(self.file_watch.reload_follows, FileChange.SHRANK)
            return
        if step in (WatchStep.EXTEND, WatchStep.CHECK, WatchStep.NOTHING):
            return
        if step is WatchStep.INVALIDATE and self.file_watch.change is not None:
            # Replaced or removed, it is still the file read (its inode lives while it is
            # mapped): it stays on show, its verdict dropped.
            self._browser.set_following(False)
            self._show_verdict(None, self.file_watch.change.notice())
        self._update_facts()

    def on_recording_loader_recorded_into(self, message: RecordingLoader.RecordedInto) -> None:
        if self.file_watch.follows_by_default and not self.closing:
            self.action_follow()

    def action_follow(self) -> None:
        """Follow the file as it is written: new calls and events appear as they come; again: stop."""
        if self.index is None:
            return
        step = self.query_one(RecordingLoader).toggle_follow()
        if step is FollowStep.REFUSED:  # replaced or removed: said by the loader
            return
        if step is FollowStep.READ_AGAIN:
            self._reload(follow=True)  # its last line was read as cut off: read it again, followed
            return
        self._browser.set_following(self.following)
        if step is FollowStep.STOPPED:
            self._show_verdict(None)
        else:
            if self.verdict is not None:
                self._show_verdict(self.verdict.while_following(True))
            self.look_at_file()  # what was appended is indexed now
        self._update_facts()

    def action_reload(self) -> None:
        """Read the file again from the start (after it changed on disk), and the status."""
        refresh = getattr(self.app, "refresh_status", None)
        if callable(refresh):
            refresh()
        self._reload(self.file_watch.reload_follows)

    def _reload(self, follow: bool, because: FileChange | None = None) -> None:
        loaded = self.loaded
        target = GotoTarget(loaded.call_index, None) if loaded is not None else None
        screen = RecordingScreen(self.path, target, follow=follow, reloaded_because=because)
        self.app.switch_screen(screen)

    # -- actions --

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        browser = self.browser
        if browser is not None and browser.raw_lines is not None and action in CALL_ACTIONS:
            return False  # not a recording: no call to go to, find, open or check
        if action == "open_call":
            return isinstance(self.focused, CallList)  # elsewhere enter belongs to the widget
        # A version-1 file is read-only: migrate, no check (and no migrate for any other file).
        older = self.verdict is not None and is_older_format(self.verdict.facts.format_version)
        if action in ("check", "migrate") and (action == "migrate") != older:
            return False
        if action in NOT_IN_PROMPTS:  # "[", ":", "/" typed into a prompt stay there
            return not isinstance(self.focused, Input)
        return True

    def action_goto(self) -> None:
        bar = self._browser.goto_bar() if self.browser is not None else None
        if bar is None or not bar.is_mounted:  # `:` before the first rows were drawn
            if bar is not None:
                self.call_after_refresh(self.action_goto)
            return
        # The prompt covers the footer: rebuilding it for the prompt's focus would be wasted.
        self.query_one(KeyFooter).hold()
        bar.open(self._browser.table.count, self._browser.go_to)

    def on_goto_bar_closed(self, message: GotoBar.Closed) -> None:
        self.query_one(KeyFooter).release()

    def action_find(self) -> None:
        if self.browser is not None:
            self.browser.find(self.query_one(FindBar), self.focused)

    def action_match(self, forward: bool) -> None:
        if not self.query_one(FindBar).jump(forward):
            self.notify("No matches: press / to find.", severity="information")

    def action_tab(self, step: int) -> None:
        if self.browser is not None and self.browser.detail is not None:
            self.browser.detail.switch_tab(step)

    def action_unfold(self) -> None:
        if self.browser is not None and self.browser.detail is not None:
            self.browser.detail.toggle_unfold()

    def action_cache_break(self) -> None:
        if self.browser is not None and self.browser.detail is not None:
            self.browser.detail.reveal_cache_break()

    def action_call(self, step: int) -> None:
        calls = self.query_one(CallList)
        calls.move_to(calls.cursor + step)

    def action_focus_calls(self) -> None:
        if self.index is not None:
            self._browser.main_list().focus()

    def action_open_call(self) -> None:
        self._browser.open_call()

    def action_sort(self) -> None:
        self.query_one(CallList).sort_by_next()

    def action_flip_sort(self) -> None:
        self.query_one(CallList).reverse_sort()

    def action_filter(self) -> None:
        self._browser.filter()

    def action_widen_calls(self) -> None:
        self.query_one(CallPane).toggle_wide()

    def action_timeline(self) -> None:
        if self.browser is not None:
            self.browser.toggle_timeline()

    def on_call_timeline_bar_highlighted(self, message: CallTimeline.BarHighlighted) -> None:
        self._browser.bar_highlighted(message.ordinal)

    def on_call_timeline_bar_opened(self, message: CallTimeline.BarOpened) -> None:
        self._browser.open_call(message.ordinal)

    def action_migrate(self) -> None:
        self.query_one(RecordingLoader).migrate()

    def on_recording_loader_migrated(self, message: RecordingLoader.Migrated) -> None:
        self.action_reload()
        self.app.notify(message.note)  # once the view of the migrated file is on

    def action_check(self) -> None:
        from tui.screens.check import CheckScreen

        self.app.push_screen(CheckScreen(self.path))

    async def action_dismiss_one(self) -> None:
        browser = self.browser
        if browser is None or not browser.step_back(self.query_one(FindBar), self.focused):
            await self.app.run_action("go_back")
