"""`:` — go to a call (`12`) or to an event of a call (`12.40`), from a prompt over the footer.

The prompt is part of the recording screen rather than a screen of its own, and Enter jumps at
once, inside the key's own handler: closing a modal screen repaints the whole screen below it,
and every message passed on the way gives Textual a chance to draw a frame in between; either
made the jump cost a frame more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Label

from tui.model.navigation import GotoError, GotoTarget, parse_goto
from tui.widgets.common.prompt_bar import PromptBar

GoTo = Callable[[GotoTarget], None]


class GotoField(Input):
    """The prompt's text field: Enter hands the text to `on_submit` there and then.

    Handled as the field's own key (not a priority binding, which would run before the keys typed
    just before it reach the field), and not through `Input.Submitted`, which would be one more
    message on the way.
    """

    def __init__(self, on_submit: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._on_submit = on_submit

    async def action_submit(self) -> None:
        self._on_submit(self.value)


class GotoBar(PromptBar):
    """A one-line prompt docked over the bottom rows; Enter calls back with the target."""

    HELP_TITLE: ClassVar[str] = "Go-to prompt"
    """Where its keys work, as the help names it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False, id="goto.cancel"),
    ]

    @dataclass(eq=False)
    class Closed(Message):
        """The prompt closed (after a jump, or cancelled)."""

        goto_bar: GotoBar

        @property
        def control(self) -> GotoBar:
            return self.goto_bar

    def __init__(self) -> None:
        super().__init__()
        self._go: GoTo | None = None
        self._return_focus: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Label("", id="goto-hint", classes="prompt-hint")
        # No validators, so no validation either: it would restyle the field as typing begins.
        field = GotoField(
            self._submit,
            placeholder=": 12 or 12.40",
            id="goto-input",
            compact=True,
            validate_on=(),
        )
        field.can_focus = False  # while closed, so a hidden prompt never takes the focus
        yield field

    @property
    def is_open(self) -> bool:
        """True while the prompt is shown."""
        return self.display

    def open(self, call_count: int, go: GoTo) -> None:
        """Ask for a target among `call_count` calls and pass it to `go`.

        The widget focused now gets the focus back when the prompt closes (unless `go` moved it).
        """
        self.show_hint(f"Go to a call (0–{max(call_count - 1, 0)}), or call.event like 12.40")
        field = self.query_one(Input)
        if not self.is_open:
            self._return_focus = self.screen.focused
            field.value = ""
        self._go = go
        self.display = True  # not a class: restyling the prompt would cost more than showing it
        field.can_focus = True
        self.screen.set_focus(field)

    def close(self, restore_focus: bool = True) -> None:
        """Hide the prompt; unless the focus moved meanwhile, it goes back where it was."""
        if not self.is_open:
            return
        self.display = False
        field = self.query_one(Input)
        target, self._return_focus, self._go = self._return_focus, None, None
        if (
            restore_focus
            and self.screen.focused is field
            and target is not None
            and target.is_attached
            and target.focusable
        ):
            self.screen.set_focus(target)
        field.can_focus = False
        if self.screen.focused is field:
            field.blur()
        self.post_message(self.Closed(self))

    def _submit(self, text: str) -> None:
        try:
            target = parse_goto(text)
        except GotoError as exc:
            self.show_hint(str(exc), error=True)
            return
        if self._go is not None:
            self._go(target)
        self.close()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        # Leaving the prompt for another widget (tab, a click) cancels it; losing the terminal's
        # focus (nothing focused then) does not.
        focused = self.screen.focused
        if focused is not None and focused is not self.query_one(Input):
            self.close(restore_focus=False)

    def action_cancel(self) -> None:
        self.close()
