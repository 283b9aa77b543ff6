"""How a `RowList` row becomes segments: the fast walk over its spans matches Rich's rendering."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from tui.widgets.common.row_list import row_segments

BASE = Style(color="white", bgcolor="black")
CURSOR = Style(bgcolor="blue", bold=True)


def row() -> Text:
    text = Text(" ")
    text.append("#12", Style(color="grey50"))
    text.append("  ")
    text.append("openai/gpt-4o-mini", Style(color="white"))
    text.append(" 500 ev  ")
    text.append("complete", Style(color="green", bold=True))
    text.truncate(40, overflow="ellipsis", pad=True)
    return text


def rich_segments(text: Text, line_style: Style | None) -> list[Segment]:
    text = text.copy()
    if line_style is not None:
        text.stylize(line_style)
    text.end = ""
    return [
        Segment(part.text, BASE + part.style if isinstance(part.style, Style) else BASE)
        for part in text.render(Console())
    ]


def test_a_row_reads_as_rich_renders_it() -> None:
    for line_style in (None, CURSOR, Style(bgcolor="yellow") + CURSOR):
        fast = row_segments(row(), BASE, line_style)
        assert fast is not None
        assert list(Segment.simplify(fast)) == list(
            Segment.simplify(rich_segments(row(), line_style))
        )


def test_overlapping_spans_are_left_to_rich() -> None:
    text = row()
    text.stylize(Style(italic=True), 2, 12)
    assert row_segments(text, BASE, None) is None
    styled = Text("x", style="bold")  # a style by name needs the console's theme
    assert row_segments(styled, BASE, None) is None
