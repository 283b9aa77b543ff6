"""`LazyStatic` draws exactly what `Static` draws, line for line, at any width."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.widgets.common.lazy_static import LazyStatic


def long_text() -> Text:
    text = Text()
    for number in range(12):
        text.append(f"part {number}  ", "bold")
        text.append("thinking " * 7, "italic dim")
        text.append("a longish sentence with wide 漢字 characters, tabs\tand words " * 4)
        text.append("\n\n" if number % 3 else "\n")
    text.append("→ echo (call_1)\n", "bold")
    text.append('{\n  "text": "ping"\n}')
    return text


class Pair(App[None]):
    CSS = """
    VerticalScroll > * { height: auto; padding: 0 1; border: round $accent; }
    """

    def __init__(self, text: Text, width: int) -> None:
        super().__init__()
        self.text = text
        self.width = width

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield LazyStatic(self.text, id="lazy")
            yield Static(self.text, id="plain")

    def on_mount(self) -> None:
        for widget in self.query("VerticalScroll > *"):
            widget.styles.width = self.width


@pytest.mark.parametrize("width", [12, 41, 80])
async def test_lines_and_height_match_static(width: int) -> None:
    app = Pair(long_text(), width)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        lazy, plain = app.query_one("#lazy", LazyStatic), app.query_one("#plain", Static)
        assert lazy.size == plain.size and lazy.size.height > 30
        assert lazy._wrap_key is not None  # drawn from its own wrapping, not by Static
        assert [lazy.render_line(y) for y in range(lazy.size.height + 1)] == [
            plain.render_line(y) for y in range(plain.size.height + 1)
        ]


async def test_new_text_is_wrapped_again() -> None:
    app = Pair(long_text(), 41)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        lazy, plain = app.query_one("#lazy", LazyStatic), app.query_one("#plain", Static)
        for widget in (lazy, plain):
            widget.update(Text("short now", "bold"))
        await pilot.pause()
        assert lazy.size.height == plain.size.height == 1
        assert lazy.render_line(0) == plain.render_line(0)
        assert lazy.render_line(0).text.startswith("short now")
