"""How a `RowList` row becomes segments: the fast walk over its spans matches Rich's rendering;
and a list whose rows change while it is shown scrolls over all of them."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult

from tests.tui.pilot_support import screen_text
from tui.theme import theme_variable_defaults
from tui.widgets.common.row_list import RowList, row_segments

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


class Numbered(RowList):
    def render_row(self, row: int, width: int) -> Text:
        return Text(f"row number {row}")


class ListApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield Numbered()


async def test_a_list_grown_and_shrunk_while_shown_scrolls_over_its_rows() -> None:
    # The list's scrollbar follows its rows, not the compositor's measure of its (no) children:
    # a layout that changes neither leaves the scrollbar as it is (one frame less each time).
    app = ListApp()
    async with app.run_test(size=(40, 20)) as pilot:
        rows = app.query_one(Numbered)
        rows.focus()
        rows.set_row_count(5)
        await pilot.pause()
        assert not rows.show_vertical_scrollbar
        rows.set_row_count(500)  # the index published more calls
        await pilot.pause()
        assert rows.show_vertical_scrollbar and rows.max_scroll_y == 500 - rows.size.height
        await pilot.press("end")
        await pilot.pause()
        assert any("row number 499" in line for line in screen_text(app))
        rows.set_row_count(3)
        await pilot.pause()
        assert not rows.show_vertical_scrollbar and rows.scroll_y == 0
        assert any("row number 2" in line for line in screen_text(app))
