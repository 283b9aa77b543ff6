"""The one error of a recording file that cannot be used: where (file, line, call) and why.

Raised by the strict reader (`reader`) and by viewers indexing a file; it has a module of
its own so that catching it needs no pydantic import. `open_for_reading` is how both open a file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from openprogram.errors import OpenProgramError


class RecordingFileError(OpenProgramError, ValueError):
    """A recording file that cannot be used, with the `path`, `line_number`, `call_index`, `reason`."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        line_number: int | None,
        call_index: int | None,
        reason: str,
    ) -> None:
        self.path = Path(path)
        self.line_number = line_number
        self.call_index = call_index
        self.reason = reason
        where = f"recording file {self.path}"
        if line_number is not None:
            where += f" at line {line_number}"
        if call_index is not None:
            where += f" for call {call_index}"
        super().__init__(f"{where}: {reason}")


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
        raise RecordingFileError(target, None, None, "file not found") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            reason = "is a symlink; refusing to follow it"
            raise RecordingFileError(target, None, None, reason) from None
        raise RecordingFileError(target, None, None, f"cannot open: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise RecordingFileError(target, None, None, "not a regular file")
    return fd, info
