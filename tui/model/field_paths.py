"""Field paths as typed on a command line (`--field context.messages[2].content[0].text`).

The inverse of the library's `format_field_path`: `a.b[2]["x.y"]` becomes `("a", "b", 2, "x.y")`,
so a path printed by `check` can be pasted back and names the same field.
"""

from __future__ import annotations

import re

from openprogram.providers.recording.differences import PathToken

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_INDEX = re.compile(r"\[(\d+)\]")
_QUOTED = re.compile(r'\["((?:[^"\\]|\\.)*)"\]')


class FieldPathError(ValueError):
    """Text that is not a field path; `position` is where reading stopped."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        super().__init__(f"field path {text!r} at character {position + 1}: {reason}")


def parse_field_path(text: str) -> tuple[PathToken, ...]:
    """`context.messages[2].content[0].text` → `("context", "messages", 2, "content", 0, "text")`."""
    tokens: list[PathToken] = []
    position = 0
    while position < len(text):
        if text.startswith(".", position) and tokens:
            name = _NAME.match(text, position + 1)
            if name is None:
                raise FieldPathError(text, position + 1, "expected a key name after '.'")
            tokens.append(name.group())
            position = name.end()
        elif index := _INDEX.match(text, position):
            tokens.append(int(index.group(1)))
            position = index.end()
        elif quoted := _QUOTED.match(text, position):
            tokens.append(re.sub(r"\\(.)", r"\1", quoted.group(1)))
            position = quoted.end()
        elif not tokens and (name := _NAME.match(text, position)):
            tokens.append(name.group())
            position = name.end()
        else:
            raise FieldPathError(text, position, 'expected .key, [index] or ["key"]')
    if not tokens:
        raise FieldPathError(text, 0, "the path is empty")
    return tuple(tokens)
