"""While a check runs: how many recorded calls the program has consumed so far, and how to stop."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from openprogram.text import plural


class CheckProgressBar(Vertical):
    """`replaying: 1/2 calls consumed` with a bar; `cancelling…` once esc was pressed."""

    DEFAULT_CSS = """
    CheckProgressBar {
        height: auto;
        padding: 1 1;
        & > #check-progress-text { color: $text; }
        & > #check-progress-hint { color: $text-muted; }
        & > ProgressBar { padding: 1 0; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("starting the program…"), id="check-progress-text")
        yield ProgressBar(show_eta=False, id="check-progress-bar")
        yield Static(Text("esc cancels (the program is stopped)"), id="check-progress-hint")

    run = ""
    """`run 2 of 3 · ` while `check --runs` runs the program again."""

    def show_run(self, number: int, runs: int) -> None:
        """Run `number` of `runs` started."""
        self.run = f"run {number} of {runs} · "
        self.query_one(ProgressBar).update(progress=0)
        self.query_one("#check-progress-text", Static).update(
            Text(f"{self.run}starting the program…")
        )

    def show_progress(self, consumed: int, recorded: int) -> None:
        """`consumed` of `recorded` calls replayed so far."""
        self.query_one(ProgressBar).update(total=max(recorded, 1), progress=consumed)
        self.query_one("#check-progress-text", Static).update(
            Text(f"{self.run}replaying: {consumed}/{plural(recorded, 'call')} consumed")
        )

    def show_cancelling(self) -> None:
        """Say that the run is being stopped."""
        self.query_one("#check-progress-hint", Static).update(Text("cancelling…"))
