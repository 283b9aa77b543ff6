"""A rerun's verdict as a panel: the headline, the facts, and the program's stderr when it failed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.model.rerun import EXPLANATIONS, OutcomeKind

_TONE = {
    "ok": "-ok",
    "incomplete": "-warning",
    "cancelled": "-warning",
    "mismatch": "-problem",
    "position": "-problem",
    "past_end": "-problem",
    "error": "-problem",
}


class RerunOutcome(Vertical):
    """Headline coloured by the outcome, a table of facts, and an optional block of stderr lines."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"rerun-outcome--label"}
    DEFAULT_CSS = """
    RerunOutcome {
        height: auto;
        padding: 0 1;
        & > #outcome-headline { text-style: bold; padding: 1 0 0 0; }
        &.-ok > #outcome-headline { color: $success; }
        &.-warning > #outcome-headline { color: $warning; }
        &.-problem > #outcome-headline { color: $error; }
        & > #outcome-explanation { color: $text-muted; }
        & > #outcome-facts { padding: 1 0 0 0; }
        & > .rerun-outcome--label { color: $text-muted; }
        & > #outcome-stderr {
            display: none;
            margin-top: 1;
            padding: 0 1;
            border: round $error;
            border-title-color: $text-muted;
            color: $text-muted;
        }
        & > #outcome-stderr.-shown { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kind: OutcomeKind | None = None
        """The outcome shown."""

    def compose(self) -> ComposeResult:
        yield Static(id="outcome-headline")
        yield Static(id="outcome-explanation")
        yield Static(id="outcome-facts")
        yield Static(id="outcome-stderr")

    def show_outcome(
        self,
        kind: OutcomeKind,
        headline: str,
        facts: Sequence[tuple[str, str]],
        stderr_tail: Sequence[str] = (),
    ) -> None:
        """Show an outcome; `stderr_tail` (the program's last lines) gets a box of its own."""
        self.kind = kind
        for tone in set(_TONE.values()):
            self.set_class(_TONE[kind] == tone, tone)
        self.query_one("#outcome-headline", Static).update(Text(headline))
        self.query_one("#outcome-explanation", Static).update(Text(EXPLANATIONS[kind]))
        table = Table.grid(padding=(0, 2))
        table.add_column(style=self.get_component_rich_style("rerun-outcome--label"), no_wrap=True)
        table.add_column(overflow="fold")
        for label, value in facts:
            table.add_row(label, Text(value))
        self.query_one("#outcome-facts", Static).update(table)
        stderr = self.query_one("#outcome-stderr", Static)
        stderr.set_class(bool(stderr_tail), "-shown")
        stderr.border_title = f"stderr · last {len(stderr_tail)} lines"
        stderr.update(Text("\n".join(stderr_tail)))
