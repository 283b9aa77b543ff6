"""What one strict-reader scan of a file found, as facts every view shares.

`RecordingScan.facts` holds them; `recordings status`, `list`, `show`, the summary cache and
the TUI's verdict all read this one type (JSON-safe, so it crosses processes and sits in a cache),
and say its totals and validity in the words it gives (`totals()`, `validity()`), so a file has
the same numbers and the same word everywhere.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from openprogram.providers.recording.errors import RecordingProblem
from openprogram.text import plural

MAX_PROBLEMS = 1000
"""At most this many problems are kept (`problem_count` still counts them all)."""
VALID = "valid"
INVALID = "invalid"
"""The two words for what the strict reader says of a file, in every view."""


class ScanFacts(BaseModel):
    """A file's totals and validity: the calls and events found, and every problem found."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    size: int
    created_at: str | None = None
    """The header's `created_at` when it is an ISO-8601 timestamp."""
    format_version: int | None = None
    calls: int = 0
    """Calls found: every request row read, whole or not (see `totals`)."""
    events: int = 0
    """Event rows found in those calls (also in an unfinished or damaged one)."""
    unfinished_calls: tuple[int, ...] = ()
    problems: tuple[RecordingProblem, ...] = ()
    problem_count: int = 0

    @classmethod
    def refused(cls, size: int, reason: str) -> ScanFacts:
        """The facts of a file that could not be read at all (missing, not regular, ...)."""
        problem = RecordingProblem(line_number=None, call_index=None, reason=reason)
        return cls(size=size, problems=(problem,), problem_count=1)

    @property
    def valid(self) -> bool:
        """True when the strict reader accepts the file."""
        return self.problem_count == 0

    @property
    def reason(self) -> str | None:
        """The first problem on one line, when the file is not valid."""
        return self.problems[0].describe() if self.problems else None

    def damaged_calls(self) -> frozenset[int]:
        """Call indexes that any problem names."""
        return frozenset(p.call_index for p in self.problems if p.call_index is not None)

    def calls_text(self) -> str:
        """`4 calls (1 unfinished)`: the calls found, and how many of them are not whole."""
        unfinished = len(self.unfinished_calls)
        damaged = len(self.damaged_calls() - set(self.unfinished_calls))
        notes = [
            f"{count} {word}"
            for count, word in ((unfinished, "unfinished"), (damaged, "damaged"))
            if count
        ]
        return plural(self.calls, "call") + (f" ({', '.join(notes)})" if notes else "")

    def totals(self, separator: str = ", ") -> str:
        """`4 calls (1 unfinished), 86 events`: what every view says of a file's size in calls."""
        return f"{self.calls_text()}{separator}{plural(self.events, 'event')}"

    @property
    def validity_word(self) -> str:
        """`valid` or `invalid`."""
        return VALID if self.valid else INVALID

    def validity(self) -> str:
        """`valid`, or `invalid: line 95: last line is truncated (+1 more)`."""
        if self.valid:
            return VALID
        more = f" (+{self.problem_count - 1} more)" if self.problem_count > 1 else ""
        return f"{INVALID}: {self.reason}{more}"
