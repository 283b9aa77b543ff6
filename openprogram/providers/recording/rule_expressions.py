r"""The regular expressions of `normalize` and `scrub` rules, matched in time linear in the text.

A rule's expression comes from `pyproject.toml` or from a recording's header, and a recording is
untrusted input. Python's backtracking `re` takes exponential time on some expressions: `(a+)+$`
against 31 `a`s and a `b` kept `scan` and `check` busy past a minute. Every expression a user or a
file gives is compiled by RE2 (`google-re2`), which matches in time linear in the text whatever the
expression, and refuses what it cannot match so (lookaround, backreferences) with a reason. The
built-in presets are the project's own and use lookaround: they stay on `re`.

A replacement is read as `re.sub` reads it: `\1`…`\99`, `\g<name>` and `\g<0>` insert a group,
`\n`, `\t` and Python's other one-letter escapes are the characters they name, `\\` is a
backslash. It is parsed here, once, when the rule is checked: the RE2 wrapper's own expansion
garbles non-ASCII replacement text (`日` came out as `æ\x97¥`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, Protocol

from openprogram.errors import OpenProgramError

__all__ = ["RuleExpressionError", "TextRewrite", "preset_rewrite", "user_rewrite"]


class RuleExpressionError(OpenProgramError, ValueError):
    """An expression or replacement that cannot be used: `part` says which, `reason` why."""

    def __init__(self, part: Literal["pattern", "replace"], reason: str) -> None:
        self.part = part
        self.reason = reason
        super().__init__(f"{part}: {reason}")


class TextRewrite(Protocol):
    """What a rule does to text: replace every match, or the whole text when it all matches."""

    def sub(self, text: str) -> str:
        """`text` with every match replaced."""
        ...

    def replace_whole(self, text: str) -> str | None:
        """The replacement for `text` when the expression matches all of it, else None."""
        ...


@dataclass(frozen=True)
class _PresetRewrite:
    regex: re.Pattern[str]
    replace: str

    def sub(self, text: str) -> str:
        return self.regex.sub(self.replace, text)

    def replace_whole(self, text: str) -> str | None:
        return self.replace if self.regex.fullmatch(text) else None


def preset_rewrite(regex: str, replace: str) -> TextRewrite:
    """A built-in preset: the project's own expression on Python's `re`, a literal replacement."""
    return _PresetRewrite(re.compile(regex), replace)


@dataclass(frozen=True)
class _Re2Rewrite:
    regex: Any  # re2._Regexp: the package has no type hints
    pieces: tuple[str | int, ...]
    """The replacement: literal text, and group numbers to insert."""

    def _expand(self, match: Any) -> str:
        return "".join(
            piece if isinstance(piece, str) else (match.group(piece) or "") for piece in self.pieces
        )

    def sub(self, text: str) -> str:
        return str(self.regex.sub(self._expand, text))

    def replace_whole(self, text: str) -> str | None:
        match = self.regex.fullmatch(text)
        return None if match is None else self._expand(match)


@cache
def _re2() -> tuple[Any, Any]:
    """The `re2` module and its options, imported on the first user expression (7 ms)."""
    import re2

    options = re2.Options()
    options.log_errors = False  # a refused expression is our one-line error, not a log on stderr
    return re2, options


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "b": "\b"}
_DIGITS = "0123456789"


def user_rewrite(pattern: str, replace: str) -> TextRewrite:
    """`pattern` compiled by RE2 and `replace` parsed as a template; raises `RuleExpressionError`."""
    re2, options = _re2()
    try:
        regex = re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else ""
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        reason = f"not a regular expression RE2 runs ({detail})"
        raise RuleExpressionError("pattern", reason) from None
    return _Re2Rewrite(regex, _template(replace, regex.groups, regex.groupindex))


def _template(replace: str, groups: int, names: dict[str, int]) -> tuple[str | int, ...]:
    pieces: list[str | int] = []
    literal: list[str] = []

    def group(number: int, spelled: str) -> None:
        if number > groups:
            raise RuleExpressionError("replace", f"names group {spelled}, which the pattern lacks")
        pieces.extend(["".join(literal), number])
        literal.clear()

    position = 0
    while position < len(replace):
        char = replace[position]
        position += 1
        if char != "\\":
            literal.append(char)
            continue
        if position == len(replace):
            raise RuleExpressionError("replace", "ends with a lone backslash")
        escape = replace[position]
        position += 1
        if escape == "g":
            end = replace.find(">", position)
            if not replace.startswith("<", position) or end < 0:
                raise RuleExpressionError("replace", "has \\g without <name> or <number>")
            name = replace[position + 1 : end]
            position = end + 1
            if name and all(digit in _DIGITS for digit in name):
                group(int(name), f"\\g<{name}>")
            elif name in names:
                group(names[name], f"\\g<{name}>")
            else:
                raise RuleExpressionError(
                    "replace", f"names group \\g<{name}>, which the pattern lacks"
                )
        elif escape in _DIGITS:
            if escape == "0":
                raise RuleExpressionError("replace", "has \\0: write \\g<0> for the whole match")
            digits = escape
            if position < len(replace) and replace[position] in _DIGITS:
                digits += replace[position]
                position += 1
            group(int(digits), f"\\{digits}")
        elif escape in _ESCAPES:
            literal.append(_ESCAPES[escape])
        elif escape.isascii() and escape.isalpha():
            raise RuleExpressionError("replace", f"has the unknown escape \\{escape}")
        else:
            literal.append(escape if escape == "\\" else "\\" + escape)
    pieces.append("".join(literal))
    return tuple(piece for piece in pieces if piece != "")
