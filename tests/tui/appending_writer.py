"""A writer in another process that appends bytes to a recording when the test says so.

The test sends each chunk down a pipe; the child appends it with one `write` and answers once it
is on disk, so a test knows exactly what the file holds without sleeping.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path
from types import TracebackType

CHILD = """
import base64, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
for line in sys.stdin:
    data = base64.b64decode(line)
    while data:
        data = data[os.write(fd, data):]
    print("appended", flush=True)
"""


class AppendingWriter:
    """`with AppendingWriter(path) as writer: writer.append(rows)`: a child appends `rows`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._child: subprocess.Popen[str] | None = None

    def __enter__(self) -> AppendingWriter:
        self._child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(self.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self

    def append(self, data: bytes) -> None:
        """Have the child append `data`; returns once it is written."""
        child = self._child
        assert child is not None and child.stdin is not None and child.stdout is not None
        child.stdin.write(base64.b64encode(data).decode() + "\n")
        child.stdin.flush()
        assert child.stdout.readline() == "appended\n"

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        child = self._child
        if child is not None:
            assert child.stdin is not None
            child.stdin.close()
            child.wait(timeout=10)
