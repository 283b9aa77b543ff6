"""The background work behind a recording view: the line index, then the strict reader's verdict;
for a file being followed, the index of what was appended."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState, get_current_worker

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
    Reports flow up as messages.
    """

    DEFAULT_CSS = "RecordingLoader { display: none; }"

    class IndexUpdated(Message):
        """The index published more calls (`complete` when the whole file is indexed;
        `appended` when they were appended to a followed file since it was)."""

        def __init__(
            self, calls: int, complete: bool, fraction: float, appended: bool = False
        ) -> None:
            super().__init__()
            self.calls, self.complete, self.fraction = calls, complete, fraction
            self.appended = appended

    class VerdictReached(Message):
        """The strict reader finished with the whole file."""

        def __init__(self, verdict: Verdict) -> None:
            super().__init__()
            self.verdict = verdict

    class Failed(Message):
        """Indexing or validation stopped with an error."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self, index: RecordingIndex, follow: bool = False) -> None:
        super().__init__()
        self.index = index
        self._screen_is_drawn = threading.Event()
        self._build(follow)
        self.extending = False
        """True while appended bytes are being indexed."""

    def screen_drawn(self) -> None:
        """Let the index go on (the first rows and the first call are on screen)."""
        self._screen_is_drawn.set()

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
        from tui.model.verdict import check_recording

        worker = get_current_worker()
        index = self.index
        verdict = check_recording(index.path, index.size, cancelled=lambda: worker.is_cancelled)
        if verdict is not None and not worker.is_cancelled:
            self.post_message(self.VerdictReached(verdict.while_following(following)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.post_message(self.Failed(f"cannot be read: {event.worker.error}"))
