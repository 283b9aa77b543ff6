"""The one error of a recording file that cannot be used: where (file, line, call) and why.

Raised by the strict reader (`recording_reader`) and by viewers indexing a file; it has a module of
its own so that catching it needs no pydantic import.
"""

from __future__ import annotations

import os
from pathlib import Path


class RecordingFileError(ValueError):
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
