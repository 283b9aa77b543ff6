"""The one problem type of a recording file: where (line, call) and why, as a value
(`RecordingProblem`, what a tolerant scan lists and every view shows) and as the error
(`RecordingFileError`, the problem with its file, raised by the strict reader and by viewers
indexing a file). `open_for_reading` is how both open a file. No pydantic here: catching the
error or reading a problem does not import the row models.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from openprogram.errors import OpenProgramError

MISSING = "file not found"
SYMLINK = "is a symlink; refusing to follow it"
NOT_REGULAR = "is not a regular file"
"""The file policy's words (`file_policy`) for a file that cannot be a recording at all."""
UNFINISHED_CALL_REASON = "call has no call_end (the recording stopped during this call)"
TRUNCATED_LAST_LINE_REASON = "last line is truncated (no newline at the end)"
WRITE_IN_PROGRESS_REASONS = frozenset({UNFINISHED_CALL_REASON, TRUNCATED_LAST_LINE_REASON})
"""What the strict reader also says of a file a recorder is still writing (a view following
it shows these as a call in progress, not as damage)."""


@dataclass(frozen=True)
class RecordingProblem:
    """One problem the strict reader found: where (line, call) and why.

    A plain dataclass, so this module loads without pydantic (the TUI draws its first screen
    before the row models are imported); the pydantic models that hold it (`ScanFacts`) validate
    and serialise it as they would a model."""

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


class RecordingFileError(OpenProgramError, ValueError):
    """A recording file that cannot be used: its `path` and its `problem` (also read as
    `line_number`, `call_index`, `reason`)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        line_number: int | None,
        call_index: int | None,
        reason: str,
    ) -> None:
        self.path = Path(path)
        self.problem = RecordingProblem(
            line_number=line_number, call_index=call_index, reason=reason
        )
        where = f"recording file {self.path}"
        if line_number is not None:
            where += f" at line {line_number}"
        if call_index is not None:
            where += f" for call {call_index}"
        super().__init__(f"{where}: {reason}")

    @property
    def line_number(self) -> int | None:
        """The 1-based line of the problem, when it has one."""
        return self.problem.line_number

    @property
    def call_index(self) -> int | None:
        """The call the problem is in, when it is in one."""
        return self.problem.call_index

    @property
    def reason(self) -> str:
        """Why the file cannot be used, in one line."""
        return self.problem.reason


def open_for_reading(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the recording at `path` and its `fstat`.

    Refuses a missing file, a symlink and anything not a regular file (a directory, a FIFO,
    which would block) with a `RecordingFileError`; the caller closes the descriptor. This is
    the file policy (`file_policy`) checked on the open descriptor itself, so no swap of the path
    between a check and the open can lead the reader elsewhere.
    """
    target = Path(path)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise RecordingFileError(target, None, None, MISSING) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RecordingFileError(target, None, None, SYMLINK) from None
        raise RecordingFileError(target, None, None, f"cannot open: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise RecordingFileError(target, None, None, NOT_REGULAR)
    return fd, info
