"""`:` — go to a call (`12`) or to an event of a call (`12.40`)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tui.model.navigation import GotoError, GotoTarget, parse_goto


class GotoScreen(ModalScreen[GotoTarget | None]):
    """A one-line prompt at the bottom; returns the target, or None when dismissed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_goto", "Cancel", id="goto.cancel"),
    ]
    DEFAULT_CSS = """
    GotoScreen {
        align: center bottom;
        background: $background 40%;
        & > Vertical {
            height: auto;
            width: 100%;
            padding: 0 1;
            background: $panel;
            border-top: tall $primary;
        }
        & #goto-hint { color: $text-muted; }
        & #goto-hint.-error { color: $error; }
        & Input { border: none; height: 1; padding: 0; background: $panel; }
    }
    """

    def __init__(self, call_count: int) -> None:
        super().__init__()
        self.call_count = call_count

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                f"Go to a call (0–{max(self.call_count - 1, 0)}), or call.event like 12.40",
                id="goto-hint",
            )
            yield Input(placeholder=": 12 or 12.40", id="goto-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            target = parse_goto(event.value)
        except GotoError as exc:
            hint = self.query_one("#goto-hint", Label)
            hint.update(str(exc))
            hint.add_class("-error")
            return
        self.dismiss(target)

    def action_dismiss_goto(self) -> None:
        self.dismiss(None)
