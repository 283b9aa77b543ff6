"""`&` — show only the calls a filter accepts: `outcome:error model:gpt slower:2 tokens:1000`."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, Label

from tui.model.call_order import CallFilter, FilterError
from tui.widgets.common.prompt_bar import PromptBar

FILTER_HINT = (
    "Show calls: outcome:error (or failed) · model:gpt · slower:2 (s) · tokens:1000 — "
    "empty shows all"
)


class FilterBar(PromptBar):
    """A one-line prompt over the footer; Enter hands the filter to the callback."""

    HELP_TITLE: ClassVar[str] = "Filter prompt"
    """Where its keys work, as the help names it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False, id="filter.cancel"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._apply: Callable[[CallFilter], None] | None = None

    def compose(self) -> ComposeResult:
        yield Label(FILTER_HINT, id="filter-hint", classes="prompt-hint")
        yield Input(placeholder="& outcome:error slower:2", id="filter-input", compact=True)

    def open(self, current: CallFilter, apply: Callable[[CallFilter], None]) -> None:
        """Edit `current`; Enter passes the new filter to `apply`."""
        self._apply = apply
        field = self.query_one(Input)
        field.value = current.text()
        self.show_hint(FILTER_HINT)
        self.display = True
        field.focus()

    def close(self) -> None:
        self.display = False
        self._apply = None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            wanted = CallFilter.parse(event.value)
        except FilterError as exc:
            self.show_hint(str(exc), error=True)
            return
        apply = self._apply
        self.close()
        if apply is not None:
            apply(wanted)

    def action_cancel(self) -> None:
        self.close()
