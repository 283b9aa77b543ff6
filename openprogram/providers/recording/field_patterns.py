"""Field patterns: request paths as a mismatch prints them, with `[*]`, `*` and `**` wildcards.

`context.messages[*].content[*].text` matches the text of every block of every message;
`options.metadata.*` any key of the metadata; `**.request_id` a `request_id` key at any depth;
`["odd.key"]` a key holding a dot. A pattern also covers everything below the field it names.
A field path (`--field` of the TUI) is a pattern without wildcards, read by `parse_field_path`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.differences import PathToken

TokenKind = Literal["key", "index", "any_key", "any_index", "any_depth"]

_TOKEN = re.compile(
    r"""(?P<any_depth>\*\*)
      | (?P<any_key>\*)
      | \[(?P<any_index>\*)\]
      | \[(?P<index>\d+)\]
      | \["(?P<quoted>(?:[^"\\]|\\.)*)"\]
      | (?P<key>[A-Za-z_][A-Za-z0-9_\-]*)
    """,
    re.VERBOSE,
)


class FieldPatternError(OpenProgramError, ValueError):
    """A field pattern (or field path) that cannot be parsed; `pattern` and `reason` say why."""

    def __init__(self, pattern: str, reason: str, what: str = "field pattern") -> None:
        self.pattern = pattern
        self.reason = reason
        super().__init__(f"{what} {pattern!r}: {reason}")


@dataclass(frozen=True)
class PatternToken:
    """One step of a pattern: a key, an index, or a wildcard."""

    kind: TokenKind
    value: str | int | None = None


@dataclass(frozen=True)
class FieldPattern:
    """A parsed field pattern; `matches(tokens)` says whether it covers a field path."""

    text: str
    tokens: tuple[PatternToken, ...]
    _seen: dict[tuple[PathToken, ...], bool] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def matches(self, path: tuple[PathToken, ...]) -> bool:
        """True when the pattern names `path` or one of the fields that contain it."""
        seen = self._seen.get(path)
        if seen is None:
            if len(self._seen) > 65536:  # a bound, for runs with very many distinct paths
                self._seen.clear()
            seen = self._seen[path] = _covers(self.tokens, tuple(path))
        return seen

    def names_exactly(self, path: tuple[PathToken, ...]) -> bool:
        """True when the pattern names `path` itself (not only a field containing it)."""
        return _matches_exactly(self.tokens, tuple(path))


def parse_field_pattern(text: str) -> FieldPattern:
    """Parse `context.messages[*].content[*].text`-style text; raises `FieldPatternError`."""
    return FieldPattern(text, _pattern_tokens(text, "field pattern"))


def parse_field_path(text: str) -> tuple[PathToken, ...]:
    """A field path as a mismatch prints it, read back: `context.messages[2].content[0].text` →
    `("context", "messages", 2, "content", 0, "text")`; raises `FieldPatternError`."""
    tokens = _pattern_tokens(text, "field path")
    if any(token.value is None for token in tokens):
        raise FieldPatternError(text, "a field path names one field: no wildcards", "field path")
    return tuple(token.value for token in tokens if token.value is not None)


def _pattern_tokens(text: str, what: str) -> tuple[PatternToken, ...]:
    tokens: list[PatternToken] = []
    position = 0
    while position < len(text):
        after_dot = bool(tokens) and text[position] == "."
        if after_dot:
            position += 1
        match = _TOKEN.match(text, position)
        if match is None:
            expected = "a key name after '.'" if after_dot else '.key, [index] or ["key"]'
            raise FieldPatternError(text, f"expected {expected} at column {position + 1}", what)
        position = match.end()
        kind = match.lastgroup
        if kind == "quoted":
            quoted = match.group("quoted")
            tokens.append(PatternToken("key", re.sub(r"\\(.)", r"\1", quoted)))
        elif kind == "key":
            tokens.append(PatternToken("key", match.group("key")))
        elif kind == "index":
            tokens.append(PatternToken("index", int(match.group("index"))))
        else:
            wildcard: TokenKind = "any_depth" if kind == "any_depth" else "any_key"
            tokens.append(PatternToken("any_index" if kind == "any_index" else wildcard))
    if not tokens:
        raise FieldPatternError(text, "it is empty", what)
    return tuple(tokens)


def _step(token: PatternToken, value: PathToken) -> bool:
    if token.kind == "key":
        return isinstance(value, str) and value == token.value
    if token.kind == "index":
        return isinstance(value, int) and value == token.value
    if token.kind == "any_key":
        return isinstance(value, str)
    return isinstance(value, int)  # any_index


def _prefix_matches(
    tokens: tuple[PatternToken, ...], path: tuple[PathToken, ...]
) -> Iterator[bool]:
    """For the empty prefix of `path`, then each longer one: whether `tokens` match it exactly.

    The tokens are run as a small automaton over the path, one set of positions per step (`**`
    stays or moves on): time tokens × path, and no recursion, however deep the path."""

    def closure(states: set[int]) -> set[int]:
        reached, todo = set(), list(states)
        while todo:
            at = todo.pop()
            if at not in reached:
                reached.add(at)
                if at < len(tokens) and tokens[at].kind == "any_depth":
                    todo.append(at + 1)  # `**` also matches no key at all
        return reached

    end = len(tokens)
    states = closure({0})
    yield end in states
    for value in path:
        moved = set()
        for at in states:
            if at < end:
                token = tokens[at]
                if token.kind == "any_depth":
                    moved.add(at)
                elif _step(token, value):
                    moved.add(at + 1)
        states = closure(moved)
        if not states:
            return
        yield end in states


@lru_cache(maxsize=65536)
def _matches_exactly(tokens: tuple[PatternToken, ...], path: tuple[PathToken, ...]) -> bool:
    prefixes = list(_prefix_matches(tokens, path))  # it stops early where nothing can match
    return len(prefixes) == len(path) + 1 and prefixes[-1]


@lru_cache(maxsize=65536)
def _covers(tokens: tuple[PatternToken, ...], path: tuple[PathToken, ...]) -> bool:
    return any(_prefix_matches(tokens, path))


def generalise_path(path: tuple[PathToken, ...]) -> str:
    """The pattern text for `path` with every index as `[*]`: `context.messages[*].content[*].text`."""
    from openprogram.providers.recording.differences import format_field_path

    text = format_field_path(list(path))
    return re.sub(r"\[\d+\]", "[*]", text)


# Whether a pattern can match any field of a request: walked over the JSON schema of the
# request models, so a typo (`context.mesages`) is a configuration error, not a silent no-op.


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _resolve(root["$defs"][name], root)
    for union in ("anyOf", "oneOf", "allOf"):
        if union in schema:
            return [leaf for option in schema[union] for leaf in _resolve(option, root)]
    return [schema]


StepKind = Literal["key", "index", "any"]


def _children(schema: dict[str, Any], step: StepKind, value: PathToken | None) -> list[Any] | None:
    """The schemas one step below `schema` (a key, an index, or any step); None means free-form."""
    kind = schema.get("type")
    if kind is None and "properties" not in schema and "items" not in schema:
        return None  # `Any`: anything may be below
    found: list[Any] = []
    if (kind == "object" or "properties" in schema) and step != "index":
        properties: dict[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", "properties" not in schema)
        if step == "key" and value in properties:
            found.append(properties[str(value)])
        elif step == "any":
            found.extend(properties.values())
        if extra is True and (step == "any" or value not in properties):
            return None
        if isinstance(extra, dict) and (step == "any" or value not in properties):
            found.append(extra)
    if kind == "array" and step != "key":
        items = schema.get("items")
        if items is None or items is True:
            return None
        found.extend(items if isinstance(items, list) else [items])
    return found


def can_match(pattern: FieldPattern, schema: dict[str, Any]) -> bool:
    """True when some field allowed by the JSON `schema` is named by `pattern`."""
    return _can_match(pattern.tokens, schema, schema, 0)


def _can_match(
    tokens: tuple[PatternToken, ...], node: Any, root: dict[str, Any], depth: int
) -> bool:
    if not tokens or depth > 24 or not isinstance(node, dict):
        return True  # the end of the pattern, a recursive schema, or a free-form `true`
    head, rest = tokens[0], tokens[1:]
    for schema in _resolve(node, root):
        if head.kind == "any_depth":
            if _can_match(rest, schema, root, depth):
                return True
            below = _children(schema, "any", None)
            if below is None or any(_can_match(tokens, s, root, depth + 1) for s in below):
                return True
            continue
        step: StepKind = "key" if head.kind in ("key", "any_key") else "index"
        below = _children(schema, step, head.value if head.value is not None else "*")
        if head.kind in ("any_key", "any_index") and below is not None:
            below = _children(schema, "any", None) if _has_step(schema, step) else []
        if below is None or any(_can_match(rest, s, root, depth + 1) for s in below):
            return True
    return False


def _has_step(schema: dict[str, Any], step: StepKind) -> bool:
    if step == "key":
        return schema.get("type") == "object" or "properties" in schema
    return schema.get("type") == "array"
