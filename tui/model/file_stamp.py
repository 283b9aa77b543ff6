"""How a recording file has changed on disk since it was read (its `FileStamp`, from the library).

The recording view stats its file twice a second and compares: a file that grew is indexed further
(following) or offered as a reload; one that shrank, was replaced or removed says so, and what was
found about the old content (its validity) is no longer shown as true.
"""

from __future__ import annotations

import enum

from openprogram.recordings import FileStamp


class FileChange(enum.Enum):
    """How a file on disk differs from the part of it that was read."""

    SAME = "same"
    GREW = "grew"
    """Bytes were appended (what a recorder does)."""
    TOUCHED = "touched"
    """Same size, newer modification time: rewritten in place, or a write caught half-way."""
    SHRANK = "shrank"
    REPLACED = "replaced"
    """Another file now has the name (renamed over it: a new version, an edited header)."""
    REMOVED = "removed"

    @property
    def invalidates(self) -> bool:
        """True when what was read no longer describes the file (its validity is unknown)."""
        return self in (FileChange.SHRANK, FileChange.REPLACED, FileChange.REMOVED)

    def notice(self) -> str:
        """What the recording view says about it: `file was replaced on disk`."""
        return {
            FileChange.SAME: "file unchanged",
            FileChange.GREW: "file changed on disk",
            FileChange.TOUCHED: "file changed on disk",
            FileChange.SHRANK: "file was shortened on disk",
            FileChange.REPLACED: "file was replaced on disk",
            FileChange.REMOVED: "file was removed",
        }[self]


def compare(read: FileStamp, now: FileStamp | None, read_size: int | None = None) -> FileChange:
    """How `now` differs from the file as `read` (of which `read_size` bytes were read)."""
    if now is None:
        return FileChange.REMOVED
    if not read.same_file(now):
        return FileChange.REPLACED
    size = read.size if read_size is None else read_size
    if now.size < size:
        return FileChange.SHRANK
    if now.size > size:
        return FileChange.GREW
    return FileChange.TOUCHED if now.mtime_ns != read.mtime_ns else FileChange.SAME
