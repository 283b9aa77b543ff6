"""A row's fields as plain JSON, for what must be on screen before the row models are built.

Building the library's pydantic row models costs more than Textual's own first paint, so the line
index and the call list read the few fields they show (type, call index, model, outcome) with the C
JSON decoder instead. This decides nothing about validity: the strict reader's verdict does.
"""

from __future__ import annotations

import json
from typing import Any

from openprogram.providers.recording.rows import ROW_TYPES


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
