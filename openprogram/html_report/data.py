"""The data a report page shows, as JSON-ready values: sanitised, each distinct value once.

A long session repeats its conversation in every request; the page keeps each distinct message,
tool list, system prompt, model and options once in a pool and lets each call refer to it, so the
page grows with what the session said, not with calls × history.
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterable, Iterator, Sequence
from typing import Any

from openprogram.providers.recording.reader import RecordedCall
from openprogram.recordings.call_stats import CallStats, calls_stats, session_stats
from openprogram.recordings.cost import format_cost, price_table
from openprogram.recordings.details import CallRow, describe_calls
from openprogram.recordings.prompt_cache import CallCache, PromptCacheReport, prompt_cache_report
from openprogram.text import plural
from openprogram.visible_text import visible

MAX_DEPTH = 64
"""Values nested deeper are shown as a note, not walked."""
EVENT_TEXT_LIMIT = 2000
"""At most this many characters of one event's value are kept for the events list."""


def safe(value: Any, depth: int = 0) -> Any:
    """`value` with every string (keys too) through `visible`: nothing in it can act on a page."""
    if isinstance(value, str):
        return visible(value)
    if depth >= MAX_DEPTH and isinstance(value, dict | list | tuple):
        return f"… (nested deeper than {MAX_DEPTH} levels, not shown)"
    if isinstance(value, dict):
        return {visible(str(key)): safe(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [safe(item, depth + 1) for item in value]
    if isinstance(value, float) and value != value:  # NaN: not JSON
        return "NaN"
    return value


def cut(text: str, limit: int = EVENT_TEXT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def compact_json(value: Any) -> str:
    """`value` as the page writes it: JSON, no spaces, non-ASCII as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Pool:
    """Distinct JSON values, each kept once as its `compact_json` text (a message as text is a
    tenth of it as Python objects); `ref` gives a value's index. The text is its own key: a file
    writes a value's keys in one order (the recorder sorts them), so equal values have one text."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._index: dict[str, int] = {}

    def ref(self, value: Any) -> int:
        text = compact_json(value)
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.texts)
            self.texts.append(text)
        return found


def _event_text(event: dict[str, Any]) -> str:
    kind = event.get("type")
    if kind in ("text_delta", "thinking_delta", "toolcall_delta"):
        return str(event.get("delta", ""))
    if kind == "toolcall_start":
        return str(event.get("name", ""))
    if kind in ("text_end", "thinking_end"):
        return f"{len(str(event.get('content', '')))} characters"
    if kind == "toolcall_end":
        call = event.get("tool_call") or {}
        arguments = json.dumps(call.get("arguments"), ensure_ascii=False, sort_keys=True)
        return f"{call.get('name')} {arguments}"
    if kind == "done":
        return str(event.get("reason", ""))
    if kind == "error":
        error = event.get("error") or {}
        return f"{event.get('reason')}: {error.get('error_message') or ''}".rstrip(": ")
    return ""


def call_details(call: RecordedCall, pool: Pool, on_page: Container[int]) -> dict[str, Any]:
    """What the page shows of one call when it is opened: request (by pool refs), events, answer.

    The request is kept as the file keeps it: a call whose base call is on the page (`on_page`)
    holds only what changed (`base`, `keep`, its own messages, the fields it changed), and the
    page rebuilds the full request of the call it opens; a page never holds N copies of a
    conversation."""
    stored = call.stored
    if stored.base is not None and stored.base in on_page:
        row: Any = stored
        base: int | None = stored.base
    else:
        row, base = call.request, None
    own = row.context.get("messages")
    request: dict[str, Any] = {
        "base": base,
        "keep": (row.keep or 0) if base is not None else 0,
        "messages": [pool.ref(safe(message)) for message in own] if isinstance(own, list) else [],
        "context": {
            visible(key): pool.ref(safe(value))
            for key, value in row.context.items()
            if key != "messages"
        },
    }
    for key in ("model", "options"):
        if base is None or key in row.model_fields_set:
            request[key] = pool.ref(safe(getattr(row, key)))
    events = []
    answer: Any = None
    for event in call.events:
        dumped = event.model_dump(mode="json")
        events.append([visible(str(dumped.get("type"))), visible(cut(_event_text(dumped)))])
        if dumped.get("type") == "done":
            answer = dumped.get("message")
        elif dumped.get("type") == "error":
            answer = dumped.get("error")
    return {
        "request": request,
        "events": events,
        "answer": safe(answer),
        "outcome": call.outcome,
        "error": visible(call.error) if call.error else None,
    }


def call_rows(
    calls: Sequence[RecordedCall], stats_of_calls: Sequence[CallStats] | None = None
) -> list[dict[str, Any]]:
    """One row per call for the calls table: what it asked, how it ended, times, tokens and cost
    (`stats_of_calls`, when the caller has them already, saves folding every call again)."""
    calls = tuple(calls)
    stats_of_calls = calls_stats(calls) if stats_of_calls is None else stats_of_calls
    return list(table_rows(describe_calls(calls), stats_of_calls, prompt_cache_report(calls).calls))


def table_rows(
    described: Sequence[CallRow], stats_of_calls: Sequence[CallStats], cache: Iterable[CallCache]
) -> Iterator[dict[str, Any]]:
    """`call_rows` of calls already described, counted and read for their prompt cache (each
    sequence in call order; `cache` may miss a call whose request could not be followed), made
    one at a time (a page keeps each as its text)."""
    facts = {fact.call_index: fact for fact in cache}
    for row, stats in zip(described, stats_of_calls, strict=True):
        usage = stats.usage
        share, broke = cache_cell(facts.get(row.call_index))
        yield {
            "index": row.call_index,
            "model": visible(f"{row.provider or '?'}/{row.model or '?'}"),
            "api": visible(row.api or "?"),
            "outcome": row.outcome,
            "events": row.events,
            "tokens": "–"
            if usage is None
            else f"{usage.input + usage.cache_read:,}/{usage.output:,}",
            "cost": format_cost(stats.cost),
            "cache": share,
            "cache_break": broke,
            "took": format_ms(stats.duration_ms),
            "duration_ms": stats.duration_ms,
            "gap_after_ms": stats.gap_after_ms,
            "first_token": format_ms(stats.first_token_ms),
            "first": visible(row.new_text or ""),
        }


def cache_cell(fact: CallCache | None) -> tuple[str, str | None]:
    """The share of the call's input read from cache (`70%`, `–`), marked `⚠` where its prefix
    broke, and the break said in words (None: it did not break)."""
    if fact is None:
        return "–", None
    share = "–" if fact.read_share is None else f"{fact.read_share:.0%}"
    broken = fact.prefix_break
    if broken is None:
        return share, None
    said = f"the prompt-cache prefix broke: {broken.text} at {broken.path}"
    if fact.lost_tokens is not None:
        said += f"; {fact.lost_tokens:,} tokens could have been read from cache and were not"
    if fact.added_cost is not None:
        said += f" (+{format_cost(fact.added_cost)})"
    return f"⚠ {share}", visible(said)


def cache_facts(report: PromptCacheReport) -> list[list[str]]:
    """The session's prompt-cache line: the share read from cache, and the breaks."""
    share = report.read_share
    said = "no input tokens reported" if share is None else f"{share:.0%} of input read from cache"
    if report.breaks:
        said += f"; prefix broke on {report.broken_calls} of {plural(len(report.calls), 'call')}"
        said += f" ({report.total('lost_tokens'):,} tokens lost"
        added = report.added_cost
        said += f", +{format_cost(added)})" if added is not None else ", cost unknown)"
    else:
        said += "; the prefix never broke"
    return [["prompt cache", said]]


def format_ms(ms: int | None) -> str:
    """`230 ms`, `4.2 s`, or `not recorded` (never 0 for a time the file does not hold)."""
    if ms is None:
        return "not recorded"
    return f"{ms} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def session_facts(stats_of_calls: Sequence[CallStats]) -> list[list[str]]:
    """Time in the model and between calls, tokens by kind and the cost of the session."""
    session = session_stats(stats_of_calls)
    usage = session.usage
    tokens = (
        f"{usage.input:,} in, {usage.cache_read:,} cache read, "
        f"{usage.cache_write:,} cache write, {usage.output:,} out"
    )
    if usage.reasoning is not None:
        tokens += f" ({usage.reasoning:,} reasoning)"
    facts = [["tokens", tokens]]
    if session.wall_ms is not None and session.model_ms is not None:
        between = session.wall_ms - session.model_ms
        facts.insert(
            0,
            ["time", f"{format_ms(session.wall_ms)} ({format_ms(session.model_ms)} in the model, "
                     f"{format_ms(between)} between calls)"],
        )  # fmt: skip
    else:
        facts.insert(0, ["time", "not recorded"])
    if session.cost is not None:
        cost = format_cost(session.cost)
        if session.unpriced:
            cost += f" ({plural(session.unpriced, 'call')} of unknown price not counted)"
        facts.append(["cost", f"{cost} · {price_table()}"])
    return facts
