"""What the diff screen shows of a `LazyDiff`: call rows, request comparisons, answer parts.
Never imports Textual.

The comparison is the library's (`openprogram.recordings.diff`: the same as `openprogram recordings
diff`), read lazily by `LazyDiff`, with the rules of the project found from the working directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from openprogram.providers.recording.difference_text import format_value
from openprogram.providers.recording.differences import MISSING
from openprogram.recordings.call_stats import SessionStats, StatsDelta, session_stats
from openprogram.recordings.diff import CallStatus
from openprogram.text import plural
from tui.model.diff import DiffRow, LazyDiff
from tui.model.request_comparison import RequestComparison

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
        ruled.difference.path_tokens: ruled.absorbed_by
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


def tool_call_lines(row: DiffRow) -> list[tuple[str, str, str]]:
    """(field path, A's value, B's value) for each tool call difference, bounded for the screen."""

    def shown(value: Any) -> str:
        return "—" if value is MISSING else format_value(value, VALUE_LIMIT)

    if row.answer is None:
        return []
    return [(d.field_path, shown(d.recorded), shown(d.incoming)) for d in row.answer.tool_calls]


def summary_text(diff: LazyDiff, answers_done: bool) -> tuple[str, bool]:
    """`5 calls · 3 same · 1 request changed · 1 only in B · tokens 1,200 → 1,310`, and whether
    the recordings are the same (then it ends `· the recordings are the same`)."""
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
    identical = answers_done and all(row.status == "same" for row in rows)
    if identical:
        parts.append("the recordings are the same")
    return " · ".join(parts), identical


def next_changed(rows: Sequence[DiffRow], shown: int, step: int) -> int | None:
    """The next row after `shown` (`step` 1) or before it (-1) whose request has a difference
    (what `n`/`N` walk across); None past the last or the first."""
    changed = [n for n, row in enumerate(rows) if row.request]
    later = [n for n in changed if (n > shown if step > 0 else n < shown)]
    if not later:
        return None
    return later[0] if step > 0 else later[-1]


def first_to_show(rows: Sequence[DiffRow], shown: int, user_moved: bool) -> int | None:
    """Where the view goes by itself as rows are compared (`shown`: the row shown, -1 for none):
    the first row that differs, else the first row; nothing once the user moved."""
    if not rows or (user_moved and shown >= 0):
        return None
    first = next(
        (n for n, row in enumerate(rows) if row.request or row.a is None or row.b is None), None
    )
    if first is None:
        return 0 if shown < 0 else None
    return first


NOT_RECORDED = "not recorded"


def seconds(ms: int) -> str:
    return f"{ms / 1000:.2f}s"


def signed_ms(ms: int) -> str:
    """A change of time, signed: `+12ms` under a second (a rounded `+0.0s` reads as no change
    with a sign), `-3.10s` from one second on."""
    return f"{ms:+,}ms" if abs(ms) < 1000 else f"{ms / 1000:+.2f}s"


def _change(a: str, b: str, delta: str | None) -> str:
    return f"{a} → {b}" + (f" ({delta})" if delta else "")


def ms_line(a: int | None, b: int | None, delta: int | None) -> str:
    """`1.20s → 4.30s (+3.10s)`; a time a side does not hold is "not recorded", never 0."""
    left, right = (seconds(v) if v is not None else NOT_RECORDED for v in (a, b))
    return _change(left, right, signed_ms(delta) if delta else None)


def cost_text(cost: Decimal | None) -> str:
    return "no price" if cost is None else f"${cost:.6f}".rstrip("0").rstrip(".")


def cost_line(a: Decimal | None, b: Decimal | None) -> str:
    """`$0.0012 → $0.0015 (+$0.0003)`; a model without a known price shows none (`no price`
    when neither side has one)."""
    if a is None and b is None:
        return cost_text(None)
    delta = None if a is None or b is None or a == b else b - a
    sign = "+" if delta is not None and delta > 0 else "-"
    return _change(
        cost_text(a), cost_text(b), None if delta is None else sign + cost_text(abs(delta))
    )


TOKEN_LABELS = (
    ("input", "tokens in"),
    ("output", "tokens out"),
    ("cache_read", "cache read"),
    ("cache_write", "cache write"),
    ("reasoning", "reasoning"),
)


Measure = Literal["duration", "tokens", "cost"]
"""What the largest change of a diff is measured in (the call's duration, total tokens, cost)."""
MEASURE_WORDS: dict[Measure, str] = {"duration": "time", "tokens": "tokens", "cost": "cost"}
"""How a measure is named on screen: `biggest change: time #3`."""


@dataclass(frozen=True)
class DeltaLine:
    """One number of a pair of calls: `label`, `A → B (±change)`, the group it is shown in, and
    the measure of the largest change it shows (the duration, the total tokens, the cost)."""

    label: str
    change: str
    group: Literal["time", "usage", "cost"]
    measure: Measure | None = None


def delta_lines(delta: StatsDelta) -> list[DeltaLine]:
    """The duration, the time to first token, tokens by kind and cost of one pair of calls (the
    library's numbers, as `recordings diff --json` has them)."""
    rows = [
        DeltaLine("duration", ms_line(*delta.ms("duration")), "time", "duration"),
        DeltaLine("first token", ms_line(*delta.ms("first_token")), "time"),
    ]
    tokens_a, tokens_b = delta.tokens_a or {}, delta.tokens_b or {}
    changes = delta.tokens_delta or {}
    for key, label in TOKEN_LABELS:
        left, right, change = tokens_a.get(key), tokens_b.get(key), changes.get(key)
        if left is None and right is None:
            continue
        shown_a, shown_b = (f"{v:,}" if v is not None else "—" for v in (left, right))
        change_text = _change(shown_a, shown_b, f"{change:+,}" if change else None)
        rows.append(DeltaLine(label, change_text, "usage"))
    usage_a = delta.a.usage if delta.a is not None else None
    usage_b = delta.b.usage if delta.b is not None else None
    if usage_a is not None or usage_b is not None:
        total_a, total_b = (f"{u.total_tokens:,}" if u else "—" for u in (usage_a, usage_b))
        change = delta.total_tokens_delta
        change_text = _change(total_a, total_b, f"{change:+,}" if change else None)
        rows.append(DeltaLine("total", change_text, "usage", "tokens"))
    cost_a = delta.a.cost if delta.a is not None else None
    cost_b = delta.b.cost if delta.b is not None else None
    rows.append(DeltaLine("cost", cost_line(cost_a, cost_b), "cost", "cost"))
    return rows


@dataclass(frozen=True)
class DiffTotals:
    """Both sessions' totals (of the calls compared), and the rows whose change is the largest."""

    a: SessionStats
    b: SessionStats
    biggest: dict[Measure, int]
    """`duration`, `tokens`, `cost` → the row number with the largest |B − A| (when not 0)."""

    def marks(self) -> dict[int, list[Measure]]:
        """Row number → the measures whose change is the largest there."""
        found: dict[int, list[Measure]] = {}
        for measure, number in self.biggest.items():
            found.setdefault(number, []).append(measure)
        return found


def _largest(values: Sequence[tuple[int, float | None]]) -> int | None:
    known = [(abs(v), n) for n, v in values if v]
    return max(known, key=lambda item: (item[0], -item[1]))[1] if known else None


def diff_totals(rows: Sequence[DiffRow]) -> DiffTotals:
    """The totals of every row compared so far, and where the largest changes are."""
    deltas = [(n, row.delta) for n, row in enumerate(rows)]
    known = [(n, d) for n, d in deltas if d is not None]
    biggest: dict[Measure, int] = {}
    values: Sequence[tuple[int, float | None]]
    name: Measure
    for name, values in (
        ("duration", [(n, d.ms("duration")[2]) for n, d in known]),
        ("tokens", [(n, d.total_tokens_delta) for n, d in known]),
        ("cost", [(n, float(c) if (c := d.cost_delta) is not None else None) for n, d in known]),
    ):
        found = _largest(values)
        if found is not None:
            biggest[name] = found
    return DiffTotals(
        session_stats(d.a for _, d in known if d.a is not None),
        session_stats(d.b for _, d in known if d.b is not None),
        biggest,
    )


def totals_parts(totals: DiffTotals) -> list[str]:
    """`in the model 1.20s → 4.30s (+3.10s)`, `tokens 120 → 150 (+30)`, `cost …`."""
    a, b = totals.a, totals.b
    model_delta = None if a.model_ms is None or b.model_ms is None else b.model_ms - a.model_ms
    tokens = b.usage.total_tokens - a.usage.total_tokens
    parts = [
        "in the model " + ms_line(a.model_ms, b.model_ms, model_delta),
        "tokens "
        + _change(
            f"{a.usage.total_tokens:,}",
            f"{b.usage.total_tokens:,}",
            f"{tokens:+,}" if tokens else None,
        ),
        "cost " + cost_line(a.cost, b.cost),
    ]
    return parts


def biggest_changes(rows: Sequence[DiffRow], totals: DiffTotals) -> list[str]:
    """`time #3 (+3.10s)`, `tokens #3 (+30)`: where each largest change is, and how large."""
    return [
        f"{MEASURE_WORDS[name]} {index_label(rows[number])} ({biggest_value(rows[number], name)})"
        for name in MEASURE_WORDS
        if (number := totals.biggest.get(name)) is not None
    ]


def biggest_value(row: DiffRow, name: Measure) -> str:
    """The change of `name` (`duration`, `tokens`, `cost`) of one row, signed."""
    delta = row.delta
    if delta is None:
        return ""
    if name == "duration":
        change = delta.ms("duration")[2]
        return signed_ms(change) if change is not None else ""
    if name == "tokens":
        tokens = delta.total_tokens_delta
        return f"{tokens:+,}" if tokens is not None else ""
    cost = delta.cost_delta
    if cost is None:
        return ""
    return ("+" if cost > 0 else "-") + cost_text(abs(cost))


def row_delta_text(row: DiffRow) -> str:
    """The call list's short change of a row: `+3.10s +30 tok` (empty when nothing is known)."""
    delta = row.delta
    if delta is None:
        return ""
    parts = []
    duration = delta.ms("duration")[2]
    if duration:
        parts.append(signed_ms(duration))
    tokens = delta.total_tokens_delta
    if tokens:
        parts.append(f"{tokens:+,} tok")
    return " ".join(parts)
