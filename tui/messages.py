"""The message every view sends to show a call in the recording screen.

The mismatch view knows the call and the field but not the file; the screen that holds it (the
check view, the diff view) fills in `recording` and lets the message bubble on to the app, which
opens the recording screen there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from openprogram.providers.recording.differences import PathToken


@dataclass(eq=False)
class CallOpenRequested(Message):
    """Show call `call_index` of `recording` at the field `path_tokens` (or at `event_index`)."""

    call_index: int
    path_tokens: tuple[PathToken, ...] = ()
    event_index: int | None = None
    recording: Path | None = None
    """None until the screen holding the sender names its file."""
