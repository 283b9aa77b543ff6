"""Two requests compared field by field, and the rules the mismatch view offers for a difference.

A `RequestComparison` holds every difference of a content mismatch, the one replay reported first,
and the rules that absorbed some of them. The check view (a run's mismatch) and the diff view (two
recordings' calls side by side) both show one in a `MismatchView`.

The rules offered for one difference: `i` offers to ignore the field, at its exact path or with
every index as `[*]`. `z` offers a normalisation: the presets that, with the rules already in
force, make both values equal (a date and a UUID in one prompt: `uuid, iso-datetime`), otherwise a
regular expression built from the substrings that differ when they are of one class (digits, hex, a
word), anchored on the text just before them. Nothing is offered that spells out the values seen:
such a rule would not hold on the next run. Every offer is a real `IgnoreRule` / `NormalizeRule`
of the library, checked with the same validation and the same `absorbing_rule` replay uses.
This module never imports Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from openprogram.providers.recording.check_protocol import AbsorbedDifference, AbsorbingRule
from openprogram.providers.recording.difference_text import describe_path
from openprogram.providers.recording.differences import (
    MISSING,
    DifferenceKind,
    FieldDifference,
    PathToken,
    iter_request_differences,
    json_type_name,
)
from openprogram.providers.recording.field_patterns import generalise_path
from openprogram.providers.recording.rules import (
    NO_RULES,
    PRESETS,
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    absorbing_rule,
    fitting_presets,
    validate_rule,
)
from openprogram.providers.replay import MismatchReport


def value_at(document: Any, tokens: Sequence[PathToken]) -> Any:
    """The value at `tokens` inside `document`, or `MISSING` when the path does not exist."""
    value = document
    for token in tokens:
        if isinstance(value, dict) and isinstance(token, str):
            if token not in value:
                return MISSING
            value = value[token]
        elif isinstance(value, list) and isinstance(token, int):
            if not 0 <= token < len(value):
                return MISSING
            value = value[token]
        else:
            return MISSING
    return value


def _reported_difference(mismatch: MismatchReport) -> FieldDifference:
    tokens = tuple(mismatch.path_tokens)
    recorded = mismatch.recorded if mismatch.recorded_present else MISSING
    incoming = mismatch.incoming if mismatch.incoming_present else MISSING
    kind: DifferenceKind
    if recorded is MISSING:
        kind = "inserted" if mismatch.difference_kind == "inserted" else "added"
    elif incoming is MISSING:
        kind = "removed" if mismatch.difference_kind == "removed" else "missing"
    elif json_type_name(recorded) != json_type_name(incoming):
        kind = "type_changed"
    else:
        kind = "changed"
    return FieldDifference(tokens, recorded, incoming, kind)


@dataclass(frozen=True)
class RequestComparison:
    """A content mismatch: both whole requests and every field in which they differ.

    Replay stops at the first difference; the view steps through all of them, starting with the
    one replay reported (`first`).
    """

    call_index: int
    field_path: str
    message: str
    recorded_request: dict[str, Any] | None
    incoming_request: dict[str, Any] | None
    differences: tuple[FieldDifference, ...]
    first: int
    absorbed: Mapping[tuple[PathToken, ...], AbsorbingRule] = field(default_factory=dict)
    """Path tokens → the rule that absorbed that difference (kind, path, preset, source)."""

    @classmethod
    def from_mismatch(
        cls, mismatch: MismatchReport, absorbed: Sequence[AbsorbedDifference] = ()
    ) -> RequestComparison:
        """From a `request` mismatch (`CheckResult.mismatch`) and what the rules absorbed
        (`CheckResult.absorbed`: replay's own decision, the rows of this call are used)."""
        reported = _reported_difference(mismatch)
        recorded, incoming = mismatch.recorded_request, mismatch.incoming_request
        found: list[FieldDifference] = []
        if isinstance(recorded, dict) and isinstance(incoming, dict):
            found = list(iter_request_differences(recorded, incoming))
        tokens = [difference.path_tokens for difference in found]
        if reported.path_tokens not in tokens:
            found.insert(0, reported)
            tokens.insert(0, reported.path_tokens)
        return cls(
            call_index=mismatch.call_index,
            field_path=mismatch.field_path or "",
            message=mismatch.message,
            recorded_request=recorded if isinstance(recorded, dict) else None,
            incoming_request=incoming if isinstance(incoming, dict) else None,
            differences=tuple(found),
            first=tokens.index(reported.path_tokens),
            absorbed={
                tuple(row.path_tokens): row.absorbed_by
                for row in absorbed
                if row.call_index == mismatch.call_index and row.absorbed_by is not None
            },
        )

    def rule_of(self, position: int) -> str | None:
        """The rule that absorbed difference `position` with its source, or None when it counts."""
        rule = self.absorbed.get(self.differences[position].path_tokens)
        return None if rule is None else f"{rule.describe()}  ({rule.source})"

    def effect_of(self, position: int) -> str | None:
        """What the rule did to difference `position`, briefly: `ignored`, `≈ iso-datetime`."""
        rule = self.absorbed.get(self.differences[position].path_tokens)
        if rule is None:
            return None
        if isinstance(rule, IgnoreRule):
            return "ignored"
        return f"≈ {rule.preset or f'{rule.regex} -> {rule.replace}'}"

    def breadcrumb(self, position: int) -> str:
        """`call 1 › context › messages[2] › content[0] › text` for difference `position`."""
        return describe_path(self.call_index, self.differences[position].path_tokens)


# -- the rules offered for one difference --

RuleKind = Literal["ignore", "normalize"]
RuleScope = Literal["recording", "project"]
REPLACEMENT = "<changed>"
"""What a normalisation built from differing substrings rewrites them to."""
CONTEXT_CHARS = 12
"""At most this many characters before the differing part anchor the built expression."""


@dataclass(frozen=True)
class RuleOffer:
    """What to prefill: the path choices (exact first) and, to normalise, pattern and replacement.

    `pattern` is one or more preset names (`uuid, iso-datetime`) when presets fit, else a
    regular expression, or empty when nothing that would hold on the next run fits (`why_empty`).
    """

    kind: RuleKind
    paths: tuple[str, ...]
    pattern: str = ""
    replace: str = ""
    why_empty: str = ""


NO_PATTERN = (
    "no preset fits and the values share no pattern that would hold on the next run: "
    "write one, or esc and i to ignore the field"
)


def path_choices(difference: FieldDifference) -> tuple[str, ...]:
    """The exact field path, then (when it has indices) the same path with every index as `[*]`."""
    exact = difference.field_path
    general = generalise_path(difference.path_tokens)
    return (exact,) if general == exact else (exact, general)


def _texts(difference: FieldDifference) -> tuple[str, str] | None:
    recorded, incoming = difference.recorded, difference.incoming
    for value in (recorded, incoming):
        if value is MISSING or isinstance(value, bool) or not isinstance(value, str | int):
            return None
    return str(recorded), str(incoming)


def why_not_normalizable(difference: FieldDifference) -> str | None:
    """Why `z` has nothing to offer here (None: it has): only text or whole numbers are rewritten."""
    if difference.recorded is MISSING or difference.incoming is MISSING:
        return "the field exists on one side only; i ignores it"
    if _texts(difference) is None:
        return "only text and whole numbers can be normalised; i ignores the field"
    if type(difference.recorded) is not type(difference.incoming):
        return "the values have different types; i ignores the field"
    return None


def _word_class(recorded: str, incoming: str) -> str | None:
    both = recorded + incoming
    if recorded and incoming:
        if both.isdigit():
            return r"\d+"
        if re.fullmatch(r"[0-9a-f]+", both):
            return r"[0-9a-f]+"
        if re.fullmatch(r"\w+", both):
            return r"\w+"
    return None


def differing_expression(recorded: str, incoming: str) -> tuple[str, str] | None:
    """A regular expression matching the part that differs on both sides, anchored on what
    comes before it, and its replacement: `(run )\\d+` and `\\1<changed>` for `run 41 done` /
    `run 42 done` (the anchor is captured and put back: RE2, which runs rule expressions, has no
    lookbehind); None when the differing parts share no class (digits, hex, a word), as an
    expression naming them would not hold on the next run."""
    start = 0
    limit = min(len(recorded), len(incoming))
    while start < limit and recorded[start] == incoming[start]:
        start += 1
    end = 0
    while end < limit - start and recorded[-1 - end] == incoming[-1 - end]:
        end += 1
    # Widen to whole words: `41`/`42`, not `1`/`2`.
    while start > 0 and recorded[start - 1].isalnum():
        start -= 1
    while end > 0 and recorded[len(recorded) - end].isalnum():
        end -= 1
    left = recorded[max(0, start - CONTEXT_CHARS) : start]
    before, after = recorded[start : len(recorded) - end], incoming[start : len(incoming) - end]
    body = _word_class(before, after)
    if body is None:
        return None
    if not left:
        return "^" + body, REPLACEMENT
    return f"({_escape(left)}){body}", "\\1" + REPLACEMENT


def _escape(text: str) -> str:
    """`re.escape` without escaping spaces (the rule is read in TOML and on screen)."""
    return re.escape(text).replace("\\ ", " ")


def offer(
    kind: RuleKind, difference: FieldDifference, in_force: MatchingRules = NO_RULES
) -> RuleOffer:
    """What `i` (ignore) or `z` (normalize) prefills for `difference`, given the rules in force."""
    paths = path_choices(difference)
    if kind == "ignore":
        return RuleOffer("ignore", paths)
    covering = [rule for rule in in_force.normalize if rule.pattern.matches(difference.path_tokens)]
    presets = fitting_presets(difference.recorded, difference.incoming, covering)
    if presets:
        # A preset describes the kind of value: it holds for every index, not only this one.
        replace = PRESETS[presets[0]][1]
        return RuleOffer("normalize", (paths[-1], *paths[:-1]), ", ".join(presets), replace)
    texts = _texts(difference)
    expression = differing_expression(*texts) if texts is not None else None
    if expression is None:
        return RuleOffer("normalize", paths, why_empty=NO_PATTERN if texts else "")
    return RuleOffer("normalize", paths, *expression)


def preset_names(pattern: str) -> tuple[str, ...] | None:
    """The presets a pattern field names (`uuid, iso-datetime`), or None when it is an expression."""
    names = tuple(name.strip() for name in pattern.split(","))
    return names if names and all(name in PRESETS for name in names) else None


def build_rules(
    kind: RuleKind, path: str, pattern: str = "", replace: str = ""
) -> tuple[IgnoreRule | NormalizeRule, ...]:
    """The library rules for the user's choice (one per preset named); raises `RulesConfigError`
    (or pydantic's `ValidationError`) naming what is wrong: a pattern that can never match, a bad
    expression."""
    rules: tuple[IgnoreRule | NormalizeRule, ...]
    presets = preset_names(pattern)
    if kind == "ignore":
        rules = (IgnoreRule(path=path, source="tui"),)
    elif presets is not None:
        rules = tuple(
            NormalizeRule.model_validate({"path": path, "preset": name, "source": "tui"})
            for name in presets
        )
    else:
        fields = {"path": path, "pattern": pattern, "replace": replace, "source": "tui"}
        rules = (NormalizeRule.model_validate(fields),)
    for rule in rules:
        validate_rule(rule, "rule")
    return rules


def absorbs(
    rules: tuple[IgnoreRule | NormalizeRule, ...],
    difference: FieldDifference,
    in_force: MatchingRules = NO_RULES,
) -> bool:
    """True when replay would not count `difference` under `rules` together with the rules
    already in force (the library's own decision)."""
    added = MatchingRules(
        ignore=tuple(rule for rule in rules if isinstance(rule, IgnoreRule)),
        normalize=tuple(rule for rule in rules if isinstance(rule, NormalizeRule)),
    )
    return absorbing_rule(difference, in_force.merged(added)) is not None
