"""A request's context read as a chat: system prompt, tools, user, assistant and tool results."""

from __future__ import annotations

from textual.containers import VerticalScroll

from tui.model.transcript import TranscriptEntry, bounded_transcript
from tui.widgets.recording.transcript_entry import TranscriptEntryBox

MOUNT_BATCH = 8
"""Boxes mounted at a time: a transcript mounts what fills its pane and one more screen below,
and the next boxes as the reader scrolls towards them (or all at once on End), so showing a
call costs what the pane shows, not every turn of its request."""


class Transcript(VerticalScroll):
    """The conversation sent in one call, one box per turn."""

    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        scrollbar-size-vertical: 1;
        padding: 0 1;
        border: round $panel;
        border-title-color: $text-muted;
        &:focus-within { border: round $primary; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Transcript"
        self.can_focus = True
        self.entries: list[TranscriptEntry] = []
        """Every turn the transcript shows (bounded); the first `mounted` of them have a box."""
        self.mounted = 0
        """How many turns have a box (the rest are mounted on scroll or End)."""

    def on_mount(self) -> None:
        self.watch(self, "scroll_y", self._fill, init=False)

    def show_entries(self, entries: list[TranscriptEntry]) -> None:
        """Replace the transcript (its last `TRANSCRIPT_ENTRIES` turns); reuses the boxes
        already mounted, and mounts boxes only for the turns near the pane."""
        self.entries = bounded_transcript(entries)
        boxes = list(self.query_children(TranscriptEntryBox))
        shown = min(len(self.entries), MOUNT_BATCH)
        with self.app.batch_update():
            for box, entry in zip(boxes, self.entries[:shown], strict=False):
                box.show_entry(entry)
            if len(boxes) > shown:
                self.remove_children(boxes[shown:])
            else:
                self.mount_all(
                    TranscriptEntryBox(entry) for entry in self.entries[len(boxes) : shown]
                )
        self.mounted = shown
        self.scroll_home(animate=False)
        self.call_after_refresh(self._fill)

    def _mount_more(self, count: int) -> None:
        more = self.entries[self.mounted : self.mounted + count]
        if more:
            self.mount_all(TranscriptEntryBox(entry) for entry in more)
            self.mounted += len(more)

    def _fill(self) -> None:
        """Mount the next boxes while what is mounted ends less than a screen below the view."""
        if (
            self.mounted < len(self.entries)
            and self.max_scroll_y - self.scroll_y < self.size.height
        ):
            self._mount_more(MOUNT_BATCH)
            self.call_after_refresh(self._fill)

    def on_resize(self) -> None:
        self._fill()

    def action_scroll_end(self) -> None:
        """End: the last turn, every box mounted first."""
        self._mount_more(len(self.entries))
        super().action_scroll_end()
