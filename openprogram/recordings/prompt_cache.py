"""Where a session's prompt-cache prefix broke, why, and what the break cost.

A vendor's prompt cache serves the longest prefix of a request it has seen: tools, then system
prompt, then messages. Each call of an agent session should send what its predecessor sent, plus
its predecessor's answer, plus what is new; a call that sends something else from some place on
(an edited early message, a timestamp in the system prompt, a reordered tool list, another model)
pays full price for everything after that place, on every later call.

A call's predecessor is its request row's `base` (the call the writer stored its reference
against: the previous call of the same writer), or for a full row the call before it in the file.
Format 2 says per call how many messages of the base were kept, so the break is found in time
linear in the file: a full request is built only for a call whose row kept fewer messages than its
base had, to name the first differing path with the one difference walker.

Tokens are the vendor's, never estimated: a break could have read from cache the prompt tokens of
the predecessor (its `input + cache_read + cache_write`; its answer's tokens are not counted, as
reasoning is not sent back); `lost_tokens` is that minus what the vendor reported read. The cost a
break added is the call priced as recorded minus the call priced with the lost tokens read from
cache instead (written to the cache first, then plain input), with the bundled price table
(`cost.call_cost`); unknown when the model has no price.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from openprogram.providers.recording.differences import (
    PathToken,
    find_first_difference,
    format_field_path,
)
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.recording.request_references import (
    RequestChain,
    RequestReferenceError,
    json_text,
)
from openprogram.providers.recording.row_models import RequestRow
from openprogram.providers.types import AssistantMessage
from openprogram.recently_used import RecentlyUsed
from openprogram.recordings.call_stats import answer_of
from openprogram.recordings.cost import TokenCounts, call_cost

__all__ = [
    "BREAK_TEXT",
    "BreakKind",
    "CacheBreaks",
    "CallCache",
    "PrefixBreak",
    "PromptCacheReader",
    "PromptCacheReport",
    "better_kept",
    "prompt_cache_report",
]

BreakKind = Literal[
    "model_changed",
    "tools_changed",
    "system_prompt_changed",
    "context_changed",
    "options_changed",
    "message_edited",
    "message_removed",
    "message_inserted",
    "messages_reordered",
    "answer_changed",
]

BREAK_TEXT: dict[BreakKind, str] = {
    "model_changed": "the model changed",
    "tools_changed": "the tools changed",
    "system_prompt_changed": "the system prompt changed",
    "context_changed": "the context changed",
    "options_changed": "the options changed",
    "message_edited": "a message edited",
    "message_removed": "a message removed",
    "message_inserted": "a message inserted",
    "messages_reordered": "messages reordered",
    "answer_changed": "the previous answer sent back changed",
}
"""What each kind of break says, as a user reads it."""

MOVE_WINDOW = 50
"""How many messages after a break are looked at to find a message removed, inserted or moved."""


@dataclass(frozen=True)
class PrefixBreak:
    """Where a call stopped sending what its predecessor sent: the first differing path, its kind."""

    kind: BreakKind
    path: str
    """The field path in this call's request, e.g. `context.messages[1].content[0].text`."""

    @property
    def text(self) -> str:
        return BREAK_TEXT[self.kind]


@dataclass(frozen=True, slots=True)
class CallCache:
    """One call's prompt-cache facts."""

    call_index: int
    follows: int | None
    """The predecessor whose request and answer this call should continue (None: the first)."""
    kept_messages: int
    """Messages at the start of this call's request that the predecessor sent the same."""
    prefix_break: PrefixBreak | None
    prompt_tokens: int | None
    """This call's input tokens of every kind (None: no usage reported)."""
    cache_read: int | None
    cache_write: int | None
    cacheable_tokens: int | None
    """The predecessor's prompt tokens: what an unbroken prefix could have read from cache."""
    lost_tokens: int | None
    """For a break: the cacheable tokens the vendor did not report read (None: not known)."""
    added_cost: Decimal | None
    """For a break: what it added to this call's price (None: no break, or no known price)."""

    @property
    def read_share(self) -> float | None:
        """The share of this call's input the vendor read from cache."""
        if not self.prompt_tokens or self.cache_read is None:
            return None
        return self.cache_read / self.prompt_tokens

    def to_json(self) -> dict[str, Any]:
        broken = self.prefix_break
        return {
            "call_index": self.call_index,
            "follows": self.follows,
            "kept_messages": self.kept_messages,
            "break": None
            if broken is None
            else {"kind": broken.kind, "path": broken.path, "text": broken.text},
            "prompt_tokens": self.prompt_tokens,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "read_share": self.read_share,
            "cacheable_tokens": self.cacheable_tokens,
            "lost_tokens": self.lost_tokens,
            "added_cost_usd": None if self.added_cost is None else str(self.added_cost),
        }


@dataclass(frozen=True)
class CacheBreaks:
    """Every call broken the same way (kind and path): said once, with the calls and the sums."""

    kind: BreakKind
    path: str
    calls: tuple[int, ...]
    lost_tokens: int
    """The sum over the calls whose loss is known."""
    added_cost: Decimal | None
    """The sum over the calls priced; None when none could be."""
    unpriced: int
    """Calls of this group whose added cost is not known."""

    @property
    def text(self) -> str:
        return BREAK_TEXT[self.kind]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": self.path,
            "text": self.text,
            "calls": list(self.calls),
            "lost_tokens": self.lost_tokens,
            "added_cost_usd": None if self.added_cost is None else str(self.added_cost),
            "unpriced_calls": self.unpriced,
        }


@dataclass(frozen=True)
class PromptCacheReport:
    """A recording's prompt-cache facts: per call, the breaks grouped, and the session's totals."""

    calls: tuple[CallCache, ...]
    breaks: tuple[CacheBreaks, ...] = field(default=())

    @classmethod
    def of(cls, calls: Iterable[CallCache]) -> PromptCacheReport:
        """The report of calls whose facts were read one by one (the TUI's rows)."""
        facts = sorted(calls, key=lambda call: call.call_index)
        return cls(tuple(facts), _grouped(facts))

    @property
    def broken_calls(self) -> int:
        return sum(1 for call in self.calls if call.prefix_break is not None)

    def total(self, name: str) -> int:
        """The sum of `prompt_tokens`, `cache_read`, `cache_write` or `lost_tokens` over calls."""
        return sum(getattr(call, name) or 0 for call in self.calls)

    @property
    def read_share(self) -> float | None:
        """The share of the session's input tokens read from cache."""
        prompt = self.total("prompt_tokens")
        return self.total("cache_read") / prompt if prompt else None

    @property
    def added_cost(self) -> Decimal | None:
        priced = [group.added_cost for group in self.breaks if group.added_cost is not None]
        return sum(priced, Decimal(0)) if priced else None

    def totals_json(self) -> dict[str, Any]:
        added = self.added_cost
        return {
            "calls": len(self.calls),
            "broken_calls": self.broken_calls,
            "prompt_tokens": self.total("prompt_tokens"),
            "cache_read": self.total("cache_read"),
            "cache_write": self.total("cache_write"),
            "read_share": self.read_share,
            "lost_tokens": self.total("lost_tokens"),
            "added_cost_usd": None if added is None else str(added),
            "unpriced_breaks": sum(group.unpriced for group in self.breaks),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": self.totals_json(),
            "breaks": [group.to_json() for group in self.breaks],
            "calls": [call.to_json() for call in self.calls],
        }


@dataclass(slots=True)
class _Seen:
    """What a later call needs of an earlier one: no full request, no row the file's chain of
    requests can give again (a reader that keeps no call keeps the rows as bytes)."""

    call_index: int
    requests: RequestChain | None
    """The file's requests, to build this call's full request when a later call needs it."""
    row: RequestRow | None
    """Its request row when that is the full request (None: a reference, built from `requests`)."""
    messages: int | None
    """How many messages its full request holds (None: not a list)."""
    settings: dict[str, Any]
    """Its model, options and context fields other than the messages (shared objects)."""
    usage: TokenCounts | None
    answer: Any
    """Its answer's `content` as JSON (None: no answer)."""
    timestamp: int | None


def _settings_of_row(call: RecordedCall, base: _Seen | None) -> dict[str, Any]:
    stored = call.stored
    if base is None:
        request = call.request
        settings = {f"context.{k}": v for k, v in request.context.items() if k != "messages"}
        return {"model": request.model, "options": request.options, **settings}
    settings = dict(base.settings)
    if "model" in stored.model_fields_set:
        settings["model"] = stored.model
    if "options" in stored.model_fields_set:
        settings["options"] = stored.options
    for key, value in stored.context.items():
        if key != "messages":
            settings[f"context.{key}"] = value
    return settings


def _message_count(call: RecordedCall, base: _Seen | None) -> int | None:
    stored = call.stored
    own = stored.context.get("messages")
    if stored.base is None:
        return len(own) if isinstance(own, list) else None
    if base is None or base.messages is None:
        messages = call.request.context.get("messages")
        return len(messages) if isinstance(messages, list) else None
    return (stored.keep or 0) + (len(own) if isinstance(own, list) else 0)


_SETTINGS_ORDER = ("model", "context.tools", "context.system_prompt")
"""Checked first, in the order a vendor's cache reads them; then the other context fields, then
the options, then the messages."""


def _settings_break(before: dict[str, Any], after: dict[str, Any]) -> PrefixBreak | None:
    others = sorted(k for k in before.keys() | after.keys() if k not in _SETTINGS_ORDER)
    context = [k for k in others if k.startswith("context.")]
    rest = [k for k in others if not k.startswith("context.")]
    for key in (*_SETTINGS_ORDER, *context, *rest):
        old, new = before.get(key), after.get(key)
        if old is new:
            continue
        difference = find_first_difference(old, new)
        if difference is None:
            continue
        tokens: tuple[PathToken, ...] = (*key.split(".", 1), *difference.path_tokens)
        kind: BreakKind = (
            "model_changed"
            if key == "model"
            else "tools_changed"
            if key == "context.tools"
            else "system_prompt_changed"
            if key == "context.system_prompt"
            else "options_changed"
            if key == "options"
            else "context_changed"
        )
        return PrefixBreak(kind, format_field_path(list(tokens)))
    return None


def _found_later(value: Any, items: list[Any], start: int) -> bool:
    """Whether `value` is among the `MOVE_WINDOW` items of `items` from `start` (equal JSON)."""
    text = json_text(value)
    return any(json_text(item) == text for item in items[start : start + MOVE_WINDOW])


def _messages_break(before: list[Any], after: list[Any], kept: int) -> PrefixBreak | None:
    """What happened at message `kept`, the first the predecessor sent that this call did not
    send the same: moved (each side's message is found a little later in the other), removed
    (this call's is found later in the predecessor's), inserted (the other way) or edited (the
    one difference walker names the path inside it)."""
    if kept >= len(before):
        return None
    at: list[PathToken] = ["context", "messages", kept]
    if kept >= len(after):
        return PrefixBreak("message_removed", format_field_path(at))
    old, new = before[kept], after[kept]
    difference = find_first_difference(old, new)
    if difference is None:
        return None
    removed = _found_later(new, before, kept + 1)
    inserted = _found_later(old, after, kept + 1)
    if removed and inserted:
        return PrefixBreak("messages_reordered", format_field_path(at))
    if removed or inserted:
        kind: BreakKind = "message_removed" if removed else "message_inserted"
        return PrefixBreak(kind, format_field_path(at))
    return PrefixBreak("message_edited", format_field_path([*at, *difference.path_tokens]))


def _kept_of_full(before: list[Any], after: list[Any]) -> int:
    """How many leading messages two full lists share (the walker's sense of equal)."""
    kept = 0
    for old, new in zip(before, after, strict=False):
        if old is not new and find_first_difference(old, new) is not None:
            break
        kept += 1
    return kept


def _messages(call: RecordedCall | _Seen) -> list[Any]:
    if isinstance(call, RecordedCall):
        request = call.request
    elif call.row is not None:
        request = call.row
    else:
        assert call.requests is not None
        request = call.requests.full(call.call_index)
    messages = request.context.get("messages")
    return messages if isinstance(messages, list) else []


def _answer_break(call: RecordedCall, predecessor: _Seen, at: int) -> PrefixBreak | None:
    """Whether the message after the predecessor's own is its answer, sent back unchanged (only
    an assistant message is compared: an agent may send no answer back, which keeps the prefix)."""
    if predecessor.answer is None:
        return None
    stored = call.stored
    own = stored.context.get("messages")
    if stored.base == predecessor.call_index:  # its row holds what follows the kept ones
        added = own if isinstance(own, list) else []
        sent = added[0] if added and (stored.keep or 0) == at else None
    else:
        messages = _messages(call)
        sent = messages[at] if len(messages) > at else None
    if not isinstance(sent, dict) or sent.get("role") != "assistant":
        return None
    difference = find_first_difference(predecessor.answer, sent.get("content"))
    if difference is None:
        return None
    tokens: list[PathToken] = ["context", "messages", at, "content", *difference.path_tokens]
    return PrefixBreak("answer_changed", format_field_path(tokens))


def _prompt_tokens(usage: TokenCounts | None) -> int | None:
    return None if usage is None else usage.input + usage.cache_read + usage.cache_write


def _added_cost(seen: _Seen, lost: int) -> Decimal | None:
    """The call's price as recorded minus its price had `lost` tokens been read from cache."""
    usage = seen.usage
    if usage is None:
        return None
    actual = call_cost(usage, seen.settings["model"], seen.timestamp)
    from_write = min(lost, usage.cache_write)
    from_input = min(lost - from_write, usage.input)
    kept = dataclasses.replace(
        usage,
        cache_read=usage.cache_read + from_write + from_input,
        cache_write=usage.cache_write - from_write,
        input=usage.input - from_input,
    )
    hoped = call_cost(kept, seen.settings["model"], seen.timestamp)
    return None if actual is None or hoped is None else actual - hoped


def _seen(call: RecordedCall, base: _Seen | None, answer: AssistantMessage | None) -> _Seen:
    referred = call.requests is not None and call.stored.base is not None
    return _Seen(
        call.call_index,
        call.requests,
        None if referred else call.stored,  # a reference is built again from the chain
        _message_count(call, base),
        _settings_of_row(call, base),
        TokenCounts.of(answer.usage) if answer is not None else None,
        [block.model_dump(mode="json") for block in answer.content] if answer else None,
        answer.timestamp if answer is not None else None,
    )


def _call_cache(
    call: RecordedCall, me: _Seen, predecessor: _Seen | None, priced: bool
) -> CallCache:
    usage = me.usage
    prompt = _prompt_tokens(usage)
    read = usage.cache_read if usage is not None else None
    write = usage.cache_write if usage is not None else None
    if predecessor is None:
        return CallCache(call.call_index, None, 0, None, prompt, read, write, None, None, None)
    stored = call.stored
    count = predecessor.messages or 0
    prefix_break = _settings_break(predecessor.settings, me.settings)
    if stored.base == predecessor.call_index and predecessor.messages is not None:
        kept = min(stored.keep or 0, count)  # the row says how many messages it kept
    else:
        kept = 0
    if kept < count:  # only now are the two requests built, to say where and why
        before, after = _messages(predecessor), _messages(call)
        kept += _kept_of_full(before[kept:], after[kept:])
        found = _messages_break(before, after, kept)
        if prefix_break is None:
            prefix_break = found
    if prefix_break is None and kept == count:
        prefix_break = _answer_break(call, predecessor, count)
    cacheable = _prompt_tokens(predecessor.usage)
    lost = cost = None
    if prefix_break is not None:
        kept = 0 if not prefix_break.kind.startswith(("message", "answer")) else kept
        if cacheable is not None and prompt is not None and read is not None:
            lost = max(0, min(cacheable, prompt) - read)
            if priced:  # nothing lost costs nothing, whatever the model's price
                cost = _added_cost(me, lost) if lost else Decimal(0)
    return CallCache(
        call.call_index, predecessor.call_index, kept, prefix_break, prompt, read, write,
        cacheable, lost, cost,
    )  # fmt: skip


class PromptCacheReader:
    """Reads calls' prompt-cache facts one at a time, keeping per call only what a later call
    needs (its message count, model, options and context fields as shared objects, its usage and
    answer), never its events or its full request: a reader of calls in order does work linear in
    the file, and one that reads out of order (the TUI's visible rows) hands in the predecessor."""

    def __init__(
        self,
        fold: Callable[[RecordedCall], AssistantMessage | None] = answer_of,
        *,
        remember: int | None = None,
    ) -> None:
        """`fold`: a call's answer from its events (by default `call.events`; a reader that reads
        events one at a time folds them as they come). `remember`: keep what later calls need of
        at most this many calls, the least recently used forgotten first (a later call whose
        predecessor was forgotten is handed it again); None: every call read."""
        self._fold = fold
        self._seen: RecentlyUsed[int, _Seen] = RecentlyUsed(remember)
        """Safe to share: the TUI reads numbers from more than one worker."""

    @staticmethod
    def predecessor_of(call: RecordedCall) -> int:
        """The call `call` continues: its row's base, else the call before it."""
        base = call.stored.base
        return base if base is not None else call.call_index - 1

    def knows(self, call_index: int) -> bool:
        """Whether call `call_index` was read (a later call can be read without handing it in)."""
        return call_index in self._seen

    def read(
        self, call: RecordedCall, predecessor: RecordedCall | None = None, *, priced: bool = True
    ) -> CallCache | None:
        """`call`'s facts (None when its request cannot be followed); `predecessor`, the call it
        continues, is read first when it was not read yet (reading out of order). `priced=False`
        leaves the cost out without loading the price table."""
        try:
            wanted, remembered = self.predecessor_of(call), None
            if predecessor is not None and predecessor.call_index not in self._seen:
                remembered = self._remember(predecessor)
            before = self._seen.get(wanted)
            if before is None and remembered is not None and predecessor is not None:
                before = remembered if predecessor.call_index == wanted else None  # forgotten since
            me = self._remember(call, before)
            return _call_cache(call, me, before, priced)
        except RequestReferenceError:
            return None  # a request the reader could not follow has no facts

    def _remember(self, call: RecordedCall, before: _Seen | None = None) -> _Seen:
        base = call.stored.base
        if before is None or before.call_index != base:
            before = self._seen.get(base) if base is not None else None
        me = _seen(call, before if base is not None else None, self._fold(call))
        self._seen.put(call.call_index, me)
        return me


def prompt_cache_report(calls: Iterable[RecordedCall], *, priced: bool = True) -> PromptCacheReport:
    """Every call's prompt-cache facts and the breaks grouped by kind and path, in one pass over
    the calls in order, each call's events folded and let go (a reader may read them one call at
    a time). `priced=False` leaves costs out without loading the price table."""
    reader = PromptCacheReader()
    facts = [fact for call in calls if (fact := reader.read(call, priced=priced)) is not None]
    return PromptCacheReport(tuple(facts), _grouped(facts))


def _grouped(facts: list[CallCache]) -> tuple[CacheBreaks, ...]:
    groups: dict[tuple[BreakKind, str], list[CallCache]] = {}
    for call in facts:
        if call.prefix_break is not None:
            key = (call.prefix_break.kind, call.prefix_break.path)
            groups.setdefault(key, []).append(call)
    result = []
    for (kind, path), members in groups.items():
        priced = [c.added_cost for c in members if c.added_cost is not None]
        result.append(
            CacheBreaks(
                kind,
                path,
                tuple(c.call_index for c in members),
                sum(c.lost_tokens or 0 for c in members),
                sum(priced, Decimal(0)) if priced else None,
                len(members) - len(priced),
            )
        )
    return tuple(result)


def better_kept(a: PromptCacheReport, b: PromptCacheReport) -> Literal["a", "b"] | None:
    """Which of two sessions kept its prompt-cache prefix better: fewer tokens lost to breaks,
    then fewer calls broken; None when they are even."""
    score_a = (a.total("lost_tokens"), a.broken_calls)
    score_b = (b.total("lost_tokens"), b.broken_calls)
    if score_a == score_b:
        return None
    return "a" if score_a < score_b else "b"
