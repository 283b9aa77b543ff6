"""A keyboard-and-mouse list that renders only the rows on screen (Textual's Line API).

`CallList` and `EventList` subclass it: they say how one row reads (`render_row`) and which message
a moved cursor posts; rows are rendered when they scroll into view and kept in a small cache.
"""

from __future__ import annotations

import bisect
from array import array
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.model.navigation import next_match


class RowList(ScrollView, can_focus=True):
    """A cursor over `row_count` rows, drawn one visible line at a time."""

    # Priority bindings (of the focused list only): a key moving the cursor is handled in the
    # order typed, before a key typed right after it (enter on the screen, a tab switch) runs.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "cursor_down", "Down", show=False, priority=True, id="list.down"),
        Binding("k,up", "cursor_up", "Up", show=False, priority=True, id="list.up"),
        Binding("g,home", "first", "First", show=False, priority=True, id="list.first"),
        Binding("G,end", "last", "Last", show=False, priority=True, id="list.last"),
        Binding(
            "pagedown,space",
            "page_down",
            "Page down",
            show=False,
            priority=True,
            id="list.page-down",
        ),
        Binding("pageup", "page_up", "Page up", show=False, priority=True, id="list.page-up"),
        Binding("enter,l,right", "open", "Open", show=False, priority=True, id="list.open"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "row-list--cursor",
        "row-list--cursor-blurred",
        "row-list--match",
        "row-list--empty",
    }
    DEFAULT_CSS = """
    RowList {
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
        scrollbar-size-vertical: 1;
        & > .row-list--cursor { background: $row-cursor; text-style: bold; }
        & > .row-list--cursor-blurred { background: $row-cursor-blurred; }
        & > .row-list--match { background: $warning 20%; }
        & > .row-list--empty { color: $text-muted; text-style: italic; }
        &:focus { background-tint: $foreground 3%; }
    }
    """

    cursor: reactive[int] = reactive(0, init=False)
    """The highlighted row."""

    empty_text = "nothing here"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.row_count = 0
        self.matches: array[int] = array("L")
        self._match_set: frozenset[int] = frozenset()
        self._strips: LRUCache[tuple[int, int, bool, bool, bool], Strip] = LRUCache(1024)
        self._reveal_pending = False
        """The cursor moved before the list had a size: scroll to it once it has one."""
        self._laid_out_height = 0
        """The list's height at the last layout (a shorter one scrolls to the cursor)."""
        self._laid_out_rows = Size(0, 0)
        """The virtual size (the rows) at the last layout."""
        self._base_style: Style | None = None

    # -- what subclasses provide --

    def render_row(self, row: int, width: int) -> Text:
        """The text of one row (without cursor or match styling)."""
        raise NotImplementedError

    def cursor_moved(self, row: int) -> None:
        """Called with the new cursor row; subclasses post their message."""

    def row_opened(self, row: int) -> None:
        """Called on enter or a double click."""

    # -- data --

    def set_row_count(self, count: int) -> None:
        """Show `count` rows (rows already drawn are redrawn only if they changed position)."""
        self.row_count = count
        self.virtual_size = Size(0, count)
        if count and self.cursor >= count:
            self.cursor = count - 1
        self.refresh()

    def clear_cache(self) -> None:
        """Redraw every row (after the data behind the rows changed)."""
        self._strips.clear()
        self.refresh()

    def set_matches(self, matches: array[int]) -> None:
        """Mark the rows that match a search."""
        self.matches = matches
        self._match_set = frozenset(matches)
        self.clear_cache()

    def move_to(self, row: int) -> None:
        """Put the cursor on `row` (clamped) and scroll it into view."""
        if self.row_count:
            self.cursor = max(0, min(row, self.row_count - 1))
            self._scroll_to_cursor()

    def jump_to_match(self, forward: bool = True) -> bool:
        """Move to the next (or previous) match; False when there is none."""
        found = next_match(self.matches, self.cursor, forward)
        if found is None:
            return False
        self.move_to(found)
        return True

    def match_position(self) -> tuple[int, int]:
        """(1-based number of the match at or before the cursor, number of matches)."""
        return bisect.bisect_right(self.matches, self.cursor), len(self.matches)

    # -- reactions --

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh()
        self.cursor_moved(new)

    def _scroll_to_cursor(self) -> None:
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if height <= 0:  # not laid out yet (a tab never shown): done once it has a size
            self._reveal_pending = True
            return
        self._reveal_pending = False
        # `force`: rows just added (a list grown to its cursor in the same frame) have no
        # scrollbar until the next layout, and without one Textual would not scroll at all.
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, force=True)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # Textual calls this while it lays out the screen, before it draws the frame; scrolling
        # to the cursor here (rather than on the `Resize` event, handled after the frame) puts a
        # list shown for the first time at its cursor in that first frame.
        # A list's virtual size is its rows (`set_row_count`), not what the compositor measures
        # of its children (none): compared with that, every layout of the screen redid the
        # scrollbar and drew one more frame for it (the fan-out walk: 29 frames, ~0.25 s).
        # Compared with the rows at the last layout, only a change of rows or size does.
        rows_before, self._laid_out_rows = self._laid_out_rows, self.virtual_size
        resized = super()._size_updated(size, rows_before, container_size, layout)
        # A list made shorter (a pane opened under it, the terminal resized) keeps its cursor in
        # view, as a list shown for the first time shows it.
        if self._reveal_pending or size.height < self._laid_out_height:
            self._scroll_to_cursor()
        self._laid_out_height = size.height
        return resized

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self._strips.clear()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = offset.y + self.scroll_offset.y
        if row < self.row_count:
            self.focus()
            self.move_to(row)
            if event.chain >= 2:
                self.row_opened(row)

    # -- actions --

    def action_cursor_down(self) -> None:
        self.move_to(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_to(self.cursor - 1)

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(self.row_count - 1)

    def action_page_down(self) -> None:
        self.move_to(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_page_up(self) -> None:
        self.move_to(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def action_open(self) -> None:
        if self.row_count:
            self.row_opened(self.cursor)

    # -- drawing --

    def render_lines(self, crop: Region) -> list[Strip]:
        # The base style walks up the whole DOM; once per frame, not once per row.
        self._base_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base_style = None

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        base = self.rich_style if self._base_style is None else self._base_style
        if row >= self.row_count:
            if row == 0 and self.empty_text:
                style = self.get_component_rich_style("row-list--empty")
                text = Text(f" {self.empty_text}", style=style)
                text.truncate(width, overflow="ellipsis")
                return self._strip(text, width, base)
            return Strip.blank(width, base)
        is_cursor = row == self.cursor
        key = (row, width, is_cursor, is_cursor and self.has_focus, row in self._match_set)
        strip = self._strips.get(key)
        if strip is None:
            text = self.render_row(row, width)
            text.no_wrap = True
            text.truncate(width, overflow="ellipsis", pad=True)
            line_style = self.get_component_rich_style("row-list--match") if key[4] else None
            if is_cursor:
                name = "row-list--cursor" if self.has_focus else "row-list--cursor-blurred"
                cursor_style = self.get_component_rich_style(name)
                line_style = cursor_style if line_style is None else line_style + cursor_style
            strip = self._strip(text, width, base, line_style)
            self._strips[key] = strip
        return strip

    def _strip(self, text: Text, width: int, base: Style, line_style: Style | None = None) -> Strip:
        """`text` over `base`, with `line_style` over the whole row."""
        segments = row_segments(text, base, line_style)
        if segments is None:  # overlapping spans: let Rich work out the styles
            if line_style is not None:
                text.stylize(line_style)
            text.end = ""
            segments = [
                Segment(part.text, base + part.style if isinstance(part.style, Style) else base)
                for part in text.render(self.app.console)
            ]
        return Strip(segments).crop_extend(0, width, base)


def row_segments(text: Text, base: Style, line_style: Style | None) -> list[Segment] | None:
    """The segments of a row built by appending styled pieces, or None for any other `Text`.

    `Text.render` works out overlapping spans; a row's spans never overlap, and walking them in
    order costs a third as much (a jump draws some 50 new rows in one frame).
    """
    if not isinstance(text.style, Style) and text.style:
        return None
    plain = text.plain
    outer = base + text.style if isinstance(text.style, Style) else base
    last = Style() if line_style is None else line_style
    segments: list[Segment] = []
    position = 0
    for span in sorted(text.spans, key=lambda span: span.start):
        if span.start < position or not isinstance(span.style, Style):
            return None
        if span.start > position:
            segments.append(Segment(plain[position : span.start], outer + last))
        if span.end > span.start:
            segments.append(Segment(plain[span.start : span.end], outer + span.style + last))
        position = span.end
    if position < len(plain):
        segments.append(Segment(plain[position:], outer + last))
    return segments
