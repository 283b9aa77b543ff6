"""What the diff screen shows of the library's `RecordingDiff`: call rows, request comparisons,
answer parts. Never imports Textual.

The comparison itself is `openprogram.recordings.diff.diff_recordings` (the same as `openprogram
recordings diff`), with the rules of the project found from the working directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openprogram.providers.recording.differences import MISSING
from openprogram.providers.recording.mismatch import format_value
from openprogram.providers.recording.rules import MatchingRules
from openprogram.providers.recording.rules_sources import project_rules
from openprogram.providers.types import Usage
from openprogram.recordings.diff import CallPair, CallStatus, RecordingDiff, diff_recordings
from openprogram.text import plural
from tui.model.rerun import RequestComparison

STATUS_MARKS: dict[CallStatus, tuple[str, str]] = {
    "same": ("=", "same"),
    "request_changed": ("≠", "request"),
    "answer_changed": ("≠", "answer"),
    "both_changed": ("≠", "request, answer"),
    "only_a": ("−", "only in A"),
    "only_b": ("+", "only in B"),
}
"""The mark and the words of each status in the call list."""
VALUE_LIMIT = 120


def compare(a: Path, b: Path, rules: MatchingRules | None = None) -> RecordingDiff:
    """The library's diff of `a` and `b`, with the project's rules unless `rules` are given."""
    return diff_recordings(a, b, project_rules() if rules is None else rules)


def index_label(pair: CallPair) -> str:
    """`#3`, or `#3→#4` when the call is #3 in A and #4 in B (a call on one side: its index)."""
    a = pair.a.call_index if pair.a is not None else None
    b = pair.b.call_index if pair.b is not None else None
    if a is None or b is None:
        return f"#{a if a is not None else b}"
    return f"#{a}" if a == b else f"#{a}→#{b}"


def call_row(pair: CallPair) -> tuple[str, str, CallStatus]:
    """(index label, status words, status) for the call list."""
    mark, words = STATUS_MARKS[pair.status]
    if pair.status in ("request_changed", "both_changed"):
        words = f"{words} ({plural(len(pair.counting_request_differences), 'field')})"
    return index_label(pair), f"{mark} {words}", pair.status


def request_comparison(pair: CallPair) -> RequestComparison:
    """Both requests of a row side by side, every difference (absorbed ones with their rule)."""
    recorded = pair.a.request_payload() if pair.a is not None else None
    incoming = pair.b.request_payload() if pair.b is not None else None
    differences = tuple(ruled.difference for ruled in pair.request)
    absorbed = {
        ruled.difference.field_path: f"{ruled.absorbed_by.describe()}  ({ruled.absorbed_by.source})"
        for ruled in pair.request
        if ruled.absorbed_by is not None
    }
    first = next((n for n, ruled in enumerate(pair.request) if not ruled.absorbed), 0)
    side = pair.a or pair.b
    call = side.call_index if side is not None else 0
    return RequestComparison(
        call_index=call,
        field_path=differences[first].field_path if differences else "",
        message="",
        recorded_request=recorded,
        incoming_request=incoming,
        differences=differences,
        first=first,
        absorbed=absorbed,
    )


def usage_lines(a: Usage | None, b: Usage | None) -> list[tuple[str, str]]:
    """(label, `A → B (±change)`) for input, output and total tokens."""
    rows = []
    for label, key in (("input", "input"), ("output", "output"), ("total", "total_tokens")):
        left = getattr(a, key) if a is not None else None
        right = getattr(b, key) if b is not None else None
        if left is None or right is None:
            rows.append((label, f"{left if left is not None else '—'} → {right or '—'}"))
            continue
        change = right - left
        rows.append((label, f"{left} → {right}" + (f" ({change:+d})" if change else "")))
    return rows


def tool_call_lines(pair: CallPair) -> list[tuple[str, str, str]]:
    """(field path, A's value, B's value) for each tool call difference, bounded for the screen."""

    def shown(value: Any) -> str:
        return "—" if value is MISSING else format_value(value, VALUE_LIMIT)

    return [(d.field_path, shown(d.recorded), shown(d.incoming)) for d in pair.answer.tool_calls]


def summary_text(diff: RecordingDiff) -> str:
    """`5 calls · 3 same · 1 request changed · 1 only in B · tokens 1,200 → 1,310`."""
    summary = diff.summary()
    parts = [plural(len(diff.pairs), "call")]
    for count, words in (
        (summary.same, "same"),
        (summary.request_changed, "request changed"),
        (summary.answer_changed, "answer changed"),
        (summary.only_a, "only in A"),
        (summary.only_b, "only in B"),
    ):
        if count:
            parts.append(f"{count} {words}")
    parts.append(f"tokens {summary.tokens_a.total_tokens:,} → {summary.tokens_b.total_tokens:,}")
    return " · ".join(parts)


def changed_rows(pairs: Sequence[CallPair]) -> list[int]:
    """The rows whose request has a difference (what `n`/`N` walk across)."""
    return [n for n, pair in enumerate(pairs) if pair.request]
