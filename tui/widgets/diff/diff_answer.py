"""The answers of one pair of calls compared: the text as a word diff, tool call differences, stop
reason, error, and each number A → B, the largest changes of the whole diff marked."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from openprogram.visible_text import visible
from tui.theme import rich_style

if TYPE_CHECKING:  # the row models are imported once the first calls are listed
    from openprogram.word_diff import WordChange
    from tui.model.diff import DiffRow
    from tui.model.diff_text import Measure

HEADINGS = {"time": "Time", "usage": "Usage (tokens)", "cost": "Cost"}
"""The groups of a pair's numbers, in the order they are shown."""


class DiffAnswer(Static):
    """What changed in the answer of one row (`show_row`); "Comparing the answers…" until known."""

    def show_row(self, row: DiffRow, biggest: Collection[Measure] = ()) -> None:
        """Show `row`'s answers; `biggest`: the measures whose largest change is this row's."""
        self.update(self.answer_text(row, biggest))

    def _style(self, style: str) -> str:
        return rich_style(self.app.theme_variables, style)

    def answer_text(self, row: DiffRow, biggest: Collection[Measure] = ()) -> Text:
        """The whole answer comparison of `row`, as Rich text (file text made visible)."""
        from tui.model.diff_text import MEASURE_WORDS, delta_lines, tool_call_lines

        text = Text()
        if row.a is None or row.b is None:
            side = "A" if row.b is None else "B"
            text.append(f"This call is only in {side}.\n\n", "bold")
        answer = row.answer
        if answer is None:
            text.append("Comparing the answers…", "dim")
            return text
        if row.a is not None and row.b is not None and not answer.changed:
            text.append("The answers are the same.\n\n", "dim")
        for heading, words in (("Text", answer.text), ("Thinking", answer.thinking)):
            if words:
                text.append(f"{heading}\n", "bold")
                self._words(text, words)
        if answer.tool_calls:
            text.append("Tool calls\n", "bold")
            for path, left, right in tool_call_lines(row):
                text.append(f"  {path}\n")
                text.append(f"    A  {left}\n", self._style("$text-error"))
                text.append(f"    B  {right}\n", self._style("$text-success"))
            text.append("\n")
        for name, change in (("Stop reason", answer.stop_reason), ("Error", answer.error)):
            if change is not None:
                text.append(f"{name}  ", "bold")
                text.append(f"{change[0]} → {change[1]}\n\n")
        numbers = delta_lines(row.delta) if row.delta is not None else []
        for n, (group, heading) in enumerate(HEADINGS.items()):
            text.append(f"{chr(10) if n else ''}{heading}\n", "bold")
            for line in numbers:
                if line.group != group:
                    continue
                text.append(f"  {line.label:<12}{line.change}")
                if line.measure is not None and line.measure in biggest:
                    measure = MEASURE_WORDS[line.measure]
                    style = self._style("bold $text-warning")
                    text.append(f"  ◆ the biggest {measure} change", style)
                text.append("\n")
        return text

    @staticmethod
    def _words(text: Text, changes: tuple[WordChange, ...]) -> None:
        from openprogram.word_diff import MARKS

        styles = {"equal": "", "delete": "strike red", "insert": "underline green"}
        for change in changes:  # the answers' words are file text, laid out here
            opening, closing = MARKS[change.op]  # readable without colour, as `recordings diff`
            text.append(opening + visible(change.text) + closing, styles[change.op])
        text.append("\n\n")
