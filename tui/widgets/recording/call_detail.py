"""The selected call in four tabs: Request (transcript and JSON), Events, Response and Raw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, TabbedContent, TabPane, Tabs
from textual.worker import get_current_worker

from openprogram.text import human_size, plural
from tui.model.call_columns import cache_line, numbers_line
from tui.model.call_detail import FinalMessage, LoadedCall
from tui.model.event_times import GapsStopped, LongestGap, gap_caption
from tui.model.events import FoldStep, FoldStopped
from tui.model.transcript import TranscriptEntry, TranscriptPart, can_fold, news_transcript
from tui.widgets.common.json_tree import JsonTree
from tui.widgets.recording.event_list import EventList
from tui.widgets.recording.message_view import MessageView
from tui.widgets.recording.problem_banner import ProblemBanner
from tui.widgets.recording.transcript import Transcript

if TYPE_CHECKING:
    from openprogram.recordings.prompt_cache import PrefixBreak
    from tui.model.call_numbers import CallNumbers

TAB_IDS = ("tab-request", "tab-events", "tab-response", "tab-raw")
INLINE_FOLD_LIMIT = 20_000
"""Events folded at most on the UI thread; a longer fold (a call of a million streamed pieces)
runs in a worker thread, stopped when the cursor moves on or the app quits."""
INLINE_GAP_EVENTS = 20_000
"""Events whose times are read on the UI thread to find the longest gap; a longer call is
measured in a worker thread (the caption says so meanwhile)."""


class CallDetail(Vertical):
    """One call: what was sent, each streamed event with the message so far, the answer, the rows."""

    DEFAULT_CSS = """
    CallDetail {
        width: 1fr;
        & > TabbedContent { height: 1fr; }
        & TabPane { padding: 0; }
        & #raw-caption { color: $text-muted; height: 1; padding: 0 1; }
        & #raw { height: 1fr; border: none; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.call: LoadedCall | None = None
        self._filled: dict[str, LoadedCall | None] = {}
        """The call each tab shows (tabs are filled when they are shown)."""
        self._event_position = 0
        self._assembled: tuple[LoadedCall, int] | None = None
        """The call and event whose assembled message is shown."""
        self.unfolded = False
        """The Request tab shows the earlier conversation too (else only what is new)."""
        self.numbers: CallNumbers | None = None
        """Each call's numbers (the screen's, once the file is indexed): the Response tab's caption."""

    def compose(self) -> ComposeResult:
        yield ProblemBanner(limit=3, id="call-problems")
        with TabbedContent(id="call-tabs"):
            with TabPane("Request", id="tab-request"):
                yield Transcript(id="transcript")
                yield JsonTree(id="request-json")
            with TabPane("Events", id="tab-events"):
                events, assembled = EventList(id="events"), MessageView(id="assembled")
                events.border_title, assembled.border_title = "Events", "Message so far"
                yield events
                yield assembled
            with TabPane("Response", id="tab-response"):
                yield MessageView(id="response")
            with TabPane("Raw", id="tab-raw"):
                yield Static(id="raw-caption")

    @dataclass(eq=False)
    class Ready(Message):
        """The detail is mounted and can show a call."""

        call_detail: CallDetail

    def on_mount(self) -> None:
        self.post_message(self.Ready(self))

    @property
    def active_tab(self) -> str:
        """The id of the tab shown."""
        return self.query_one(TabbedContent).active

    def show_call(
        self,
        call: LoadedCall | None,
        keep_position: bool = False,
        tab: str | None = None,
        stay_on_latest: bool = False,
    ) -> None:
        """Show `call` (in the tab with id `tab`, if given); each tab is filled when first shown.

        With `keep_position` the event cursor stays where it was (the same call, read again);
        with `stay_on_latest` too, a cursor on the last event moves to the new last one.
        """
        events = self.query_one(EventList)
        self._event_position = events.cursor if keep_position else 0
        at_latest = events.row_count == 0 or events.cursor == events.row_count - 1
        if keep_position and stay_on_latest and at_latest and call is not None:
            self._event_position = max(call.event_count - 1, 0)
        if call is not self.call:
            self.workers.cancel_group(self, "fold")
            self.workers.cancel_group(self, "gaps")
            self.workers.cancel_group(self, "detail-numbers")
            if call is None or self.call is None or call.span.ordinal != self.call.span.ordinal:
                self.unfolded = False  # each call opens on what is new in it
        self.call = call
        self._filled = {}
        self._assembled = None
        self.show_problems()
        if tab is not None:
            self.query_one(TabbedContent).active = tab
        self._fill(self.active_tab)

    def _fill(self, tab_id: str) -> None:
        call = self.call
        if tab_id in self._filled and self._filled[tab_id] is call:
            return
        self._filled[tab_id] = call
        if tab_id == "tab-events":
            self._show_events(call)
        elif call is None:
            return
        elif tab_id == "tab-request":
            self._show_request(call)
        elif tab_id == "tab-response":
            self._show_response(call)
        elif tab_id == "tab-raw":
            self._show_raw(call)

    def _show_events(self, call: LoadedCall | None) -> None:
        events = self.query_one(EventList)
        events.show_call(call)
        if call is None or not events.timed:
            events.border_title = "Events" if call is None else gap_caption(None, False)
        elif call.event_count <= INLINE_GAP_EVENTS or call.gaps_measured:
            events.border_title = gap_caption(call.longest_gap(), True)
        else:
            events.border_title = "Events · finding the longest gap…"
            self._measure_gaps(call)
        if call is not None and call.event_count == 0:
            self.query_one("#assembled", MessageView).show_message(None, "No events recorded.")
        if self._event_position:
            events.move_to(self._event_position)
            self._event_position = 0

    @work(thread=True, exclusive=True, group="gaps")
    def _measure_gaps(self, call: LoadedCall) -> None:
        worker = get_current_worker()
        try:
            gap = call.longest_gap(stop=lambda: worker.is_cancelled)
        except GapsStopped:
            return
        self.app.call_from_thread(self._gaps_measured, call, gap)

    def _gaps_measured(self, call: LoadedCall, gap: LongestGap | None) -> None:
        if call is self.call:
            self.query_one(EventList).border_title = gap_caption(gap, True)

    def show_problems(self) -> None:
        """Mark the shown call's problems (after the strict verdict arrives)."""
        banner = self.query_one("#call-problems", ProblemBanner)
        call = self.call
        problems = tuple(call.problems()) if call is not None else ()
        banner.show_problems(problems)
        self.query_one(EventList).clear_cache()

    def _show_request(self, call: LoadedCall) -> None:
        tree = self.query_one(JsonTree)
        transcript = self.query_one(Transcript)
        if call.request is None:
            reason = call.request_problem or "the request row cannot be read"
            tree.show_document({"problem": reason})
            part = TranscriptPart("error", reason)
            transcript.show_entries(
                [TranscriptEntry("problem", "Request unreadable", (part,), True)]
            )
            transcript.border_title = "Transcript"
            return
        tree.show_document(
            {
                "model": call.request.model,
                "context": call.request.context,
                "options": call.request.options,
            },
            expand=("context",),
        )
        news = call.news()
        context = call.request.context
        folded = not self.unfolded and can_fold(news, context)
        transcript.show_entries(news_transcript(news, context, folded=folded))
        if folded:
            transcript.border_title = f"New in this call (since call {news.base})"
        elif can_fold(news, context):
            transcript.border_title = f"Transcript (new since call {news.base} marked)"
        else:
            transcript.border_title = "Transcript"

    def toggle_unfold(self) -> bool:
        """Unfold the earlier conversation of the Request tab (or fold it again); False, and
        said, when the call shown has nothing to fold (the first call, or nothing the same as
        the call before)."""
        call = self.call
        if call is None or call.request is None or not can_fold(call.news(), call.request.context):
            self.notify("Nothing to unfold: this call's request is shown whole.")
            return False
        self.unfolded = not self.unfolded
        self._filled.pop("tab-request", None)
        self.show_tab("tab-request")
        return True

    def _show_response(self, call: LoadedCall) -> None:
        view = self.query_one("#response", MessageView)
        to_fold = call.final_fold_work()
        if to_fold > INLINE_FOLD_LIMIT or (to_fold and call.fold.busy):
            view.show_message(None, f"Assembling the final message from {to_fold:,} events…")
            self._fold_final(call)
            return
        self._response_shown(call, call.final_message())

    @work(thread=True, exclusive=True, group="fold")
    def _fold_final(self, call: LoadedCall) -> None:
        worker = get_current_worker()
        try:
            final = call.final_message(stop=lambda: worker.is_cancelled)
        except FoldStopped:
            return
        self.app.call_from_thread(self._response_shown, call, final)

    def _response_shown(self, call: LoadedCall, final: FinalMessage) -> None:
        if call is not self.call:
            return
        notes = [n for n in (final.note, call.call_end.error if call.call_end else None) if n]
        view = self.query_one("#response", MessageView)
        view.show_message(
            final.message,
            self._response_caption(call),
            " · ".join(notes) or None,
            stop_recorded=final.note is None,  # a note: assembled, no done/error event
        )
        if self.numbers is not None:
            self._read_call_numbers(call, self.numbers)

    def _response_caption(self, call: LoadedCall, numbers: str | None = None) -> str:
        """`Final message of call 3 · outcome complete`, then the call's numbers once read (its
        times from its rows until then)."""
        outcome = call.call_end.outcome if call.call_end else "no call_end"
        return (
            f"Final message of call {call.call_index} · outcome {outcome}\n"
            f"{numbers if numbers is not None else call.timing()}"
        )

    def numbers_ready(self, numbers: CallNumbers) -> None:
        """The screen has the calls' numbers now: the Response tab shows the call's."""
        self.numbers = numbers
        if self.call is not None and self._filled.get("tab-response") is self.call:
            self._read_call_numbers(self.call, numbers)

    @work(thread=True, exclusive=True, group="detail-numbers", exit_on_error=False)
    def _read_call_numbers(self, call: LoadedCall, numbers: CallNumbers) -> None:
        """Read the call's numbers with its price (the call read whole, off the UI thread)."""
        from openprogram.recordings.cost import price_table

        ordinal = call.span.ordinal
        stats, cache = numbers.numbers_of(ordinal, priced=True)
        if stats is None or get_current_worker().is_cancelled:
            return
        line = numbers_line(stats, last=numbers.is_last(ordinal), prices=price_table())
        line += "\n" + cache_line(cache)
        self.app.call_from_thread(self._call_numbers_shown, call, line)

    def _call_numbers_shown(self, call: LoadedCall, line: str) -> None:
        if call is self.call and self._filled.get("tab-response") is call:
            self.query_one("#response", MessageView).show_caption(
                self._response_caption(call, line)
            )

    def _show_raw(self, call: LoadedCall) -> None:
        from textual.widgets import TextArea  # its text engine costs start-up time; load on use

        raw = call.raw()
        first = raw.first_line_number if raw.contiguous else 1
        existing = self.query("#raw")
        if existing:
            area = existing.first(TextArea)
            area.load_text(raw.text)
            area.line_number_start = first
        else:
            area = TextArea(
                raw.text,
                id="raw",
                read_only=True,
                soft_wrap=True,
                show_line_numbers=True,
                highlight_cursor_line=False,
                line_number_start=first,
            )
            area.match_cursor_bracket = False
            self.query_one("#tab-raw", TabPane).mount(area)
        caption = f"{plural(raw.total_lines, 'line')} as stored, from line {raw.first_line_number}"
        if raw.shown_lines < raw.total_lines:
            caption += f" · first {raw.shown_lines} shown ({human_size(len(raw.text))})"
        if not raw.contiguous:
            caption += " · other calls' rows in between are left out"
        self.query_one("#raw-caption", Static).update(Text(caption))

    def on_event_list_event_highlighted(self, event: EventList.EventHighlighted) -> None:
        event.stop()
        if event.event_index == event.event_list.cursor:  # else the cursor has moved on since
            self._show_assembled(event.event_index)

    def _show_assembled(self, event_index: int) -> None:
        """Show the message as assembled through `event_index` of the call shown."""
        call = self.call
        if call is None or event_index >= call.event_count:
            return
        if self._assembled == (call, event_index):
            return
        self._assembled = (call, event_index)
        to_fold = call.fold.fold_work(event_index)
        if to_fold > INLINE_FOLD_LIMIT or (to_fold and call.fold.busy):
            view = self.query_one("#assembled", MessageView)
            view.show_message(None, f"Assembling events 0–{event_index} ({to_fold:,} to fold)…")
            self._fold_to(call, event_index)
            return
        self._assembled_shown(call, call.message_at(event_index))

    @work(thread=True, exclusive=True, group="fold")
    def _fold_to(self, call: LoadedCall, event_index: int) -> None:
        worker = get_current_worker()
        try:
            step = call.message_at(event_index, stop=lambda: worker.is_cancelled)
        except FoldStopped:
            return
        self.app.call_from_thread(self._assembled_shown, call, step)

    def _assembled_shown(self, call: LoadedCall, step: FoldStep) -> None:
        if self._assembled != (call, step.event_index):
            return
        event_index = step.event_index
        summary = call.event_summary(event_index)
        # Events are numbered from 0, as `event_index` and `:call.event` count them.
        through = f"events 0–{event_index}" if event_index else "event 0"
        caption = (
            f"Assembled from {through} of {plural(call.event_count, 'event')}"
            f" · {summary.type} · line {summary.line_number}"
        )
        streaming = summary.type not in ("done", "error")
        view = self.query_one("#assembled", MessageView)
        view.show_message(step.message, caption, step.error, in_progress=streaming)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            self._fill(event.pane.id)

    def switch_tab(self, step: int) -> None:
        """Show the next (`step` 1) or previous (`step` -1) tab."""
        tabs = self.query_one(TabbedContent)
        position = TAB_IDS.index(tabs.active) if tabs.active in TAB_IDS else 0
        self.show_tab(TAB_IDS[(position + step) % len(TAB_IDS)])

    def show_tab(self, tab_id: str) -> None:
        """Show the tab with id `tab_id` (filled at once, so it can be used right away).

        The focus, if it was in the tab left, moves to the new tab's main widget: left in a hidden
        tab, Textual would move it to a sibling there, and the tabs would show that tab again.
        """
        tabs = self.query_one(TabbedContent)
        leaving = tabs.active_pane
        tabs.active = tab_id
        self._fill(tab_id)
        focused = self.screen.focused
        if leaving is not None and leaving.id != tab_id and focused in leaving.walk_children():
            self.focus_content()
            if self.screen.focused is focused:  # no main widget yet (the Raw tab's is mounting)
                self.screen.set_focus(tabs.query_one(Tabs))

    def reveal_field(self, path: tuple[str | int, ...]) -> bool:
        """Show the Request tab with its JSON tree opened at `path` (`context.messages[0]…`);
        False, and said, when this call's request has no such field."""
        self.show_tab("tab-request")
        tree = self.query_one(JsonTree)
        tree.focus()
        found = tree.reveal(path)
        if not found:
            self.notify("That field is not in this call's request.", severity="warning")
        return found

    def reveal_cache_break(self) -> None:
        """`b`: the Request tab opened at the field where this call's prompt-cache prefix broke
        (the path the Response caption names), or why there is none."""
        if self.call is None or self.numbers is None:
            self.notify("The prompt cache is read once the file is indexed.")
        else:
            self._find_cache_break(self.call, self.numbers)

    @work(thread=True, exclusive=True, group="cache-break", exit_on_error=False)
    def _find_cache_break(self, call: LoadedCall, numbers: CallNumbers) -> None:
        fact = numbers.cache_of(call.span.ordinal, priced=False)  # the call read whole: a thread
        if not get_current_worker().is_cancelled:
            broken = fact.prefix_break if fact is not None else None
            self.app.call_from_thread(self._cache_break_found, call, broken)

    def _cache_break_found(self, call: LoadedCall, broken: PrefixBreak | None) -> None:
        from openprogram.providers.recording.field_patterns import (
            FieldPatternError,
            parse_field_path,
        )

        if call is not self.call:
            return  # another call is shown now
        if broken is None:
            self.notify(f"Call {call.call_index} kept the prompt-cache prefix: no break to go to.")
            return
        try:
            self.reveal_field(parse_field_path(broken.path))
        except FieldPatternError:  # a key no path can name: the caption says it whole
            self.notify("The break's field cannot be opened in the tree.", severity="warning")

    def open_event(self, event_index: int) -> None:
        """Show the Events tab with the cursor on `event_index`."""
        self.show_tab("tab-events")
        events = self.query_one(EventList)
        # Focus and message now, not once their messages are handled: the jump is one frame.
        self.screen.set_focus(events)
        events.move_to(event_index)
        self._show_assembled(events.cursor)

    def focus_content(self) -> None:
        """Focus the main widget of the tab shown."""
        targets = {
            "tab-request": "#transcript",
            "tab-events": "#events",
            "tab-response": "#response",
            "tab-raw": "#raw",
        }
        found = self.query(targets.get(self.active_tab, "#events"))
        if found:
            self.screen.set_focus(found.first())  # now: the next key goes to it
