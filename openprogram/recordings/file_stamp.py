"""What a file looked like on disk: the `stat` fields that change when it is written, replaced
or cut. The summary cache trusts a cached scan only while a file's stamp is unchanged; the TUI's
recording view compares stamps to follow a file as it grows."""

from __future__ import annotations

import os
from typing import NamedTuple


class FileStamp(NamedTuple):
    """The facts `os.stat`/`os.lstat` give that change when a file is written, replaced or cut
    (a tuple, so it is stored as a JSON array)."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileStamp:
        """The stamp of a `stat` result."""
        return cls(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)

    def same_file(self, other: FileStamp) -> bool:
        """True when both stamps are of the same file (inode and device), whatever its content."""
        return (self.inode, self.device) == (other.inode, other.device)


def stamp_of(path: str | os.PathLike[str]) -> FileStamp | None:
    """The stamp of the file at `path` now; None when there is none (removed, unreadable)."""
    try:
        return FileStamp.of(os.stat(path))
    except OSError:
        return None
