"""The events of the selected call, one per row: `event_index`, type and a preview of the delta."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.message import Message

from tui.model.call_detail import LoadedCall
from tui.widgets.common.row_list import RowList

TYPE_WIDTH = len("thinking_delta")


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
    }
    """
    empty_text = "no events"

    class EventHighlighted(Message):
        """The cursor moved to event `event_index` of the shown call."""

        def __init__(self, event_list: EventList, event_index: int) -> None:
            super().__init__()
            self.event_list = event_list
            self.event_index = event_index

        @property
        def control(self) -> EventList:
            return self.event_list

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.call: LoadedCall | None = None

    def show_call(self, call: LoadedCall | None) -> None:
        """Show the events of `call`, with the cursor on the first one."""
        self.call = call
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
        text.append(summary.type.ljust(TYPE_WIDTH), style(self._type_class(summary.type)))
        text.append("  ")
        text.append(summary.preview)
        return text

    def cursor_moved(self, row: int) -> None:
        if row < self.row_count:
            self.post_message(self.EventHighlighted(self, row))
