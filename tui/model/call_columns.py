"""The number columns of the call list, and which of them fit a row of a given width.

Columns are added in the order below while the model name keeps `MODEL_ROOM` characters, so a
narrow list (80 columns: about 30) shows the duration beside the whole model name, a list widened
with `w` adds tokens in/out, first token and gap, and a wide one every kind of token and the cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from openprogram.text import plural
from tui.model.call_order import SortKey

if TYPE_CHECKING:  # the list's first rows are drawn before the row models are loaded
    from openprogram.recordings.call_stats import CallStats
    from openprogram.recordings.prompt_cache import CallCache

NOT_RECORDED = "–"
"""A time the file does not hold (a version-1 or migrated call): never shown as 0."""

MODEL_ROOM = 16
"""Characters the model name keeps before another number column is added."""
PENDING_CELL = "…"
"""A number not read yet (the call is read in a worker)."""


def _usage_cell(kind: str) -> Callable[[CallStats], str]:
    """The cell of one kind of token (`input`, `cache_read`, ... as `Usage` names them)."""
    return lambda s: NOT_RECORDED if s.usage is None else format_tokens(getattr(s.usage, kind))


def _in_out(stats: CallStats) -> str:
    usage = stats.usage
    if usage is None:
        return NOT_RECORDED
    return f"{format_tokens(usage.input)}/{format_tokens(usage.output)}"


@dataclass(frozen=True)
class NumberColumn:
    """One column of numbers: its heading, width, the text of a call's cell, the key it sorts."""

    name: str
    heading: str
    width: int
    cell: Callable[[CallStats], str]
    sort_key: SortKey | None = None
    wide_only: bool = False
    """Shown only where the tokens have a column each (in place of `in/out`)."""
    narrow_only: bool = False
    of_cache: bool = False
    """Its cell is the call's prompt-cache facts (`cache_cell`), not a number of `CallStats`."""


COLUMNS: tuple[NumberColumn, ...] = (
    NumberColumn("duration", "took", 5, lambda s: format_ms(s.duration_ms), SortKey.DURATION),
    NumberColumn("in_out", "in/out", 9, _in_out, SortKey.TOKENS_IN, narrow_only=True),
    NumberColumn(
        "input",
        "in",
        5,
        _usage_cell("input"),
        SortKey.TOKENS_IN,
        wide_only=True,
    ),
    NumberColumn(
        "output",
        "out",
        5,
        _usage_cell("output"),
        SortKey.TOKENS_OUT,
        wide_only=True,
    ),
    NumberColumn(
        "first_token", "first", 5, lambda s: format_ms(s.first_token_ms), SortKey.FIRST_TOKEN
    ),
    NumberColumn("gap", "gap", 5, lambda s: format_ms(s.gap_after_ms), SortKey.GAP),
    NumberColumn("cost", "cost", 6, lambda s: format_cost_short(s.cost), SortKey.COST),
    NumberColumn("cache", "cache", 5, lambda s: NOT_RECORDED, of_cache=True),
    NumberColumn(
        "cache_read",
        "c.rd",
        5,
        _usage_cell("cache_read"),
        wide_only=True,
    ),
    NumberColumn(
        "cache_write",
        "c.wr",
        5,
        _usage_cell("cache_write"),
        wide_only=True,
    ),
    NumberColumn("reasoning", "reas", 5, _usage_cell("reasoning"), wide_only=True),
)
COST = next(column for column in COLUMNS if column.name == "cost")
"""The cost column: its calls are read with the price table (`CallNumbers.need_prices`)."""
WIDE_ROW = 110
"""From this row width on, every kind of token has its own column."""


def columns_for(room: int) -> tuple[NumberColumn, ...]:
    """The number columns that fit in `room` characters beside a model name of `MODEL_ROOM`."""
    wide = room + MODEL_ROOM >= WIDE_ROW
    chosen: list[NumberColumn] = []
    left = room
    for column in COLUMNS:
        if (column.wide_only and not wide) or (column.narrow_only and wide):
            continue
        if column.width + 1 > left:
            break
        chosen.append(column)
        left -= column.width + 1
    return tuple(chosen)


def cell_text(
    column: NumberColumn, stats: CallStats | None, known: bool, cache: CallCache | None = None
) -> str:
    """A call's cell: its number, `–` when not recorded, `…` while it is being read."""
    if not known:
        return PENDING_CELL
    if column.of_cache:
        return cache_cell(cache)
    if stats is None:
        return "?"
    return column.cell(stats)


BROKE_MARK = "⚠"
"""Marks a call whose prompt-cache prefix broke (the call's detail says where and why)."""


def cache_cell(fact: CallCache | None) -> str:
    """The share of the call's input read from cache (`70%`), `⚠` before it where the prefix
    broke; `–` when the vendor reported no tokens."""
    if fact is None:
        return NOT_RECORDED
    share = NOT_RECORDED if fact.read_share is None else f"{fact.read_share:.0%}"
    return BROKE_MARK + share if fact.prefix_break is not None else share


def cache_line(fact: CallCache | None) -> str:
    """The call's prompt-cache facts for its detail: where and why its prefix broke, the tokens
    that could have been read and were, and what the break added; or what it kept."""
    if fact is None:
        return "prompt cache: not known (no answer or an unreadable request)"
    from openprogram.recordings.cost import format_cost
    from openprogram.visible_text import visible_line

    read = "–" if fact.cache_read is None else format_tokens(fact.cache_read)
    broken = fact.prefix_break
    if fact.follows is None:
        return f"prompt cache: the first call · read {read}"
    if broken is None:
        return (
            f"prompt cache: kept the prefix of call {fact.follows} "
            f"({plural(fact.kept_messages, 'message')}) · read {read}"
        )
    where = visible_line(broken.path)  # the path names the file's keys: text from a file
    line = f"{BROKE_MARK} prompt cache broke after call {fact.follows}: {broken.text} at {where}"
    if fact.cacheable_tokens is not None:
        line += f" · could read {format_tokens(fact.cacheable_tokens)}, read {read}"
    if fact.lost_tokens is not None:
        line += f" · lost {format_tokens(fact.lost_tokens)}"
    if fact.added_cost is not None:
        line += f" (+{format_cost(fact.added_cost)})"
    return line


def heading(column: NumberColumn, key: SortKey, descending: bool) -> str:
    """The column's heading, marked `↓`/`↑` when the list is sorted by it."""
    if column.sort_key is key and key is not SortKey.FILE:
        return column.heading + ("↓" if descending else "↑")
    return column.heading


def format_ms(ms: int | None) -> str:
    """`230ms`, `4.2s`, `38s`, `2m05`; `–` for a time not recorded."""
    if ms is None:
        return NOT_RECORDED
    if ms < 1000:
        return f"{ms}ms"
    if ms < 10_000:
        return f"{ms / 1000:.1f}s"
    if ms < 60_000:
        return f"{ms // 1000}s"
    minutes, seconds = divmod(ms // 1000, 60)
    return f"{minutes}m{seconds:02d}"


def format_tokens(count: int | None) -> str:
    """`840`, `12k`, `1.2M`; `–` when not said."""
    if count is None:
        return NOT_RECORDED
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M"


def format_cost_short(cost: Decimal | None) -> str:
    """`$0.012`, `<$.001`; empty when the price is unknown (no cost, never a wrong one)."""
    if cost is None:
        return ""
    if cost and cost < Decimal("0.001"):
        return "<$.001"
    return f"${cost:.3f}" if cost < 10 else f"${cost:.0f}"


def numbers_line(stats: CallStats, *, last: bool, prices: str | None) -> str:
    """The call's numbers for its detail, each named, on three lines (times, tokens, cost):
    `took 4.2s · first token 380ms · gap after 1.5s`, `tokens in 1.2k · out 310 · cache read 0 ·
    cache write 0 · reasoning –`, `cost $0.0042 (genai-prices …)`. A time the file does not hold
    says `not recorded`, never 0; the last call has no gap; an unknown price shows no cost."""
    from openprogram.recordings.cost import format_cost

    def time(label: str, ms: int | None) -> str:
        return f"{label} {format_ms(ms)}" if ms is not None else f"{label} not recorded"

    times = [time("took", stats.duration_ms), time("first token", stats.first_token_ms)]
    times.append("last call" if last else time("gap after", stats.gap_after_ms))
    usage = stats.usage
    tokens = (
        "no tokens (no answer)"
        if usage is None
        else f"tokens in {format_tokens(usage.input)} · out {format_tokens(usage.output)} · "
        f"cache read {format_tokens(usage.cache_read)} · "
        f"cache write {format_tokens(usage.cache_write)} · "
        f"reasoning {format_tokens(usage.reasoning)}"
    )
    if prices is None:
        cost = "no cost (the optional extra `cost` is not installed)"
    elif stats.cost is None:
        cost = "no known price for this model"
    else:
        cost = f"cost {format_cost(stats.cost)} ({prices})"
    return "\n".join((" · ".join(times), tokens, cost))
