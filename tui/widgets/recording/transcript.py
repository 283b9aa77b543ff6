"""A request's context read as a chat: system prompt, tools, user, assistant and tool results."""

from __future__ import annotations

from textual.containers import VerticalScroll

from tui.model.transcript import TranscriptEntry, bounded_transcript
from tui.widgets.recording.transcript_entry import TranscriptEntryBox


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

    def show_entries(self, entries: list[TranscriptEntry]) -> None:
        """Replace the transcript (its last `TRANSCRIPT_ENTRIES` turns); reuses the boxes
        already mounted."""
        entries = bounded_transcript(entries)
        boxes = list(self.query_children(TranscriptEntryBox))
        with self.app.batch_update():
            for box, entry in zip(boxes, entries, strict=False):
                box.show_entry(entry)
            if len(boxes) > len(entries):
                for box in boxes[len(entries) :]:
                    box.remove()
            else:
                self.mount_all(TranscriptEntryBox(entry) for entry in entries[len(boxes) :])
        self.scroll_home(animate=False)
