"""The lines of a file that is not a recording, as stored: a list, and the selected line in full."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from tui.model.line_preview import preview_line, raw_line
from tui.model.recording_index import RecordingIndex
from tui.widgets.common.row_list import RowList


class RawLineList(RowList):
    """One row per stored line: its number and the start of its text."""

    HELP_TITLE: ClassVar[str] = "Line list"
    """Where its keys work, as the help names it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"raw-line-list--number"}
    DEFAULT_CSS = """
    RawLineList {
        height: auto;
        max-height: 50%;
        & > .raw-line-list--number { color: $text-muted; }
    }
    """
    empty_text = "no lines"

    @dataclass(eq=False)
    class LineHighlighted(Message):
        """The cursor moved to line `number` (0-based)."""

        line_list: RawLineList
        number: int

        @property
        def control(self) -> RawLineList:
            return self.line_list

    class LineOpened(Message):
        """Enter on a line: its full view takes the keys."""

    def __init__(self, index: RecordingIndex, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index

    def render_row(self, row: int, width: int) -> Text:
        digits = len(str(self.row_count))
        text = Text(" ")
        text.append(f"{row + 1:>{digits}}", self.get_component_rich_style("raw-line-list--number"))
        text.append("  ")
        room = max(width - digits - 3, 1)
        # Only what fits is decoded: a line of another tool's file can be megabytes long.
        start = self.index.line(row)[: room * 4].decode("utf-8", errors="replace")
        text.append(preview_line(start, room))
        return text

    def cursor_moved(self, row: int) -> None:
        if row < self.row_count:
            self.post_message(self.LineHighlighted(self, row))

    def row_opened(self, row: int) -> None:
        self.post_message(self.LineOpened())


class RawLines(Vertical):
    """Every line of the file as stored, and the line under the cursor in full below."""

    DEFAULT_CSS = """
    RawLines {
        width: 1fr;
        & > RawLineList { border: round $panel; border-title-color: $text-muted; }
        & > RawLineList:focus { border: round $primary; }
        & > #raw-line-view {
            height: 1fr;
            border: round $panel;
            border-title-color: $text-muted;
            border-subtitle-color: $text-muted;
            background: $surface;
        }
        & > #raw-line-view:focus { border: round $primary; }
    }
    """

    def __init__(self, index: RecordingIndex) -> None:
        super().__init__(id="raw-lines")
        self.index = index

    def compose(self) -> ComposeResult:
        lines = RawLineList(self.index, id="raw-line-list")
        lines.border_title = "Lines as stored"
        yield lines
        view = VerticalScroll(Static(id="raw-line"), id="raw-line-view")
        view.border_title = "Line"
        yield view

    def on_mount(self) -> None:
        lines = self.query_one(RawLineList)
        lines.set_row_count(self.index.line_count)
        lines.focus()
        self.show_line(0)

    def show_line(self, number: int) -> None:
        """Show line `number` (0-based) in full, scrolled to its start."""
        view = self.query_one("#raw-line-view", VerticalScroll)
        if number >= self.index.line_count:
            self.query_one("#raw-line", Static).update("")
            return
        shown = raw_line(self.index.line(number), number + 1)
        self.query_one("#raw-line", Static).update(Text(shown.text))
        view.border_title = f"Line {number + 1}"
        view.border_subtitle = shown.note
        view.scroll_home(animate=False)

    def on_raw_line_list_line_highlighted(self, message: RawLineList.LineHighlighted) -> None:
        message.stop()
        if message.number == message.line_list.cursor:  # else the cursor has moved on since
            self.show_line(message.number)

    def on_raw_line_list_line_opened(self, message: RawLineList.LineOpened) -> None:
        message.stop()
        self.query_one("#raw-line-view").focus()
