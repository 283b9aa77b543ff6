"""How a recording file has changed on disk since it was read (its `FileStamp`, from the library),
and what the recording view does about it (`FileWatch`).

The recording view stats its file twice a second and compares: a file that grew is indexed further
(following) or offered as a reload; one that shrank, was replaced or removed says so, and what was
found about the old content (its validity) is no longer shown as true.
"""

from __future__ import annotations

import enum
import os
from pathlib import Path

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


LOOK_SECONDS = 0.5
"""How often the recording view stats the file for changes (a change is noticed within a second)."""


class WatchStep(enum.Enum):
    """What the view does after a look at the file (`FileWatch.look`)."""

    NOTHING = "nothing"
    EXTEND = "extend"
    """Followed, and bytes were appended: index them."""
    CHECK = "check"
    """Followed, and it stopped growing since it last grew: check it now."""
    OFFER_RELOAD = "offer reload"
    """Not followed, and it changed: say so, offer `ctrl+r` and `f` (said once)."""
    INVALIDATE = "invalidate"
    """Replaced or removed: what is shown is what was read; its verdict is dropped, following stops."""
    READ_AGAIN = "read again"
    """Shortened: bytes on show are gone, read it again (followed if it was, `reload_follows`)."""


class FollowStep(enum.Enum):
    """What `f` did (`FileWatch.toggle_follow`)."""

    REFUSED = "refused"
    """The file is no longer the one read: only a reload helps."""
    STARTED = "started"
    STOPPED = "stopped"
    READ_AGAIN = "read again"
    """Its last line was read as cut off: read it again, followed."""


class FileWatch:
    """The file-watch state of one recording view, without Textual: told the file's stamp at each
    look, it answers extend, check, offer a reload, invalidate or read again."""

    def __init__(self, follow: bool | None, reloaded_because: FileChange | None = None) -> None:
        """`follow`: follow from the start; None lets `recording_into` decide (`follows_by_default`).
        `reloaded_because`: the view replaces one of the same file that changed so."""
        self.following = bool(follow)
        """True while what is appended to the file is indexed and shown as it comes."""
        self.follow_default = follow is None
        """Nobody chose yet: the configuration's recording target decides."""
        self.seen: FileStamp | None = None
        """The file as last looked at (when it grew, what was indexed next came from it)."""
        self.change: FileChange | None = None
        """How the file on disk differs from what is shown, when it does."""
        self.verdict_due = False
        """Followed, it grew since the last check: check once it stops growing."""
        self.follow_on_reload = False
        """Followed until the file changed under it: the reload follows it again."""
        self.reload_note = (
            f"{reloaded_because.notice()} — read again" if reloaded_because is not None else None
        )

    @property
    def stale(self) -> bool:
        """What is shown no longer describes the file (replaced, removed, shortened)."""
        return self.change is not None and self.change.invalidates

    @property
    def reload_follows(self) -> bool:
        """A reload follows the file: it is followed, or was until it changed under the view."""
        return self.following or self.follow_on_reload

    @property
    def follows_by_default(self) -> bool:
        """Nobody chose to follow or not: start following (the file is being recorded into)."""
        return self.follow_default and not self.following

    def look(
        self, now: FileStamp | None, read_size: int, indexed: bool, extending: bool = False
    ) -> WatchStep:
        """The file is `now` (None: gone); `read_size` bytes of it were read, all of it as opened
        once `indexed`; `extending` while appended bytes are being indexed."""
        if self.seen is None or self.stale:
            return WatchStep.NOTHING  # said once; nothing shown describes the file until a reload
        change = compare(self.seen, now, read_size)
        if change is FileChange.SHRANK:
            return WatchStep.READ_AGAIN
        if not indexed:
            return WatchStep.NOTHING  # the rest is looked at once the file as opened is indexed
        if change.invalidates:
            self.change, self.follow_on_reload, self.following = change, self.following, False
            return WatchStep.INVALIDATE
        if change is FileChange.SAME:
            if self.following and self.verdict_due and not extending:
                self.verdict_due = False
                return WatchStep.CHECK
            return WatchStep.NOTHING
        if self.following:
            self.seen = now
            return WatchStep.EXTEND if change is FileChange.GREW else WatchStep.NOTHING
        if self.change is None:
            self.change = change
            return WatchStep.OFFER_RELOAD
        return WatchStep.NOTHING

    def toggle_follow(self, truncated_tail: bool = False) -> FollowStep:
        """`f`: follow the file, or stop (`truncated_tail`: its last line was read cut off)."""
        self.follow_default = False  # chosen now: the configuration no longer decides
        if self.stale:
            return FollowStep.REFUSED
        if self.following:
            self.following = False
            return FollowStep.STOPPED
        if truncated_tail:
            return FollowStep.READ_AGAIN
        self.change, self.following, self.verdict_due = None, True, True
        return FollowStep.STARTED

    def grew(self) -> None:
        """Appended calls were indexed: check the file once it stops growing."""
        self.verdict_due = True

    def takes_verdict(self, following: bool, stopped: bool) -> bool:
        """A check finished (`following`: run on a growing file; `stopped`: it changed under the
        check): True when it describes the file as shown now."""
        if self.stale or following != self.following:
            return False  # the file is gone as read, or following started or stopped since
        if stopped and self.following:
            self.verdict_due = True  # the file grew while it was read: again once it stops
        return True

    def notice(self) -> str | None:
        """The line under the title when the file is not followed: how it changed and the keys."""
        if self.change is None:
            return self.reload_note
        if self.change.invalidates:
            return f"{self.change.notice()} — what is shown is what was read · ctrl+r reloads"
        return f"{self.change.notice()} — ctrl+r reloads · f follows"


def recorded_into(path: Path) -> bool:
    """The configuration records into `path` now (its view follows it without being asked)."""
    from openprogram.recordings import recording_into

    target = recording_into()
    try:
        return target is not None and os.path.samefile(target, path)
    except OSError:
        return False
