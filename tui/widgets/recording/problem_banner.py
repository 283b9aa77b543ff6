"""Where a damaged recording says what is wrong: line, call and reason of each problem."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from openprogram.text import plural

if TYPE_CHECKING:
    from openprogram.providers.recording.errors import RecordingProblem


class ProblemBanner(Static):
    """The strict reader's problems (hidden while there are none), at most `limit` listed."""

    DEFAULT_CSS = """
    ProblemBanner {
        height: auto;
        display: none;
        padding: 0 1;
        color: $text;
        background: $error 20%;
        border-left: thick $error;
        &.-shown { display: block; }
    }
    """

    def __init__(self, *, limit: int = 2, id: str | None = None) -> None:
        super().__init__(id=id)
        self.limit = limit

    def show_problems(self, problems: tuple[RecordingProblem, ...], headline: str = "") -> None:
        """List the first problems (and how many more), under `headline` when given."""

        self.set_class(bool(problems), "-shown")
        lines = [headline] if headline and problems else []
        lines += [f"✗ {p.describe()}" for p in problems[: self.limit]]
        if len(problems) > self.limit:
            lines.append(f"  … and {plural(len(problems) - self.limit, 'more problem')}")
        self.update(Text("\n".join(lines)))
