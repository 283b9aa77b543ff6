"""The line at the top of every screen: what is shown, a few facts about it, and the mode badge."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from openprogram.visible_text import visible_line
from tui.widgets.common.mode_badge import ModeBadge


class TitleBar(Horizontal):
    """Title, muted facts (`format 1 · 5 calls · ✓ valid`), and the `ModeBadge` on the right."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        height: 1;
        background: $panel;
        /* A long name or long facts are cut with `…` and leave the facts and the badge room. */
        & > Label { text-wrap: nowrap; text-overflow: ellipsis; }
        & > #title { padding-left: 1; text-style: bold; color: $text; width: auto; max-width: 60%; }
        & > #facts { color: $text-muted; width: 1fr; padding-left: 1; }
        & > #facts.-problem { color: $text-error; }
    }
    """

    def __init__(self, title: str, facts: str = "") -> None:
        super().__init__()
        self._title = title
        self._facts = facts

    def compose(self) -> ComposeResult:
        yield Label(Text(visible_line(self._title)), id="title")
        yield Label(Text(visible_line(self._facts)), id="facts")
        yield ModeBadge()

    def set_title(self, title: str) -> None:
        """Change the title."""
        self.query_one("#title", Label).update(Text(visible_line(title)))

    def set_facts(self, facts: str, problem: bool = False) -> None:
        """Change the facts; `problem` colours them as an error."""
        label = self.query_one("#facts", Label)
        label.update(Text(visible_line(facts)))
        label.set_class(problem, "-problem")
