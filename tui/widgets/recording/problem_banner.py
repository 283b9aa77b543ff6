"""Where a damaged recording says what is wrong: line, call and reason of each problem."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.text import plural


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

    def show_problems(self, problems: tuple[RecordingFileError, ...], headline: str = "") -> None:
        """List the first problems (and how many more), under `headline` when given."""
        from openprogram.recordings import describe_problem  # only once there is a problem

        self.set_class(bool(problems), "-shown")
        lines = [headline] if headline and problems else []
        lines += [f"✗ {describe_problem(p)}" for p in problems[: self.limit]]
        if len(problems) > self.limit:
            lines.append(f"  … and {plural(len(problems) - self.limit, 'more problem')}")
        self.update(Text("\n".join(lines)))
