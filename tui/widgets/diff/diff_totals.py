"""The diff view's totals line: both sessions' time in the model, tokens and cost, A → B, and
where the largest changes are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from tui.theme import rich_style

if TYPE_CHECKING:  # the row models are imported once the first calls are listed
    from tui.model.diff import DiffRow


class DiffTotalsLine(Static):
    """`A → B  in the model 1.11s → 2.14s (+1.03s) · tokens 16 → 21 (+5) · cost no price ·
    ◆ biggest change: time #2 (+239ms), tokens #0 (+1)`."""

    def show_totals(self, rows: Sequence[DiffRow] | None) -> None:
        """The totals of `rows` (every answer compared); None: the answers are being compared."""
        from tui.model.diff_text import biggest_changes, diff_totals, totals_parts

        if rows is None:
            self.update(Text("A → B: comparing the answers…", "dim"))
            return
        totals = diff_totals(rows)
        shown = Text("A → B  ", "bold")
        shown.append(" · ".join(totals_parts(totals)))
        biggest = biggest_changes(rows, totals)
        if biggest:
            shown.append(" · ")
            style = rich_style(self.app.theme_variables, "bold $text-warning")
            shown.append(f"◆ biggest change: {', '.join(biggest)}", style)
        self.update(shown)
