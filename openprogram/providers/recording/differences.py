"""Where two JSON values differ: the field path (string and tokens) and both values.

Dicts are walked by sorted key and lists by index, so the same pair always gives the same path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from openprogram.providers.recording.redaction import SECRET_PLACEHOLDER

NON_DETERMINISTIC_FIELD_NAMES: frozenset[str] = frozenset({"timestamp"})
"""Wall-clock fields that replay never compares."""

PathToken = str | int
DifferenceKind = Literal["changed", "type_changed", "missing", "added"]


class _Missing:
    """The value on the side of a difference where the field does not exist."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")


def format_field_path(tokens: list[PathToken]) -> str:
    """`["context", "messages", 2, "text"]` → `context.messages[2].text`; odd keys as `["a.b"]`."""
    parts: list[str] = []
    for token in tokens:
        if isinstance(token, int):
            parts.append(f"[{token}]")
        elif _PLAIN_KEY.match(token):
            parts.append(f".{token}" if parts else token)
        else:
            escaped = token.replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'["{escaped}"]')
    return "".join(parts)


def json_type_name(value: Any) -> str:
    """The JSON type of a value: object, array, string, number, boolean, null (or missing)."""
    if value is MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


@dataclass(frozen=True)
class FieldDifference:
    """One differing field: its path, both values, and how they differ."""

    path_tokens: tuple[PathToken, ...]
    recorded: Any
    incoming: Any
    kind: DifferenceKind

    @property
    def field_path(self) -> str:
        """The dotted path, e.g. `context.messages[2].content[0].text`."""
        return format_field_path(list(self.path_tokens))


def iter_differences(
    recorded: Any, incoming: Any, path: tuple[PathToken, ...] = ()
) -> Iterator[FieldDifference]:
    """Every differing leaf, in path order. A recorded `[secret removed]` matches any value."""
    if recorded == SECRET_PLACEHOLDER:
        return
    if isinstance(recorded, dict) and isinstance(incoming, dict):
        for key in sorted(recorded.keys() | incoming.keys()):
            if key in NON_DETERMINISTIC_FIELD_NAMES:
                continue
            if key not in incoming:
                if recorded[key] != SECRET_PLACEHOLDER:
                    yield FieldDifference((*path, key), recorded[key], MISSING, "missing")
            elif key not in recorded:
                yield FieldDifference((*path, key), MISSING, incoming[key], "added")
            elif not _surely_equal(recorded[key], incoming[key]):  # prune equal subtrees fast
                yield from iter_differences(recorded[key], incoming[key], (*path, key))
        return
    if isinstance(recorded, list) and isinstance(incoming, list):
        for index in range(max(len(recorded), len(incoming))):
            if index >= len(incoming):
                yield FieldDifference((*path, index), recorded[index], MISSING, "missing")
            elif index >= len(recorded):
                yield FieldDifference((*path, index), MISSING, incoming[index], "added")
            elif not _surely_equal(recorded[index], incoming[index]):
                yield from iter_differences(recorded[index], incoming[index], (*path, index))
        return
    if json_type_name(recorded) != json_type_name(incoming):
        yield FieldDifference(path, recorded, incoming, "type_changed")
    elif recorded != incoming:
        yield FieldDifference(path, recorded, incoming, "changed")


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def _surely_equal(recorded: Any, incoming: Any) -> bool:
    """True only when `iter_differences` would find nothing; False means "walk to find out".

    Replay compares every incoming request with its recorded one and they are nearly always
    equal, so this plain recursion (no paths, no generators, leaves compared in place) answers
    first. Anything unusual (types that differ, keys on one side only, a recorded
    `[secret removed]`, subclasses) is left to the full walk.
    """
    kind = type(recorded)
    if kind is not type(incoming):
        return recorded == SECRET_PLACEHOLDER
    if kind is dict:
        if len(recorded) != len(incoming):
            return False
        for key, value in recorded.items():
            other = incoming.get(key, MISSING)
            if other is MISSING:
                return False
            if key in NON_DETERMINISTIC_FIELD_NAMES:
                continue
            leaf = type(value)
            if leaf is type(other) and leaf in _PLAIN_TYPES:
                if value != other:
                    return False
            elif not _surely_equal(value, other):
                return False
        return True
    if kind is list:
        if len(recorded) != len(incoming):
            return False
        for value, other in zip(recorded, incoming, strict=True):
            leaf = type(value)
            if leaf is type(other) and leaf in _PLAIN_TYPES:
                if value != other:
                    return False
            elif not _surely_equal(value, other):
                return False
        return True
    return kind in _PLAIN_TYPES and recorded == incoming


def find_first_difference(recorded: Any, incoming: Any) -> FieldDifference | None:
    """The first difference between two JSON values, or None when they are equal."""
    if _surely_equal(recorded, incoming):
        return None
    return next(iter_differences(recorded, incoming), None)


def iter_request_differences(
    recorded: dict[str, Any], incoming: dict[str, Any]
) -> Iterator[FieldDifference]:
    """Differences of two request payloads in the order model, then context, then options."""
    for part in ("model", "context", "options"):
        recorded_part, incoming_part = recorded.get(part, MISSING), incoming.get(part, MISSING)
        if not _surely_equal(recorded_part, incoming_part):
            yield from iter_differences(recorded_part, incoming_part, (part,))
