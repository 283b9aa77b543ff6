"""What the diff screen shows of a `LazyDiff`: call rows, request comparisons, answer parts.
Never imports Textual.

The comparison is the library's (`openprogram.recordings.diff`: the same as `openprogram recordings
diff`), read lazily by `LazyDiff`, with the rules of the project found from the working directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openprogram.providers.recording.difference_text import format_value
from openprogram.providers.recording.differences import MISSING
from openprogram.providers.types import Usage
from openprogram.recordings.diff import CallStatus
from openprogram.text import plural
from tui.model.check import RequestComparison
from tui.model.lazy_diff import DiffRow, LazyDiff

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


def index_label(row: DiffRow) -> str:
    """`#3`, or `#3→#4` when the call is #3 in A and #4 in B (a call on one side: its index)."""
    a, b = row.a, row.b
    if a is None or b is None:
        return f"#{a if a is not None else b}"
    return f"#{a}" if a == b else f"#{a}→#{b}"


def call_row(row: DiffRow) -> tuple[str, str, CallStatus]:
    """(index label, status words, status) for the call list; `…` while the answers are being
    compared (the request part is known)."""
    status = row.status
    mark, words = STATUS_MARKS[status]
    if status in ("request_changed", "both_changed"):
        words = f"{words} ({plural(row.counting, 'field')})"
    if row.answer is None and status == "same":
        mark, words = "…", "request same"
    elif row.answer is None and status == "request_changed":
        words += " …"
    return index_label(row), f"{mark} {words}", status


def request_comparison(diff: LazyDiff, row: DiffRow) -> RequestComparison:
    """Both requests of a row side by side, every difference (absorbed ones with their rule)."""
    differences = tuple(ruled.difference for ruled in row.request)
    absorbed = {
        ruled.difference.field_path: ruled.absorbed_by
        for ruled in row.request
        if ruled.absorbed_by is not None
    }
    first = next((n for n, ruled in enumerate(row.request) if not ruled.absorbed), 0)
    return RequestComparison(
        call_index=row.a if row.a is not None else (row.b or 0),
        field_path=differences[first].field_path if differences else "",
        message="",
        recorded_request=diff.request_payload("a", row.a),
        incoming_request=diff.request_payload("b", row.b),
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
            shown = [str(v) if v is not None else "—" for v in (left, right)]
            rows.append((label, " → ".join(shown)))
            continue
        change = right - left
        rows.append((label, f"{left} → {right}" + (f" ({change:+d})" if change else "")))
    return rows


def tool_call_lines(row: DiffRow) -> list[tuple[str, str, str]]:
    """(field path, A's value, B's value) for each tool call difference, bounded for the screen."""

    def shown(value: Any) -> str:
        return "—" if value is MISSING else format_value(value, VALUE_LIMIT)

    if row.answer is None:
        return []
    return [(d.field_path, shown(d.recorded), shown(d.incoming)) for d in row.answer.tool_calls]


def summary_text(diff: LazyDiff, answers_done: bool) -> str:
    """`5 calls · 3 same · 1 request changed · 1 only in B · tokens 1,200 → 1,310`."""
    rows = diff.rows
    # A row whose answers are not compared yet is not counted as the same.
    statuses = [
        row.status if row.answer is not None or row.status != "same" else "pending" for row in rows
    ]
    parts = [plural(len(rows), "call")]
    for count, words in (
        (statuses.count("same"), "same"),
        (statuses.count("request_changed") + statuses.count("both_changed"), "request changed"),
        (statuses.count("answer_changed") + statuses.count("both_changed"), "answer changed"),
        (statuses.count("only_a"), "only in A"),
        (statuses.count("only_b"), "only in B"),
    ):
        if count:
            parts.append(f"{count} {words}")
    if answers_done:
        tokens_a = sum(row.usage_a.total_tokens for row in rows if row.usage_a is not None)
        tokens_b = sum(row.usage_b.total_tokens for row in rows if row.usage_b is not None)
        parts.append(f"tokens {tokens_a:,} → {tokens_b:,}")
    else:
        compared = sum(row.answer is not None for row in rows)
        parts.append(f"comparing answers {compared}/{len(rows)}…")
    return " · ".join(parts)


def changed_rows(rows: Sequence[DiffRow]) -> list[int]:
    """The rows whose request has a difference (what `n`/`N` walk across)."""
    return [n for n, row in enumerate(rows) if row.request]
