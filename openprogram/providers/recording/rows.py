"""How recording rows are written as bytes, and read back by their type: no models, no pydantic.

Rows are compact JSON with sorted keys and UTF-8 kept as is, so `"type"` is the last key of every
row and a viewer can classify a row from its last bytes. Importing this module is cheap (the row
models in `format` are not built), so a viewer can index a file before they are.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

RECORDING_FORMAT_VERSION = 1
"""Bump when required fields or the meaning of request/event/call_end rows change."""

CALL_OUTCOMES: tuple[str, ...] = ("complete", "error", "cancelled", "abandoned")
ROW_TYPES: tuple[str, ...] = ("header", "request", "event", "call_end")


def _make_encoder() -> Callable[[Any], str]:
    """`json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`, made once.

    `json.dumps` with options builds a new encoder on every call, which costs more than encoding a
    small row; this one is built once. Same output byte for byte. (Rows are never circular, so the
    encoder keeps no markers: a shared markers dict would not be safe across threads.)
    """
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    encoder = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if c_make_encoder is None:  # pragma: no cover - CPython always has the C encoder
        return encoder.encode
    iterencode = c_make_encoder(
        None, encoder.default, json.encoder.encode_basestring, None, ":", ",", True, False, True
    )

    def encode(value: Any) -> str:
        return "".join(iterencode(value, 0))

    return encode


encode_json: Callable[[Any], str] = _make_encoder()
"""A value as rows store it: compact JSON text with sorted keys and UTF-8 kept as is."""

encode_string: Callable[[str], str] = json.encoder.encode_basestring
"""`encode_json` of one string: the very function its encoder uses for strings."""


def encode_row(row: dict[str, Any]) -> bytes:
    """One row as stored: compact JSON, sorted keys, UTF-8 as is, ending in a newline."""
    return (encode_json(row) + "\n").encode("utf-8")


def encode_event_row(call_index: int, event_index: int, event_json: str) -> bytes:
    """`encode_row` of an event row whose event is already `encode_json` text (same bytes)."""
    return (
        f'{{"call_index":{call_index:d},"event":{event_json},'
        f'"event_index":{event_index:d},"type":"event"}}\n'
    ).encode()


def classify_row_tail(line: bytes) -> str | None:
    """The row type read from the last bytes of a line written by us, or None (then parse it)."""
    tail = line[-24:].rstrip(b"\r\n ")
    for kind in ROW_TYPES:
        if tail.endswith(b'"type":"' + kind.encode() + b'"}'):
            return kind
    return None
