"""The rules the mismatch view offers for one difference: ignore the field, or normalise its values.

`i` offers to ignore the field, at its exact path or with every index as `[*]`. `z` offers a
normalisation: the preset that makes both values equal when one fits (two dates, two UUIDs, …),
otherwise a regular expression built from the substrings that differ, anchored on the text just
before them. Every offer is a real `IgnoreRule` / `NormalizeRule` of the library, checked with the
same validation and the same `absorbing_rule` replay uses. This module never imports Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from openprogram.providers.recording.differences import MISSING, FieldDifference
from openprogram.providers.recording.field_patterns import generalise_path
from openprogram.providers.recording.rules import (
    PRESETS,
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    absorbing_rule,
    fitting_preset,
    validate_rule,
)

RuleKind = Literal["ignore", "normalize"]
RuleScope = Literal["recording", "project"]
REPLACEMENT = "<changed>"
"""What a normalisation built from differing substrings rewrites them to."""
CONTEXT_CHARS = 12
"""At most this many characters before the differing part anchor the built expression."""


@dataclass(frozen=True)
class RuleOffer:
    """What to prefill: the path choices (exact first) and, to normalise, pattern and replacement.

    `pattern` is a preset name when a preset fits, else a regular expression.
    """

    kind: RuleKind
    paths: tuple[str, ...]
    pattern: str = ""
    replace: str = ""


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


def differing_expression(recorded: str, incoming: str) -> str:
    """A regular expression matching the part that differs on both sides, anchored on what
    comes before it: `(?<=run )\\d+` for `run 41 done` / `run 42 done`."""
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
        choices = sorted({_escape(before), _escape(after)} - {""})
        body = "(?:" + "|".join(choices) + ")"
        if not before or not after:
            body += "?"
    return (f"(?<={_escape(left)})" if left else "^") + body


def _escape(text: str) -> str:
    """`re.escape` without escaping spaces (the rule is read in TOML and on screen)."""
    return re.escape(text).replace("\\ ", " ")


def offer(kind: RuleKind, difference: FieldDifference) -> RuleOffer:
    """What `i` (ignore) or `z` (normalize) prefills for `difference`."""
    paths = path_choices(difference)
    if kind == "ignore":
        return RuleOffer("ignore", paths)
    preset = fitting_preset(difference.recorded, difference.incoming)
    if preset is not None:
        # A preset describes the kind of value: it holds for every index, not only this one.
        return RuleOffer("normalize", (paths[-1], *paths[:-1]), preset, PRESETS[preset][1])
    texts = _texts(difference)
    if texts is None:
        return RuleOffer("normalize", paths)
    return RuleOffer("normalize", paths, differing_expression(*texts), REPLACEMENT)


def build_rule(
    kind: RuleKind, path: str, pattern: str = "", replace: str = ""
) -> IgnoreRule | NormalizeRule:
    """The library rule for the user's choice; raises `RulesConfigError` (or pydantic's
    `ValidationError`) naming what is wrong: a pattern that can never match, a bad expression."""
    rule: IgnoreRule | NormalizeRule
    if kind == "ignore":
        rule = IgnoreRule(path=path, source="tui")
    elif pattern in PRESETS:
        rule = NormalizeRule.model_validate({"path": path, "preset": pattern, "source": "tui"})
    else:
        fields = {"path": path, "pattern": pattern, "replace": replace, "source": "tui"}
        rule = NormalizeRule.model_validate(fields)
    validate_rule(rule, "rule")
    return rule


def absorbs(rule: IgnoreRule | NormalizeRule, difference: FieldDifference) -> bool:
    """True when replay would not count `difference` under `rule` (the library's own decision)."""
    rules = (
        MatchingRules(ignore=(rule,))
        if isinstance(rule, IgnoreRule)
        else MatchingRules(normalize=(rule,))
    )
    return absorbing_rule(difference, rules) is not None
