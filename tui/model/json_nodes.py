"""JSON values as tree nodes: a label per node and children built only when a node is opened."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from openprogram.visible_text import visible_line
from tui.model.line_preview import preview_line

STRING_PREVIEW = 60
"""Longer strings are shown cut, with their full length: this many characters where the room on
the line is not known, and never fewer where it is (a narrow line cuts it at its edge)."""

PathToken = str | int


def path_text(tokens: tuple[PathToken, ...]) -> str:
    """`("context", "messages", 2, "text")` as `context.messages[2].text`.

    A key that is not a plain name is quoted (`headers["x-api-key"]`), so a path is never ambiguous.
    """
    text = ""
    for token in tokens:
        if isinstance(token, int):
            text += f"[{token}]"
        elif token.isidentifier():
            text += f".{token}" if text else token
        else:
            text += f"[{json.dumps(token, ensure_ascii=False)}]"
    return text


def string_limit(text: str, room: int | None) -> int:
    """How many characters of `text` are shown in `room` characters of a line: all of them when
    they fit with their quotes, else what leaves room for the length (` (1,234 chars)`)."""
    if room is None:
        return STRING_PREVIEW
    if len(text) + 2 <= room:
        return len(text)
    return max(STRING_PREVIEW, room - 2 - len(f" ({len(text):,} chars)"))


def describe_value(value: Any, room: int | None = None) -> str:
    """A short description: `{3 keys}`, `[20 items]`, a string as much as `room` characters
    hold (cut, with its length: `string_limit`), or the scalar itself."""
    if isinstance(value, dict):
        return "{}" if not value else f"{{{len(value)} key{'s' if len(value) != 1 else ''}}}"
    if isinstance(value, list):
        return "[]" if not value else f"[{len(value)} item{'s' if len(value) != 1 else ''}]"
    if isinstance(value, str):
        limit = string_limit(value, room)
        shown = json.dumps(preview_line(value, limit), ensure_ascii=False)
        return shown if len(value) <= limit else f"{shown} ({len(value):,} chars)"
    return json.dumps(value)


def describe_member(key: PathToken | None, value: Any, room: int | None = None) -> str:
    """`describe_value`, plus the UTC time for a `timestamp` in Unix milliseconds."""
    text = describe_value(value, room)
    if key == "timestamp" and isinstance(value, int) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            return text
        text += moment.strftime("  (%Y-%m-%d %H:%M:%S UTC)")
    return text


def value_kind(value: Any) -> str:
    """`object`, `array`, `string`, `number`, `boolean` or `null` (for styling)."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


@dataclass(frozen=True)
class JsonNode:
    """One value in a JSON document, with the path of keys and indexes that leads to it."""

    path: tuple[PathToken, ...]
    value: Any

    @property
    def key(self) -> PathToken | None:
        """The last key or index of the path (None for the root)."""
        return self.path[-1] if self.path else None

    @property
    def expandable(self) -> bool:
        """True for a non-empty object or array."""
        return isinstance(self.value, dict | list) and bool(self.value)

    @property
    def key_label(self) -> str:
        """`name`, `[2]`, or empty for the root."""
        key = self.key
        if key is None:
            return ""
        return f"[{key}]" if isinstance(key, int) else visible_line(key)

    def children(self) -> list[JsonNode]:
        """The node's children: object members in stored order, array items by index."""
        if isinstance(self.value, dict):
            return [JsonNode((*self.path, key), item) for key, item in self.value.items()]
        if isinstance(self.value, list):
            return [JsonNode((*self.path, number), item) for number, item in enumerate(self.value)]
        return []
