"""A check's verdict as a panel: the headline, the facts, and the program's last output lines
(stdout, stderr) when it failed or made fewer calls than recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from openprogram.text import plural
from tui.model.check_outcome import EXPLANATIONS, OutcomeKind, ProgramOutput

_TONE = {
    "ok": "-ok",
    "incomplete": "-warning",
    "cancelled": "-warning",
    "mismatch": "-problem",
    "position": "-problem",
    "past_end": "-problem",
    "error": "-problem",
}


class CheckOutcome(Vertical):
    """Headline coloured by the outcome, a table of facts, and a box per output stream."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"check-outcome--label"}
    DEFAULT_CSS = """
    CheckOutcome {
        height: auto;
        padding: 0 1;
        & > #outcome-headline { text-style: bold; padding: 1 0 0 0; }
        &.-ok > #outcome-headline { color: $text-success; }
        &.-warning > #outcome-headline { color: $text-warning; }
        &.-problem > #outcome-headline { color: $text-error; }
        & > #outcome-explanation { color: $text-muted; }
        & > #outcome-facts { padding: 1 0 0 0; }
        & > .check-outcome--label { color: $text-muted; }
        & > #outcome-output { display: none; height: 1fr; }
        &.-with-output { height: 1fr; }
        &.-with-output > #outcome-output { display: block; }
        & .outcome-output {
            display: none;
            height: auto;
            margin-top: 1;
            padding: 0 1;
            border: round $panel;
            border-title-color: $text-muted;
            color: $text-muted;
        }
        & #outcome-stderr { border: round $error; }
        & .outcome-output.-shown { display: block; }
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
        # The output takes the room left and shows its end: the last lines say how it ended.
        with VerticalScroll(id="outcome-output"):
            yield Static(id="outcome-stdout", classes="outcome-output")
            yield Static(id="outcome-stderr", classes="outcome-output")

    def show_outcome(
        self,
        kind: OutcomeKind,
        headline: str,
        facts: Sequence[tuple[str, str]],
        output: Sequence[ProgramOutput] = (),
        explanation: str | None = None,
    ) -> None:
        """Show an outcome (`explanation`: the sentence under the headline, else the kind's);
        each stream of `output` (the program's last lines) gets a box."""
        self.kind = kind
        for tone in set(_TONE.values()):
            self.set_class(_TONE[kind] == tone, tone)
        self.query_one("#outcome-headline", Static).update(Text(headline))
        said = EXPLANATIONS[kind] if explanation is None else explanation
        self.query_one("#outcome-explanation", Static).update(Text(said))
        table = Table.grid(padding=(0, 2))
        table.add_column(style=self.get_component_rich_style("check-outcome--label"), no_wrap=True)
        table.add_column(overflow="fold")
        for label, value in facts:
            table.add_row(label, Text(value))
        self.query_one("#outcome-facts", Static).update(table)
        streams = {shown.stream: shown.lines for shown in output}
        for stream in ("stdout", "stderr"):
            box = self.query_one(f"#outcome-{stream}", Static)
            lines = streams.get(stream, ())
            box.set_class(bool(lines), "-shown")
            box.border_title = f"{stream} · last {plural(len(lines), 'line')}"
            box.update(Text("\n".join(lines)))
        self.set_class(bool(output), "-with-output")
        scroll = self.query_one("#outcome-output", VerticalScroll)
        scroll.can_focus = bool(output)
        self.call_after_refresh(scroll.scroll_end, animate=False, immediate=True)
