"""Before accepting: every call whose new request would be kept, with its differences."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from openprogram.recordings.check import AcceptedCall
from openprogram.text import plural
from openprogram.visible_text import visible_line
from tui.screens.dialog import DialogScreen
from tui.theme import rich_style


def review_text(accepted: list[AcceptedCall], variables: Mapping[str, str]) -> Text:
    """Each accepted call, each differing field with the recorded and the incoming value
    (coloured with the theme's `variables`)."""
    text = Text()
    for call in accepted:
        text.append(f"call {call.call_index}\n", "bold")
        for difference in call.differences:
            text.append(f"  {visible_line(difference.field_path)}")
            if difference.absorbed_by is not None:
                rule = visible_line(difference.absorbed_by.describe())
                text.append(f"  (written too; {rule} already absorbs it)", "dim")
            text.append("\n")
            text.append("    recorded  ", "dim")
            text.append(f"{difference.recorded}\n", rich_style(variables, "$text-error"))
            text.append("    incoming  ", "dim")
            text.append(f"{difference.incoming}\n", rich_style(variables, "$text-success"))
    text.rstrip()
    return text


class AcceptReviewScreen(DialogScreen[bool]):
    """Lists what accepting writes; `y` (or the button) accepts, `n`/esc writes nothing."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Accept", id="accept-review.yes"),
        Binding("n,escape", "answer(False)", "Cancel", id="accept-review.no"),
    ]
    DEFAULT_CSS = """
    AcceptReviewScreen {
        & > Vertical { width: 110; padding: 0 1; border: thick $warning; }
        & VerticalScroll { height: auto; max-height: 20; }
        & #accept-note { color: $text-muted; margin: 1 0 0 0; }
        & Horizontal { height: auto; align-horizontal: right; }
        & Button { margin-left: 2; }
    }
    """

    def __init__(self, accepted: list[AcceptedCall], recording_name: str) -> None:
        super().__init__()
        self.accepted = accepted
        self.recording_name = recording_name

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = Text(
                visible_line(
                    f"Accept the new requests of {plural(len(self.accepted), 'call')} "
                    f"into {self.recording_name}?"
                )
            )
            with VerticalScroll():
                yield Static(
                    review_text(self.accepted, self.app.theme_variables), id="accept-review"
                )
            yield Static(
                Text(
                    "The recorded answers are kept; no call is made. The new version is checked "
                    "before it replaces the old one, which is kept (history)."
                ),
                id="accept-note",
            )
            with Horizontal():
                yield Button("Cancel (n)", id="no")
                yield Button("Accept (y)", id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
