"""The diff view's call list: one row per pair of calls, by status, listed as the indexes find
them ("… comparing") and redrawn as their requests and then their answers are compared."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.theme import rich_style

if TYPE_CHECKING:  # the row models are imported once the first calls are listed
    from tui.model.diff import DiffRow
    from tui.model.diff_text import Measure

STATUS_STYLES = {
    "same": "dim",
    "request_changed": "bold $text-warning",
    "answer_changed": "bold $text-accent",
    "both_changed": "bold $text-error",
    "only_a": "bold $text-error",
    "only_b": "bold $text-success",
}


class DiffCallList(OptionList):
    """`#3→#4  ≠ request (2 fields)  +3.10s +30 tok`, the largest changes marked `◆`."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.compared = 0
        """Options that show a compared row (the others: calls still being compared)."""
        self._width = 4
        """Of the index column."""
        self._answers_listed: set[int] = set()
        """Rows whose option shows their compared answer."""
        self._marks: dict[int, list[Measure]] = {}
        """Row number → the measures whose change is the largest there."""

    def list_found(self, found: int) -> None:
        """The indexes found `found` calls on both sides: list the new ones, "… comparing"."""
        if found <= self.option_count:
            return
        self._width = max(self._width, len(f"#{found - 1}") + 2)
        self.add_options(
            [
                Option(Text.assemble((f"{f'#{n}':<{self._width}}", "bold"), ("… comparing", "dim")))
                for n in range(self.option_count, found)
            ]
        )

    def list_rows(self, rows: Sequence[DiffRow], reset: bool, realigned: bool) -> bool:
        """Show the compared `rows` (`reset`: the final alignment; `realigned`: it paired other
        calls); True when the list was cleared and filled again."""
        from tui.model.diff_text import call_row

        cleared = reset and (realigned or self.option_count != len(rows))
        if cleared:
            self.clear_options()
            self.compared = 0
            self._answers_listed.clear()
        self._width = max((len(call_row(row)[0]) for row in rows), default=2) + 2
        for number in range(self.compared, min(len(rows), self.option_count)):
            self.replace_option_prompt_at_index(number, self._option(rows[number], number).prompt)
        first = self.option_count
        self.add_options([self._option(row, first + n) for n, row in enumerate(rows[first:])])
        self.compared = len(rows)
        return cleared

    def list_answers(
        self, rows: Sequence[DiffRow], marks: dict[int, list[Measure]] | None = None
    ) -> None:
        """Redraw the rows whose answers were compared since; with `marks` (every answer is
        compared), every row again with the largest changes marked."""
        if marks is not None:
            self._marks = marks
            self._answers_listed.clear()
        for number, row in enumerate(rows[: self.option_count]):
            if row.answer is not None and number not in self._answers_listed:
                self.replace_option_prompt_at_index(number, self._option(row, number).prompt)
                self._answers_listed.add(number)

    def move(self, step: int) -> None:
        """Move the highlight `step` rows, within the list."""
        if self.option_count:
            current = self.highlighted if self.highlighted is not None else 0
            self.highlighted = max(0, min(current + step, self.option_count - 1))

    def move_to(self, index: int) -> None:
        """Highlight row `index` (-1: the last)."""
        if self.option_count:
            self.highlighted = index % self.option_count

    def marks_of(self, number: int) -> list[Measure]:
        """The measures whose largest change is row `number`'s."""
        return self._marks.get(number, [])

    def _option(self, row: DiffRow, number: int) -> Option:
        from tui.model.diff_text import call_row, row_delta_text

        variables = self.app.theme_variables
        label, words, status = call_row(row)
        marks = self._marks.get(number)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(label, "bold")
        if marks:  # beside the index, never cut: the totals line and Answer tab say which change
            text.append("◆", rich_style(variables, "bold $text-warning"))
        text.append(" " * (self._width - len(label) - (1 if marks else 0)))
        text.append(words, rich_style(variables, STATUS_STYLES[status]))
        change = row_delta_text(row)
        if change:
            text.append("  ")
            text.append(change, "bold" if marks else "dim")
        return Option(text)
