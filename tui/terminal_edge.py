"""The last step before the terminal: every line the app draws passes `VisibleTextFilter`.

Widgets show file text through `visible()` so that widths and wrapping are measured on what is
shown; this filter is the edge that holds when one forgets (a new widget, a new field): no control
or invisible formatting character in any line ever reaches the terminal, whatever drew it.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from openprogram.visible_text import has_hidden, visible_line


class VisibleTextFilter(LineFilter):
    """Show each control, bidi and zero-width character of a drawn line as its visible mark
    (`␛`, `<U+202E>`), keeping the line's width."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(has_hidden(text) for text, _style, control in segments if not control):
            return segments
        shown = [
            segment if segment.control else Segment(visible_line(segment.text), segment.style)
            for segment in segments
        ]
        # The layout measured these characters as zero cells wide and their marks take one or
        # more: the line is cut back to its width, so it never spills onto the next widget.
        return Segment.adjust_line_length(shown, Segment.get_line_length(segments))
