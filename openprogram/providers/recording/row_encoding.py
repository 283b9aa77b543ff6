"""How recording rows are written as bytes, and read back by their type: no models, no pydantic.

Rows are compact JSON with sorted keys and UTF-8 kept as is, so `"type"` is the last key of every
row and a viewer can classify a row from its last bytes. Importing this module is cheap (the row
models in `row_models` are not built), so a viewer can index a file before they are.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from typing import Any

from openprogram.errors import OpenProgramError

RECORDING_FORMAT_VERSION = 2
"""Bump when required fields or the meaning of request/event/call_end rows change."""


def migrate_command(path: str | os.PathLike[str]) -> str:
    """The way forward named when a file of the older format is refused: the command for it."""
    return f"openprogram recordings migrate {shlex.quote(os.fspath(path))}"


CALL_OUTCOMES: tuple[str, ...] = ("complete", "error", "cancelled", "abandoned")
ROW_TYPES: tuple[str, ...] = ("header", "request", "event", "call_end")


_ENCODER = json.JSONEncoder(
    sort_keys=True,
    separators=(",", ":"),
    ensure_ascii=False,
    check_circular=False,
    allow_nan=False,
)
"""`json.dumps` with these options, built once: `dumps` builds a new encoder on every call."""


class NonFiniteNumberError(OpenProgramError, ValueError):
    """A value to record holds NaN or an infinity, which JSON cannot hold; names the field."""

    def __init__(self, field_path: str, value: float) -> None:
        super().__init__(
            f"cannot record {value!r} at {field_path}: a recording holds JSON numbers, "
            "which are never NaN or infinite"
        )
        self.field_path = field_path


def encode_row(row: dict[str, Any]) -> bytes:
    """One row as stored: compact JSON, sorted keys, UTF-8 as is, ending in a newline.

    Raises `NonFiniteNumberError` naming the field of a NaN or infinite number."""
    try:
        text = _ENCODER.encode(row)
    except ValueError:
        found = _non_finite(row, "")
        if found is None:
            raise
        raise NonFiniteNumberError(*found) from None
    return (text + "\n").encode("utf-8")


def _non_finite(value: Any, path: str) -> tuple[str, float] | None:
    """The path and value of the first NaN or infinite float in `value`, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path or "row", value
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def classify_row_tail(line: bytes) -> str | None:
    """The row type read from the last bytes of a line written by us, or None (then parse it)."""
    tail = line[-24:].rstrip(b"\r\n ")
    for kind in ROW_TYPES:
        if tail.endswith(b'"type":"' + kind.encode() + b'"}'):
            return kind
    return None
