"""One stored line of a file shown in full: pretty JSON when it is JSON, else its text, bounded."""

from __future__ import annotations

import json
from dataclasses import dataclass

from openprogram.text import human_size
from openprogram.visible_text import visible

LINE_SHOWN_LIMIT = 64 * 1024
"""Bytes of one line shown at most (a line of another tool's file can be any length)."""


@dataclass(frozen=True)
class RawLine:
    """What the line view shows of one line."""

    text: str
    is_json: bool
    note: str
    """Under the text: how the line was read (JSON, text, or how much is left out)."""


def raw_line(line: bytes, number: int, limit: int = LINE_SHOWN_LIMIT) -> RawLine:
    """Line `number` (1-based, for the note) as shown: indented JSON when the whole line parses
    within `limit`, else its first `limit` bytes as text (invalid UTF-8 replaced)."""
    if len(line) <= limit:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            pass
        else:
            text = visible(json.dumps(value, indent=2, ensure_ascii=False))
            return RawLine(text, True, f"line {number} · JSON · {human_size(len(line))}")
    shown = visible(line[:limit].decode("utf-8", errors="replace"))
    note = f"line {number} · text · {human_size(len(line))}"
    if len(line) > limit:
        note += f" · first {human_size(limit)} shown"
    return RawLine(shown, False, note)
