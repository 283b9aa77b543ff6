"""A `Static` for long text that draws only the lines on screen.

Textual's `Static` wraps its text twice (once to measure its height, once to draw) and turns
every wrapped line into a strip, even when it sits in a scrolling pane that shows a screenful: a
message of 8,000 characters is about 140 lines, of which the "Message so far" pane shows 15.
`LazyStatic` wraps once per width and makes strips only for the lines Textual asks for.

It uses two of Textual's internals (`Content._wrap_and_format`, the wrapped lines' `to_strip`),
which `Content.render_strips` itself uses; `tests/tui/test_lazy_static.py` checks that the lines
drawn are the ones `Static` draws, so a Textual upgrade that changes them fails loudly.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.widgets import Static


class LazyStatic(Static):
    """`Static`, drawn line by line from one wrapping of its text per width."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wrap_visual: Content | None = None
        self._wrap_key: tuple[object, ...] | None = None
        self._wrapped: list[Any] = []
        """Textual's formatted lines (`textual.content._FormattedLine`) of `_wrap_visual`."""

    def _lines(self, width: int) -> list[Any] | None:
        """The text wrapped at `width`, or None when `Static` must draw it (not text, aligned)."""
        visual = self.visual
        styles = self.styles
        if not isinstance(visual, Content) or width <= 0 or styles.content_align != ("left", "top"):
            return None
        align, overflow = styles.text_align, styles.text_overflow
        no_wrap, line_pad = styles.text_wrap == "nowrap", styles.line_pad
        selection = self.text_selection
        key = (width, align, overflow, no_wrap, line_pad, selection)
        if visual is not self._wrap_visual or key != self._wrap_key:
            selection_style = (
                Style.from_styles(self.screen.get_component_styles("screen--selection"))
                if selection is not None
                else None
            )
            # The same call, with the same arguments, as `Content.render_strips`.
            self._wrapped = visual._wrap_and_format(
                width,
                align=align,
                overflow=overflow,
                no_wrap=no_wrap,
                line_pad=line_pad,
                tab_size=8,
                selection=selection,
                selection_style=selection_style,
                get_style=self._get_style,
            )
            self._wrap_visual, self._wrap_key = visual, key
        return self._wrapped

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        lines = self._lines(width)
        if lines is None:
            return super().get_content_height(container, viewport, width)
        return len(lines)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._lines(width)
        if lines is None:
            return super().render_line(y)
        style = self.visual_style
        if y >= len(lines):
            return Strip.blank(width, style.rich_style)
        strip = Strip(*lines[y].to_strip(style))
        if self.auto_links and not self.screen._selecting:
            strip = strip._apply_link_style(self.link_style)
        return strip
