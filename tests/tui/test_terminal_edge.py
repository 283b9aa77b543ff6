"""`VisibleTextFilter`, the step every drawn line passes: no control or invisible formatting
character is left in a line, and the line keeps its width (the layout measured it)."""

from __future__ import annotations

from rich.segment import ControlType, Segment
from rich.style import Style
from textual.color import Color

from tui.terminal_edge import VisibleTextFilter

BLACK = Color(0, 0, 0)
HIDDEN = [chr(code) for code in [*range(0x20), *range(0x7F, 0xA0), 0x200B, 0x202E, 0x2066, 0xFEFF]]


def test_every_control_and_invisible_character_becomes_a_mark_and_the_width_is_kept() -> None:
    bold = Style(bold=True)
    for char in HIDDEN:
        line = [Segment("│ ab", bold), Segment(f"c{char}]0;x", None), Segment(" " * 12 + "│")]
        width = Segment.get_line_length(line)
        shown = VisibleTextFilter().apply(line, BLACK)
        text = "".join(segment.text for segment in shown)
        assert char not in text, repr(char)
        assert text.startswith("│ abc") and "]0;x" in text, repr(text)
        assert Segment.get_line_length(shown) == width
        assert shown[0].style == bold  # styles are kept


def test_a_line_of_plain_text_is_passed_as_it_is() -> None:
    line = [Segment("│ héllo wörld ", Style(italic=True)), Segment("✓ →  │")]
    assert VisibleTextFilter().apply(line, BLACK) is line


def test_control_segments_the_app_makes_are_left_alone() -> None:
    move = Segment("\x1b[2;1H", None, [(ControlType.CURSOR_MOVE_TO, 1, 2)])
    line = [move, Segment("a\x1bb")]
    shown = VisibleTextFilter().apply(line, BLACK)
    assert shown[0] is move
    assert "\x1b" not in shown[1].text
