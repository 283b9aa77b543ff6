"""The events of the selected call, one per row: `event_index`, type and a preview of the delta."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.message import Message

from tui.model.call_detail import LoadedCall
from tui.model.event_times import STALL_MS, arrival_text, gap_text
from tui.widgets.common.row_list import RowList

TYPE_WIDTH = len("thinking_delta")
GAP_WIDTH = len("+999ms")


class EventList(RowList):
    """Streamed events of one call; moving the cursor steps the assembled message."""

    HELP_TITLE: ClassVar[str] = "Event list"
    """Where its keys work, as the help names it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "event-list--index",
        "event-list--type",
        "event-list--boundary",
        "event-list--tool",
        "event-list--thinking",
        "event-list--terminal",
        "event-list--error",
        "event-list--time",
        "event-list--stall",
    }
    DEFAULT_CSS = """
    EventList {
        height: 1fr;
        & > .event-list--index { color: $text-muted; }
        & > .event-list--type { color: $text; }
        & > .event-list--boundary { color: $text-muted; }
        & > .event-list--tool { color: $text-accent; }
        & > .event-list--thinking { color: $text-muted; text-style: italic; }
        & > .event-list--terminal { color: $text-success; text-style: bold; }
        & > .event-list--error { color: $text-error; text-style: bold; }
        & > .event-list--time { color: $text-muted; }
        & > .event-list--stall { color: $text-warning; text-style: bold reverse; }
    }
    """
    empty_text = "no events"

    @dataclass(eq=False)
    class EventHighlighted(Message):
        """The cursor moved to event `event_index` of the shown call."""

        event_list: EventList
        event_index: int

        @property
        def control(self) -> EventList:
            return self.event_list

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.call: LoadedCall | None = None
        self.timed = False
        """The call shown has event times (else no time columns: a version-1 or migrated call)."""
        self._time_width = 0

    def show_call(self, call: LoadedCall | None) -> None:
        """Show the events of `call`, with the cursor on the first one."""
        self.call = call
        self.timed = call is not None and call.times_recorded
        last_ms = call.event_ms(call.event_count - 1) if call is not None and self.timed else None
        self._time_width = len(arrival_text(last_ms or 0))
        self.set_matches(self.matches[:0])
        self.set_row_count(call.event_count if call else 0)
        self.scroll_to(y=0, animate=False)
        self.set_reactive(EventList.cursor, 0)
        self.clear_cache()
        if call is not None and call.event_count:
            self.cursor_moved(0)

    def _type_class(self, event_type: str) -> str:
        if event_type == "error" or event_type == "?":
            return "event-list--error"
        if event_type in ("start", "done"):
            return "event-list--terminal"
        if event_type.startswith("toolcall"):
            return "event-list--tool"
        if event_type.startswith("thinking"):
            return "event-list--thinking"
        if event_type.endswith(("_start", "_end")):
            return "event-list--boundary"
        return "event-list--type"

    def render_row(self, row: int, width: int) -> Text:
        assert self.call is not None
        summary = self.call.event_summary(row)
        style = self.get_component_rich_style
        digits = len(str(max(self.row_count - 1, 0)))
        text = Text(" ")
        text.append(f"{summary.event_index:>{digits}}", style("event-list--index"))
        text.append("  ")
        if summary.error is not None:
            text.append(f"line {summary.line_number}: {summary.error}", style("event-list--error"))
            return text
        if self.timed:
            self._append_times(text, summary.ms, summary.gap_ms)
        text.append(summary.type.ljust(TYPE_WIDTH), style(self._type_class(summary.type)))
        text.append("  ")
        text.append(summary.preview)
        return text

    def _append_times(self, text: Text, ms: int | None, gap: int | None) -> None:
        """`0.41s +12ms `: when the event arrived and the gap before it (a stall marked)."""
        style = self.get_component_rich_style
        arrival = arrival_text(ms) if ms is not None else "—"
        text.append(arrival.rjust(self._time_width), style("event-list--time"))
        text.append(" ")
        gap_shown = (gap_text(gap) if gap is not None else "—").rjust(GAP_WIDTH)
        stalled = gap is not None and gap >= STALL_MS
        text.append(gap_shown, style("event-list--stall" if stalled else "event-list--time"))
        text.append("  ")

    def cursor_moved(self, row: int) -> None:
        if row < self.row_count:
            self.post_message(self.EventHighlighted(self, row))
