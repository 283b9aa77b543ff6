"""The session on one time axis: where each call's bar starts, how long it is in the model, and
how long the program took after it, in columns of a given width; and the session's totals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openprogram.text import plural
from tui.model.call_columns import format_cost_short, format_ms, format_tokens

if TYPE_CHECKING:
    from openprogram.recordings.call_stats import CallStats, SessionStats
    from openprogram.recordings.prompt_cache import PromptCacheReport


@dataclass(frozen=True)
class Bar:
    """One call on the axis, in columns: `start` blank, `model` in the model, `gap` after it."""

    start: int
    model: int
    gap: int


@dataclass(frozen=True)
class TimeAxis:
    """The session on one axis: from the first call's start (`start_ms`, after the recording's
    start) for `length_ms`, as the totals count its wall time."""

    start_ms: int
    length_ms: int


def time_axis(stats: Sequence[CallStats | None]) -> TimeAxis | None:
    """The axis of the calls `stats`: the first start to the latest end of a call or of the gap
    after it; None: no times."""
    timed = [
        (s.start_ms, s.start_ms + s.duration_ms + (s.gap_after_ms or 0))
        for s in stats
        if s is not None and s.start_ms is not None and s.duration_ms is not None
    ]
    if not timed:
        return None
    start = min(begin for begin, _ in timed)
    return TimeAxis(start, max(end for _, end in timed) - start)


def bar(stats: CallStats | None, axis: TimeAxis, width: int) -> Bar | None:
    """Where call `stats` sits on `axis` drawn in `width` columns (a call takes at least one
    column, so a short one is still seen); None when its times were not recorded."""
    if stats is None or stats.start_ms is None or stats.duration_ms is None or width <= 0:
        return None
    scale = width / max(axis.length_ms, 1)
    start = min(max(0, int((stats.start_ms - axis.start_ms) * scale)), width - 1)
    model = max(1, round(stats.duration_ms * scale))
    model = min(model, width - start)
    gap = round((stats.gap_after_ms or 0) * scale)
    return Bar(start, model, max(0, min(gap, width - start - model)))


def session_line(
    session: SessionStats, prices: str | None, cache: PromptCacheReport | None = None
) -> str:
    """`200 calls · 1m52s: 16s in the model, 1m36s between calls · tokens 12k in, 3.1k out, …`,
    then the prompt cache (`cache 70% read, prefix broke on 1 call (744 lost)`)."""
    usage = session.usage
    parts = [plural(session.calls, "call")]
    if session.wall_ms is not None and session.model_ms is not None:
        between = session.wall_ms - session.model_ms
        parts.append(
            f"{format_ms(session.wall_ms)}: {format_ms(session.model_ms)} in the model, "
            f"{format_ms(between)} between calls"
        )
    else:
        parts.append("times not recorded")
    tokens = (
        f"tokens {format_tokens(usage.input)} in, {format_tokens(usage.output)} out, "
        f"{format_tokens(usage.cache_read)} cache read, {format_tokens(usage.cache_write)} cache "
        "write"
    )
    if usage.reasoning is not None:
        tokens += f", {format_tokens(usage.reasoning)} reasoning"
    parts.append(tokens)
    if prices is None:
        parts.append("no cost (prices: install the extra `openprogram[cost]`)")
    elif session.cost is None:
        parts.append(f"no known price ({prices})")
    else:
        unpriced = f", {plural(session.unpriced, 'call')} unpriced" if session.unpriced else ""
        parts.append(f"{format_cost_short(session.cost)}{unpriced} ({prices})")
    if cache is not None and cache.read_share is not None:
        said = f"cache {cache.read_share:.0%} read"
        if cache.broken_calls:
            lost = format_tokens(cache.total("lost_tokens"))
            calls = "call" if cache.broken_calls == 1 else "calls"
            said += f", prefix broke on {cache.broken_calls} {calls} ({lost} lost)"
        parts.append(said)
    return " · ".join(parts)
