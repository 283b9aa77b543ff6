"""How a difference reads: values, field paths and the kinds of difference, in words.

The one place the wording lives, for every surface: the `ReplayMismatch` message, `recordings diff`
and the TUI's check view. Values and paths shown in a line are escaped (no control character
reaches a terminal), redacted (values) and cut to a bound; the JSON forms keep them whole.
"""

from __future__ import annotations

import json
from typing import Any

from openprogram.providers.recording.differences import (
    MISSING,
    DifferenceKind,
    FieldDifference,
    PathToken,
    format_field_path,
    json_type_name,
)
from openprogram.providers.recording.redaction import remove_secret_values
from openprogram.text import shorten

VALUE_LIMIT = 200
"""How many characters of a value (or a field path) a message shows."""


def cut(text: str, limit: int = VALUE_LIMIT, size: int | None = None) -> str:
    """`text` when it fits in `limit` characters, else its start and how long the value was
    (`size`, when the text is a quoted form of it, else the text's own length)."""
    if len(text) <= limit:
        return text
    return f"{shorten(text, limit)} ({size if size is not None else len(text)} characters)"


def format_value(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A value for a one-glance message: escaped, secrets removed, at most `limit` characters;
    a cut string says how many characters the string has (not its quoted form)."""
    if value is MISSING:
        return "<missing>"
    clean = remove_secret_values(value)
    if isinstance(clean, str):
        return cut(repr(clean), limit, len(clean))
    return cut(json.dumps(clean, ensure_ascii=False), limit)


def format_path(field_path: str, limit: int = VALUE_LIMIT) -> str:
    """A field path for a one-glance message: one line, bounded like a value, and every character
    a terminal would act on (newline, escape, other invisible ones) written as its escape."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in field_path)
    return cut(shown, limit)


def describe_path(call_index: int, tokens: tuple[PathToken, ...]) -> str:
    """A breadcrumb: `call 1 › context › messages[2] › content[0] › text`."""
    crumbs = [f"call {call_index}"]
    for token in tokens:
        if isinstance(token, int) and len(crumbs) > 1:
            crumbs[-1] += f"[{token}]"
        else:
            crumbs.append(format_field_path([token]))
    return " › ".join(crumbs)


def describe_difference(difference: FieldDifference) -> str:
    """What kind of difference (the TUI's words): `changed`, `type changed: string → number`,
    `missing in the incoming request`..."""
    if difference.kind == "missing":
        return "missing in the incoming request"
    if difference.kind == "added":
        return "added in the incoming request (not recorded)"
    if difference.kind == "inserted":
        return "inserted in the incoming request (not recorded)"
    if difference.kind == "removed":
        return "removed: recorded, not in the incoming request"
    if difference.kind == "type_changed":
        before, after = json_type_name(difference.recorded), json_type_name(difference.incoming)
        return f"type changed: {before} → {after}"
    return "changed"


def mismatch_values(kind: DifferenceKind | None, recorded: Any, incoming: Any) -> str:
    """The values line of a mismatch message: both values, or for a list item on one side only,
    which side has it."""
    if kind == "inserted":
        return f"the incoming request inserted {format_value(incoming)} here (not recorded)"
    if kind == "removed":
        return f"the incoming request removed the recorded {format_value(recorded)}"
    return f"recorded {format_value(recorded)}, incoming {format_value(incoming)}"


def diff_change(difference: FieldDifference) -> str:
    """A difference between recordings A and B (`recordings diff`): `'a' → 'b'`, or for a list
    item on one side only, which side has it."""
    if difference.kind == "inserted":
        return f"inserted in B: {format_value(difference.incoming)}"
    if difference.kind == "removed":
        return f"removed in B: {format_value(difference.recorded)}"
    return f"{format_value(difference.recorded)} → {format_value(difference.incoming)}"
