"""Two requests compared field by field: every difference of a content mismatch, the one replay
reported first, and the rules that absorbed some of them.

The check view (a run's mismatch) and the diff view (two recordings' calls side by side) both show
a `RequestComparison` in a `MismatchView`; Textual-free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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
from openprogram.providers.recording.rules import IgnoreRule
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

    @property
    def absorbed_count(self) -> int:
        """How many of the differences the rules absorbed."""
        return sum(self.rule_of(n) is not None for n in range(len(self.differences)))

    def breadcrumb(self, position: int) -> str:
        """`call 1 › context › messages[2] › content[0] › text` for difference `position`."""
        return describe_path(self.call_index, self.differences[position].path_tokens)
