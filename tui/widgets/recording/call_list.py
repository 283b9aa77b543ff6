"""The calls of a recording down the side: `#1  scripted/echo-1  31 ev  complete`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.message import Message

from openprogram.text import shorten
from tui.model.call_rows import BAD_OUTCOMES, IN_PROGRESS, PENDING, CallTable
from tui.widgets.common.row_list import RowList

OUTCOME_WIDTH = max(len(outcome) for outcome in (*BAD_OUTCOMES, "complete"))
"""Room for the longest outcome (`unfinished`), so every row's columns line up; `in progress`
(only while following) takes the one column left free at the end of the row."""
NARROW_ROW = 40
"""Rows narrower than this (the list at 80 columns) show the outcome as one mark (✓ ✗ ● …), its
colour as in a wide row, and give the model name the room; the call's tabs say the outcome whole."""
NARROW_MARKS = {"complete": "✓", IN_PROGRESS: "●", PENDING: "…"}
"""The mark of each outcome in a narrow row; every failed outcome is `✗`."""


class CallList(RowList):
    """One row per call, coloured by outcome; only the rows on screen are ever parsed."""

    HELP_TITLE: ClassVar[str] = "Call list"
    """Where its keys work, as the help names it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "call-list--index",
        "call-list--model",
        "call-list--count",
        "call-list--complete",
        "call-list--failed",
        "call-list--pending",
        "call-list--in-progress",
    }
    DEFAULT_CSS = """
    CallList {
        border-right: vkey $panel;
        & > .call-list--index { color: $text-muted; }
        & > .call-list--model { color: $text; }
        & > .call-list--count { color: $text-muted; }
        & > .call-list--complete { color: $text-success; }
        & > .call-list--failed { color: $text-error; text-style: bold; }
        & > .call-list--pending { color: $text-muted; }
        & > .call-list--in-progress { color: $text-accent; text-style: bold; }
    }
    """
    empty_text = "no calls"

    class _CallMessage(Message):
        """Something happened to the call at `ordinal` (its position in the file)."""

        def __init__(self, call_list: CallList, ordinal: int) -> None:
            super().__init__()
            self.call_list = call_list
            self.ordinal = ordinal

        @property
        def control(self) -> CallList:
            return self.call_list

    class CallHighlighted(_CallMessage):
        """The cursor moved to the call at `ordinal`."""

    class CallOpened(_CallMessage):
        """Enter (or a double click) on the call at `ordinal`."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.table: CallTable | None = None

    def show_table(self, table: CallTable | None) -> None:
        """Show the calls of `table` (as many as it has published)."""
        self.table = table
        self.clear_cache()
        self.set_row_count(table.count if table else 0)

    def render_row(self, row: int, width: int) -> Text:
        assert self.table is not None
        summary = self.table.summary(row)
        style = self.get_component_rich_style
        number = f"#{summary.call_index}".ljust(self.table.index_width + 1)
        count = f"{summary.event_count:>4} ev"
        outcome_class = (
            "call-list--in-progress"
            if summary.outcome == IN_PROGRESS
            else "call-list--pending"
            if summary.outcome == PENDING
            else "call-list--failed"
            if summary.failed
            else "call-list--complete"
        )
        narrow = width < NARROW_ROW
        outcome = NARROW_MARKS.get(summary.outcome, "✗") if narrow else summary.outcome
        outcome_width = 1 if narrow else OUTCOME_WIDTH
        model_width = max(4, width - len(number) - len(count) - outcome_width - 6)
        model = shorten(summary.model_label, model_width)
        text = Text(" ")
        index_style = "call-list--failed" if summary.failed else "call-list--index"
        text.append(number, style(index_style))
        text.append("  ")
        text.append(model.ljust(model_width), style("call-list--model"))
        text.append(count, style("call-list--count"))
        text.append("  ")
        text.append(outcome, style(outcome_class))
        return text

    def cursor_moved(self, row: int) -> None:
        if row < self.row_count:
            self.post_message(self.CallHighlighted(self, row))

    def row_opened(self, row: int) -> None:
        self.post_message(self.CallOpened(self, row))
