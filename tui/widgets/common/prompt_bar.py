"""A one-line prompt docked over the footer: a hint line above a compact text field.

The go-to prompt (`:`) and the call filter (`&`) are both this; each keeps its own field and what
Enter does with it.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Label


class PromptBar(Vertical):
    """The look of a docked prompt and its hint (`show_hint`); hidden until opened."""

    DEFAULT_CSS = """
    PromptBar {
        dock: bottom;
        layer: prompt;
        display: none;
        height: auto;
        width: 100%;
        padding: 0 1;
        background: $panel;
        border-top: tall $primary;
        & > .prompt-hint { color: $text-muted; }
        & > .prompt-hint.-error { color: $text-error; }
        & > Input { background: $panel; }
    }
    """

    def show_hint(self, text: str, *, error: bool = False) -> None:
        """Say `text` above the field (in the error colour when `error`)."""
        hint = self.query_one(".prompt-hint", Label)
        hint.update(text)
        hint.set_class(error, "-error")
