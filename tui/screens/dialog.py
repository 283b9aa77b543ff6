"""The frame every small dialog shares: a panel in the middle of a dimmed screen, 100 columns at
most, never wider or taller than the terminal (80x24 included)."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")


class DialogScreen(ModalScreen[ResultType]):
    """A modal whose first child (a `Vertical`) is the dialog's panel; subclasses add their
    padding and their own parts' styles."""

    DEFAULT_CSS = """
    DialogScreen {
        align: center middle;
        background: $background 50%;
        & > Vertical {
            width: 100;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            background: $panel;
            border: thick $primary;
            border-title-color: $text;
        }
    }
    """
