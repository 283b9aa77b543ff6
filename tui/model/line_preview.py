"""Stored lines shown as they are, before or without the strict reader's judgement: a row's
fields read as plain JSON, one line in full, and text on one line for a list row.

Building the library's pydantic row models costs more than Textual's own first paint, so the line
index and the call list read the few fields they show (type, call index, model, outcome) with the C
JSON decoder instead (`peek_row`). This decides nothing about validity: the strict reader's verdict
does. A line of a file that is not a recording is shown whole (`raw_line`), bounded; a text of any
length becomes one bounded line with its controls made visible (`preview_line`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from openprogram.providers.recording.row_encoding import ROW_TYPES
from openprogram.text import human_size, shorten
from openprogram.visible_text import visible, visible_line


def peek_row(line: bytes) -> dict[str, Any] | None:
    """The line's JSON object when it is one with a known `type`, else None."""
    try:
        row = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or hostile nesting
        return None
    if not isinstance(row, dict) or row.get("type") not in ROW_TYPES:
        return None
    return row


def int_field(row: dict[str, Any], name: str) -> int | None:
    """A non-negative integer field (not a bool), or None."""
    value = row.get(name)
    return value if type(value) is int and value >= 0 else None


def str_field(row: dict[str, Any], name: str) -> str | None:
    """A string field, or None."""
    value = row.get(name)
    return value if isinstance(value, str) else None


PREVIEW_LIMIT = 60


def preview_line(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """`text` on one line, as `visible_line` shows it (newlines as `␊`, tabs as `␉`, escapes and
    other controls as visible marks), cut to `limit` characters with an ellipsis."""
    shown = visible_line(text[: limit + 1])
    shown = "".join(ch if ch.isprintable() else f"<U+{ord(ch):04X}>" for ch in shown)
    return shorten(shown, limit)


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
