"""The background work behind a recording view: the line index, then the strict reader's verdict;
for a file being followed, the index of what was appended; and the look at the file on disk twice
a second (`FileWatch`), which says when what is shown no longer describes it."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState, get_current_worker

from openprogram.recordings import stamp_of
from tui.model.file_stamp import FileWatch, FollowStep, WatchStep, recorded_into
from tui.model.recording_index import RecordingIndex

if TYPE_CHECKING:
    from tui.model.verdict import Verdict

FIRST_ROWS_WAIT = 2.0
"""The index pauses after its first batch until the screen is drawn, at most this long (seconds)."""


class RecordingLoader(Widget):
    """Indexes a recording in a thread, then has the strict reader check the whole file.

    Starts as soon as it is created, so a screen can draw the first rows in its first frame; the
    index pauses after its first batch until `screen_drawn()` is called, which gives the UI
    thread the interpreter while it draws the first rows and builds the rest of the screen (the
    call detail, its modules imported: a third of a second alone, two seconds beside the index).
    Reports flow up as messages; those about a file that is no longer as it was read (or a
    verdict asked for before following started or stopped) are dropped here.
    """

    DEFAULT_CSS = "RecordingLoader { display: none; }"

    @dataclass(eq=False)
    class IndexUpdated(Message):
        """The index published more calls (`complete` when the whole file is indexed;
        `appended` when they were appended to a followed file since it was)."""

        calls: int
        complete: bool
        fraction: float
        appended: bool = False

    @dataclass(eq=False)
    class VerdictReached(Message):
        """The strict reader finished with the whole file (`version_note`: what accept or
        rerecord made of it, and the versions kept)."""

        verdict: Verdict
        version_note: str | None = None

    @dataclass(eq=False)
    class Failed(Message):
        """Indexing or validation stopped with an error."""

        reason: str

    @dataclass(eq=False)
    class Migrated(Message):
        """A version-1 file was migrated: read it again (`note`: what was done)."""

        note: str

    @dataclass(eq=False)
    class RecordedInto(Message):
        """The configuration records into this file: it is followed, unless a key chose."""

    def __init__(self, index: RecordingIndex, file_watch: FileWatch) -> None:
        super().__init__()
        self.index = index
        self.file_watch = file_watch
        """The file on disk against what is shown (the view's: it decides with it too)."""
        self._screen_is_drawn = threading.Event()
        self._build(file_watch.following)
        self.extending = False
        """True while appended bytes are being indexed."""

    def look_at_file(self) -> WatchStep:
        """Look at the file on disk: index what was appended (followed), check it once it stops
        growing; a step the view shows (`OFFER_RELOAD`, `INVALIDATE`: its check cancelled,
        `READ_AGAIN`: the index cut short) is returned."""
        index = self.index
        now = stamp_of(index.path)
        step = self.file_watch.look(now, index.size, index.complete, self.extending)
        if step is WatchStep.EXTEND:
            self.extend()
        elif step is WatchStep.CHECK:
            self.check(following=True)
        elif step is WatchStep.READ_AGAIN:  # bytes on show are gone: read nothing past them
            index.cut_short(now.size if now is not None else 0)
        elif step is WatchStep.INVALIDATE:  # no longer followed, its check is moot
            index.growing = False
            self.cancel_check()
        return step

    def on_recording_loader_index_updated(self, message: IndexUpdated) -> None:
        if self.file_watch.stale:
            message.stop()  # indexed from a file that is no longer there as it was
        elif message.appended:
            self.file_watch.grew()  # checked once the file stops growing

    def on_recording_loader_verdict_reached(self, message: VerdictReached) -> None:
        verdict = message.verdict
        if not self.file_watch.takes_verdict(verdict.following, verdict.stopped is not None):
            message.stop()  # on a file no longer there as it was, or asked for before `f`

    def screen_drawn(self) -> None:
        """Let the index go on (the first rows and the first call are on screen); find out
        whether the configuration records into the file, when nobody chose to follow it."""
        self._screen_is_drawn.set()
        if self.file_watch.follow_default:
            self._look_for_recorder()

    @work(thread=True, exclusive=True, group="follow-default", exit_on_error=False)
    def _look_for_recorder(self) -> None:
        if recorded_into(self.index.path):
            self.post_message(self.RecordedInto())

    def toggle_follow(self) -> FollowStep:
        """`f`: follow the file, or stop and check it as a finished file (or say why not)."""
        step = self.file_watch.toggle_follow(self.index.truncated_tail)
        if step is FollowStep.REFUSED and self.file_watch.change is not None:
            notice = self.file_watch.change.notice()
            self.notify(f"The {notice}: ctrl+r reloads it.", severity="warning")
        self.index.growing = self.file_watch.following
        if step is FollowStep.STOPPED:
            self.cancel_check()
            self.check(following=False)
        return step

    @work(thread=True, exclusive=True, group="migrate", exit_on_error=False)
    def migrate(self) -> None:
        """Migrate a version-1 file to the current format, keeping the old file (`m`)."""
        from openprogram.errors import OpenProgramError
        from tui.model.call_rows import migrate_file

        try:
            done = migrate_file(self.index.path)
        except (OSError, ValueError, OpenProgramError) as exc:
            self.app.call_from_thread(self.notify, f"Not migrated: {exc}", severity="error")
            return
        self.post_message(self.Migrated(done))

    def check(self, following: bool = False) -> None:
        """Start the strict reader on the whole file (`following`: it is still being written)."""
        self._check(following)

    def cancel_check(self) -> None:
        """Stop a running check (the file changed under it)."""
        self.workers.cancel_group(self, "verdict")

    def extend(self) -> None:
        """Index what was appended to the file since (while following it)."""
        if not self.extending and self.index.complete:
            self.extending = True
            self._extend()

    def on_unmount(self) -> None:
        self._screen_is_drawn.set()
        self.workers.cancel_node(self)
        self.index.close()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def _build(self, follow: bool) -> None:
        def progress(ix: RecordingIndex) -> None:
            fraction = ix.bytes_indexed / ix.size if ix.size else 1.0
            self.post_message(self.IndexUpdated(ix.published_calls, ix.complete, fraction))
            if not self._screen_is_drawn.is_set():
                self._screen_is_drawn.wait(FIRST_ROWS_WAIT)

        self.index.build(progress, follow=follow)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def _extend(self) -> None:
        index = self.index
        try:
            index.extend()
        finally:
            self.extending = False
        if index.complete:
            self.post_message(self.IndexUpdated(index.published_calls, True, 1.0, appended=True))

    @work(thread=True, exclusive=True, group="verdict", exit_on_error=False)
    def _check(self, following: bool) -> None:
        from tui.model.state_dir import version_note
        from tui.model.verdict import check_recording

        worker = get_current_worker()
        index = self.index
        verdict = check_recording(index.path, index.size, cancelled=lambda: worker.is_cancelled)
        if verdict is not None and not worker.is_cancelled:
            note = version_note(index.path)  # the versions folder, read here: not on the UI thread
            self.post_message(self.VerdictReached(verdict.while_following(following), note))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.post_message(self.Failed(f"cannot be read: {event.worker.error}"))
