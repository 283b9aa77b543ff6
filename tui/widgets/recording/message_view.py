"""An assistant message: its blocks, stop reason and token usage, with a caption saying which."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from openprogram.providers.types import AssistantMessage
from openprogram.visible_text import visible_line
from tui.model.transcript import message_entry
from tui.widgets.recording.transcript_entry import TranscriptEntryBox


def usage_line(message: AssistantMessage, stop_recorded: bool = True) -> str:
    """`stop: toolUse · tokens in 63 · out 12 · total 75 · scripted/echo-1`.

    `stop_recorded` False: the message was assembled from events, with no `done`/`error` event to
    give a stop reason (a broken stream), so none is claimed (the fold's default is `stop`)."""
    usage = message.usage
    parts = [
        f"stop: {message.stop_reason}" if stop_recorded else "stop: none recorded",
        f"tokens in {usage.input:,} · out {usage.output:,} · total {usage.total_tokens:,}",
    ]
    if usage.cache_read or usage.cache_write:
        parts.append(f"cache read {usage.cache_read:,} · write {usage.cache_write:,}")
    parts.append(f"{message.provider}/{message.model}")
    return "  ·  ".join(parts)


class MessageView(VerticalScroll):
    """Shows one assistant message (final, or as assembled so far) under a caption."""

    DEFAULT_CSS = """
    MessageView {
        height: 1fr;
        scrollbar-size-vertical: 1;
        padding: 0 1;
        & > .message-view--caption { color: $text-muted; height: auto; }
        & > .message-view--note { color: $text-warning; height: auto; }
        & > .message-view--usage { color: $text-muted; height: auto; }
        & > TranscriptEntryBox { margin: 0; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = True
        self.message: AssistantMessage | None = None
        """The message shown (None: nothing assembled yet)."""

    def compose(self) -> ComposeResult:
        yield Static("", classes="message-view--caption")
        yield Static("", classes="message-view--note")
        yield TranscriptEntryBox(role="assistant")  # the role of every message shown here
        yield Static("", classes="message-view--usage")

    def show_caption(self, caption: str) -> None:
        """Change the caption of the message shown (its numbers arrived)."""
        self.query_one(".message-view--caption", Static).update(Text(caption))

    def show_message(
        self,
        message: AssistantMessage | None,
        caption: str,
        note: str | None = None,
        in_progress: bool = False,
        stop_recorded: bool = True,
    ) -> None:
        """Show `message` (None: nothing assembled yet) with `caption` and an optional warning.

        `in_progress`: the stream has not ended at this point, so there is no stop reason or usage.
        `stop_recorded` False: the stream ended without a `done`/`error` event (`usage_line`).
        """
        self.message = message
        self.query_one(".message-view--caption", Static).update(Text(caption))
        note_line = self.query_one(".message-view--note", Static)
        note_line.update(Text(note or ""))
        note_line.display = bool(note)
        box = self.query_one(TranscriptEntryBox)
        usage = self.query_one(".message-view--usage", Static)
        box.display = usage.display = message is not None
        if message is not None:
            box.show_entry(message_entry(message, streaming=in_progress))
            line = (
                f"streaming: no stop reason or usage yet  ·  {message.provider}/{message.model}"
                if in_progress
                else usage_line(message, stop_recorded)
            )
            usage.update(Text(visible_line(line)))  # provider and model are file text
