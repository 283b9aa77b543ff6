"""What one strict-reader scan of a file found, as facts every view shares.

`RecordingScan.facts()` produces them; `recordings status`, `list`, `show`, the summary cache and
the TUI's verdict all read this one type (JSON-safe, so it crosses processes and sits in a cache).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

MAX_PROBLEMS = 1000
"""At most this many problems are kept (`problem_count` still counts them all)."""
UNFINISHED_CALL_REASON = "call has no call_end (the recording stopped during this call)"
TRUNCATED_LAST_LINE_REASON = "last line is truncated (no newline at the end)"
WRITE_IN_PROGRESS_REASONS = frozenset({UNFINISHED_CALL_REASON, TRUNCATED_LAST_LINE_REASON})
"""What the strict reader also says of a file a recorder is still writing (a view following
it shows these as a call in progress, not as damage)."""


class ScanProblem(BaseModel):
    """One problem the strict reader found: where (line, call) and why."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    line_number: int | None
    call_index: int | None
    reason: str

    def describe(self) -> str:
        """`line 7, call 1: event indexes must be contiguous` (no path)."""
        where = []
        if self.line_number is not None:
            where.append(f"line {self.line_number}")
        if self.call_index is not None:
            where.append(f"call {self.call_index}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason

    @property
    def write_in_progress(self) -> bool:
        """True for a call without `call_end` or a last line without newline: what a file that
        is still being written looks like, as well as one whose writer stopped."""
        return self.reason in WRITE_IN_PROGRESS_REASONS


class ScanFacts(BaseModel):
    """A file's totals and validity: whole calls and their events, and every problem found."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    size: int
    created_at: str | None = None
    """The header's `created_at` when it is an ISO-8601 timestamp."""
    format_version: int | None = None
    calls: int = 0
    """Whole calls (a damaged or unfinished call is not counted)."""
    events: int = 0
    unfinished_calls: tuple[int, ...] = ()
    problems: tuple[ScanProblem, ...] = ()
    problem_count: int = 0

    @classmethod
    def refused(cls, size: int, reason: str) -> ScanFacts:
        """The facts of a file that could not be read at all (missing, not regular, ...)."""
        problem = ScanProblem(line_number=None, call_index=None, reason=reason)
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
