"""How recording rows are written as bytes, and read back by their type: no models, no pydantic.

Rows are compact JSON with sorted keys and UTF-8 kept as is, so `"type"` is the last key of every
row and a viewer can classify a row from its last bytes. Importing this module is cheap (the row
models in `format` are not built), so a viewer can index a file before they are.
"""

from __future__ import annotations

import json
from typing import Any

RECORDING_FORMAT_VERSION = 1
"""Bump when required fields or the meaning of request/event/call_end rows change."""

CALL_OUTCOMES: tuple[str, ...] = ("complete", "error", "cancelled", "abandoned")
ROW_TYPES: tuple[str, ...] = ("header", "request", "event", "call_end")


_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False
)
"""`json.dumps` with these options, built once: `dumps` builds a new encoder on every call."""


def encode_row(row: dict[str, Any]) -> bytes:
    """One row as stored: compact JSON, sorted keys, UTF-8 as is, ending in a newline."""
    return (_ENCODER.encode(row) + "\n").encode("utf-8")


def classify_row_tail(line: bytes) -> str | None:
    """The row type read from the last bytes of a line written by us, or None (then parse it)."""
    tail = line[-24:].rstrip(b"\r\n ")
    for kind in ROW_TYPES:
        if tail.endswith(b'"type":"' + kind.encode() + b'"}'):
            return kind
    return None
