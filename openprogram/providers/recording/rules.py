"""Matching rules: what may legitimately change between runs, and what must never be written.

- `ignore PATH`: fields matching the pattern are left out of the comparison;
- `normalize PATH REGEX REPLACEMENT` (or a named preset): both values are rewritten before they are
  compared, the file keeps the original;
- `scrub PATH REGEX REPLACEMENT`: applied when recording, after the built-in redaction.

Paths are field patterns (`field_patterns`). Rules come from `pyproject.toml`, the recording's
header and the caller, merged in that order (`MatchingRules.merged`); each rule keeps its `source`,
so every report can say which rule absorbed a difference and where it was declared.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.differences import (
    MISSING,
    FieldDifference,
    PathToken,
    iter_request_differences,
)
from openprogram.providers.recording.field_patterns import (
    FieldPattern,
    can_match,
    generalise_path,
    parse_field_pattern,
)
from openprogram.providers.recording.rule_expressions import (
    RuleExpressionError,
    TextRewrite,
    preset_rewrite,
    user_rewrite,
)

PresetName = Literal["iso-datetime", "uuid", "tmp-path", "hex-id", "unix-ms", "unix-s", "port"]

_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_TIME = r"(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
PRESETS: dict[str, tuple[str, str]] = {
    "iso-datetime": (rf"(?<![\d-]){_DATE}{_TIME}(?![\d:])", "<datetime>"),
    "uuid": (
        r"(?<![0-9A-Fa-f-])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}"
        r"-[0-9A-Fa-f]{12}(?![0-9A-Fa-f-])",
        "<uuid>",
    ),
    "tmp-path": (
        r"(?:/private)?(?:/tmp|/var/tmp|/var/folders)(?:/[^\s'\"`<>|:;,()\[\]{}]+)+",
        "<tmp>",
    ),
    "hex-id": (
        r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{16,}(?![0-9A-Za-z])",
        "<hex>",
    ),
    "unix-ms": (r"(?<!\d)1[5-9]\d{11}(?!\d)", "<unix-ms>"),
    "unix-s": (r"(?<![\d.])1[5-9]\d{8}(?:\.\d+)?(?![\d.])", "<unix-s>"),
    "port": (
        r"(?:(?<=localhost:)|(?<=127\.0\.0\.1:)|(?<=0\.0\.0\.0:)|(?<=\[::1\]:))\d{2,5}(?!\d)",
        "<port>",
    ),
}
"""Each preset's regular expression and replacement: values that change by themselves."""


class RulesConfigError(OpenProgramError, ValueError):
    """Rules that cannot be used; the message names where they come from and the key."""

    def __init__(self, where: str, reason: str) -> None:
        self.where = where
        self.reason = reason
        super().__init__(f"{where}: {reason}")


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """A field pattern: `context.messages[*].content[*].text`, `options.metadata.*`, `**.id`."""
    source: str = "caller"
    """Where the rule was declared: a `pyproject.toml` path, `recording header`, or `caller`."""

    @cached_property
    def pattern(self) -> FieldPattern:
        """The parsed field pattern."""
        return parse_field_pattern(self.path)


class IgnoreRule(_Rule):
    """Leave the fields matching `path` out of the comparison."""

    kind: Literal["ignore"] = "ignore"

    def describe(self) -> str:
        """`ignore options.metadata.request_id`."""
        return f"ignore {self.path}"


class _RewriteRule(_Rule):
    kind: Literal["normalize", "scrub"]
    preset: PresetName | None = None
    regex: str | None = Field(default=None, alias="pattern")
    replace: str | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @cached_property
    def compiled(self) -> TextRewrite:
        """The preset's expression (Python `re`), or the one given, on RE2 (linear time: an
        expression from a file cannot hang a tool); raises `RuleExpressionError`."""
        if self.preset is not None:
            return preset_rewrite(*PRESETS[self.preset])
        assert self.regex is not None and self.replace is not None
        return user_rewrite(self.regex, self.replace)

    def rewrite(self, value: Any) -> Any:
        """`value` with every match replaced (strings; whole numbers when the preset takes them)."""
        if isinstance(value, str):
            return self.compiled.sub(value)
        if isinstance(value, int) and not isinstance(value, bool):
            whole = self.compiled.replace_whole(str(value))
            return value if whole is None else whole
        return value

    def describe(self) -> str:
        """`normalize context.system_prompt iso-datetime` or `... /tmp/\\S+ -> <tmp>`."""
        how = self.preset if self.preset else f"{self.regex} -> {self.replace}"
        return f"{self.kind} {self.path} {how}"


class NormalizeRule(_RewriteRule):
    """Rewrite both values at `path` before comparing them (the file keeps the original)."""

    kind: Literal["normalize"] = "normalize"


class ScrubRule(_RewriteRule):
    """Rewrite values at `path` before they are written to a recording (after redaction).

    A request field is scrubbed when the pattern covers its path; a recorded answer (its streamed
    pieces and its messages) only by rules that cover every field (`**`).
    """

    kind: Literal["scrub"] = "scrub"

    @property
    def covers_everything(self) -> bool:
        """True for `**`, which scrubs answers as well as requests."""
        return self.path.strip() == "**"


Rule = IgnoreRule | NormalizeRule | ScrubRule


class MatchingRules(BaseModel):
    """The rules in force for one comparison or one recording, in the order they were merged."""

    model_config = ConfigDict(frozen=True)

    ignore: tuple[IgnoreRule, ...] = ()
    normalize: tuple[NormalizeRule, ...] = ()
    scrub: tuple[ScrubRule, ...] = ()

    def merged(self, later: MatchingRules) -> MatchingRules:
        """These rules followed by `later`'s (pyproject, then the header, then the caller)."""
        return MatchingRules(
            ignore=(*self.ignore, *later.ignore),
            normalize=(*self.normalize, *later.normalize),
            scrub=(*self.scrub, *later.scrub),
        )

    @property
    def comparison_rules(self) -> tuple[IgnoreRule | NormalizeRule, ...]:
        """The rules that change how requests compare."""
        return (*self.ignore, *self.normalize)

    def __bool__(self) -> bool:
        return bool(self.ignore or self.normalize or self.scrub)

    def describe(self) -> list[str]:
        """One line per rule with its source: `ignore options.metadata.id  (pyproject.toml)`."""
        return [f"{rule.describe()}  ({rule.source})" for rule in self.all()]

    def all(self) -> tuple[Rule, ...]:
        """Every rule, ignore first, then normalize, then scrub."""
        return (*self.ignore, *self.normalize, *self.scrub)


NO_RULES = MatchingRules()


def _check_regex(rule: _RewriteRule, where: str) -> None:
    if rule.preset is None and (rule.regex is None or rule.replace is None):
        raise RulesConfigError(where, f"{rule.kind} needs a preset, or both pattern and replace")
    if rule.preset is not None and (rule.regex is not None or rule.replace is not None):
        raise RulesConfigError(where, f"{rule.kind} takes a preset or a pattern, not both")
    try:
        rule.compiled  # noqa: B018 - compiling is the check
    except RuleExpressionError as exc:
        given = rule.regex if exc.part == "pattern" else rule.replace
        raise RulesConfigError(where, f"{exc.part} {given!r}: {exc.reason}") from None


def request_schema() -> dict[str, Any]:
    """The JSON schema of a recorded request: `model`, `context` and `options`."""
    from pydantic import TypeAdapter
    from pydantic.json_schema import GenerateJsonSchema, PydanticOmit

    from openprogram.providers.types import Context, Model, SimpleStreamOptions

    class _Request(BaseModel):
        model: Model
        context: Context
        options: SimpleStreamOptions | None

    class _RecordedFieldsOnly(GenerateJsonSchema):
        # Runtime-only options (callbacks, cancel signals) are never recorded: no rule names them.
        def handle_invalid_for_json_schema(self, schema: Any, error_info: str) -> Any:
            raise PydanticOmit

    return TypeAdapter(_Request).json_schema(schema_generator=_RecordedFieldsOnly)


_SCHEMA: dict[str, Any] | None = None


def validate_rule(rule: Rule, where: str) -> None:
    """Check the rule's pattern parses and can match some request field, and its regular
    expression compiles; raises `RulesConfigError` naming `where`."""
    global _SCHEMA
    if _SCHEMA is None:
        _SCHEMA = request_schema()
    try:
        pattern = rule.pattern
    except ValueError as exc:
        raise RulesConfigError(where, str(exc)) from None
    if not can_match(pattern, _SCHEMA):
        reason = f"{rule.kind} pattern {rule.path!r} can never match a field of a request"
        raise RulesConfigError(where, reason)
    if isinstance(rule, _RewriteRule):
        _check_regex(rule, where)


def ignores_whole_messages(rule: IgnoreRule) -> bool:
    """True when `rule` covers a whole message or more (the list, `context`, the request): `**`,
    `context`, `*.messages`, `context.messages[*]`, `**[0]`… A recording that holds such a rule
    matches whatever the program says there."""
    # A pattern covers message i when it names a prefix of `context.messages[i]`; the only
    # indices it can name are its own and any: probing 0 and those finds every such pattern.
    named = (token.value for token in rule.pattern.tokens if token.kind == "index")
    indices = {0, *(value for value in named if isinstance(value, int))}
    return any(rule.pattern.matches(("context", "messages", index)) for index in indices)


def validate_rules(rules: MatchingRules, where: str = "rules") -> MatchingRules:
    """Check every rule (`validate_rule`); returns `rules`."""
    for rule in rules.all():
        validate_rule(rule, f"{where} ({rule.source})" if rule.source not in where else where)
    return rules


@dataclass(frozen=True)
class RuledDifference:
    """A request difference, and the rule that absorbed it (None: it counts)."""

    difference: FieldDifference
    absorbed_by: IgnoreRule | NormalizeRule | None

    @property
    def absorbed(self) -> bool:
        """True when a rule absorbed this difference."""
        return self.absorbed_by is not None


def _normalised(
    value: Any, path: tuple[PathToken, ...], rules: Iterable[NormalizeRule]
) -> tuple[Any, NormalizeRule | None]:
    """`value` (and everything below it) with the rules covering each leaf applied."""
    first: NormalizeRule | None = None

    def walk(item: Any, at: tuple[PathToken, ...]) -> Any:
        nonlocal first
        if isinstance(item, dict):
            return {key: walk(inner, (*at, key)) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner, (*at, index)) for index, inner in enumerate(item)]
        for rule in rules:
            if rule.pattern.matches(at):
                rewritten = rule.rewrite(item)
                if rewritten != item and first is None:
                    first = rule
                item = rewritten
        return item

    return walk(value, path), first


def iter_ruled_differences(
    recorded: dict[str, Any], incoming: dict[str, Any], rules: MatchingRules
) -> Iterator[RuledDifference]:
    """Every difference of two request payloads (model, context, options), each with the rule
    that absorbed it, if any."""
    for difference in iter_request_differences(recorded, incoming):
        yield RuledDifference(difference, absorbing_rule(difference, rules))


def absorbing_rule(
    difference: FieldDifference, rules: MatchingRules
) -> IgnoreRule | NormalizeRule | None:
    """The first rule under which `difference` does not count, or None."""
    path = difference.path_tokens
    for ignore in rules.ignore:
        if ignore.pattern.matches(path):
            return ignore
    if not rules.normalize or difference.recorded is MISSING or difference.incoming is MISSING:
        return None
    covering = [rule for rule in rules.normalize if _covers_any(rule, path, difference)]
    if not covering:
        return None
    recorded, rule = _normalised(difference.recorded, path, covering)
    incoming, other = _normalised(difference.incoming, path, covering)
    return (rule or other) if recorded == incoming else None


def _covers_any(
    rule: NormalizeRule, path: tuple[PathToken, ...], difference: FieldDifference
) -> bool:
    if rule.pattern.matches(path):
        return True
    # A pattern naming fields below a differing container can still make the two equal.
    return isinstance(difference.recorded, dict | list) and isinstance(
        difference.incoming, dict | list
    )


def first_counting_difference(
    recorded: dict[str, Any], incoming: dict[str, Any], rules: MatchingRules
) -> FieldDifference | None:
    """The first request difference no rule absorbs, or None."""
    for ruled in iter_ruled_differences(recorded, incoming, rules):
        if not ruled.absorbed:
            return ruled.difference
    return None


MAX_PRESETS_TOGETHER = 3
"""A suggestion combines at most this many presets (a date, a UUID and a port in one prompt)."""


def fitting_presets(
    recorded: Any, incoming: Any, in_force: Iterable[NormalizeRule] = ()
) -> tuple[PresetName, ...]:
    """The fewest presets that, applied together after the rules `in_force`, make two differing
    values equal: `("uuid", "iso-datetime")` for `Session 9f…e1 on 2026-12-03` against
    `Session 62…7a on 2026-12-04`. Empty when none do: ordinary text is never given a preset.

    Each preset found stands for a kind of value (a date, a UUID), never for the values seen, so
    the rules it makes still hold on the next run.
    """
    if not isinstance(recorded, str | int) or not isinstance(incoming, str | int):
        return ()
    if isinstance(recorded, bool) or isinstance(incoming, bool):
        return ()
    before, after = str(recorded), str(incoming)
    for rule in in_force:
        before, after = str(rule.rewrite(before)), str(rule.rewrite(after))
    if before == after:
        return ()
    compiled = {name: re.compile(regex) for name, (regex, _) in PRESETS.items()}
    found = [
        name for name, regex in compiled.items() if regex.search(before) and regex.search(after)
    ]
    for size in range(1, min(len(found), MAX_PRESETS_TOGETHER) + 1):
        for names in itertools.combinations(found, size):
            one, other = before, after
            for name in names:
                one = compiled[name].sub(PRESETS[name][1], one)
                other = compiled[name].sub(PRESETS[name][1], other)
            if one == other:
                return cast(tuple[PresetName, ...], names)
    return ()


def suggested_rules(
    difference: FieldDifference, in_force: MatchingRules = NO_RULES
) -> tuple[NormalizeRule, ...]:
    """The preset rules that, added to the rules `in_force`, would absorb `difference`: one per
    kind of value that changed by itself (`fitting_presets`), on the path with every index as
    `[*]`. Empty when ordinary text changed."""
    path = difference.path_tokens
    covering = [rule for rule in in_force.normalize if rule.pattern.matches(path)]
    names = fitting_presets(difference.recorded, difference.incoming, covering)
    general = generalise_path(path)
    return tuple(NormalizeRule(path=general, preset=name, source="suggested") for name in names)


class RuleSuggestion(BaseModel):
    """The rules that would absorb a difference of values that change by themselves: one field
    pattern and a preset per kind of value (`suggested_rules`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    presets: tuple[PresetName, ...]

    @property
    def line(self) -> str:
        """`normalize PATH uuid, iso-datetime`: what a mismatch's message and `--json` show."""
        return f"normalize {self.path} {', '.join(self.presets)}"


def suggest_rule(
    difference: FieldDifference, in_force: MatchingRules = NO_RULES
) -> RuleSuggestion | None:
    """The rules that would absorb a difference of values that change by themselves, or None
    when ordinary text changed (`suggested_rules`)."""
    rules = suggested_rules(difference, in_force)
    if not rules:
        return None
    return RuleSuggestion(
        path=rules[0].path, presets=tuple(rule.preset for rule in rules if rule.preset is not None)
    )


def scrub_value(value: Any, rules: Iterable[ScrubRule], path: tuple[PathToken, ...] = ()) -> Any:
    """`value` with every string under a path a scrub rule covers rewritten by that rule.

    Walked with a stack, not recursion: a request nested 100,000 deep is scrubbed, not a
    `RecursionError` in the program being recorded; a string's path is built only for it."""
    rules = tuple(rules)
    if not rules:
        return value

    def scrubbed(text: str, at: tuple[PathToken, ...]) -> str:
        for rule in rules:
            if rule.pattern.matches(at):
                text = rule.rewrite(text)
        return text

    if not isinstance(value, dict | list):
        return scrubbed(value, path) if isinstance(value, str) else value
    Where = tuple[Any, PathToken] | None  # (the parent's where, this key): a path built on demand

    def full_path(where: Where) -> tuple[PathToken, ...]:
        keys: list[PathToken] = []
        while where is not None:
            where, key = where
            keys.append(key)
        return (*path, *reversed(keys))

    root: dict[Any, Any] | list[Any] = {} if isinstance(value, dict) else []
    stack: list[tuple[dict[Any, Any] | list[Any], dict[Any, Any] | list[Any], Where]] = [
        (value, root, None)
    ]
    while stack:
        source, target, at = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, inner in items:
            where: Where = (at, key)
            new: Any
            if isinstance(inner, dict | list):
                new = {} if isinstance(inner, dict) else []
                stack.append((inner, new, where))
            elif isinstance(inner, str):
                new = scrubbed(inner, full_path(where))
            else:
                new = inner
            if isinstance(target, dict):
                target[key] = new
            else:
                target.append(new)
    return root


def scrub_text(text: str, rules: Iterable[ScrubRule]) -> str:
    """`text` rewritten by every rule that covers any field (`**`): for streamed answer pieces."""
    for rule in rules:
        if rule.covers_everything:
            text = rule.rewrite(text)
    return text
