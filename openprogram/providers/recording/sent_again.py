"""Messages sent again: which messages of a request the last request already sent, unchanged.

An agent sends its whole conversation on every call: call N carries the N−1 earlier turns again.
This module is the one owner of that shortcut: what "unchanged" means, the rule its callers keep,
and every pass that compares messages by identity. The recorder, the writer and the replayer call
it; nothing else compares messages by identity. docs/design-decisions.md has the numbers that keep
each part ("Messages sent again have one owner").

**The recorder** (`StoredForms`, under `recorder.StoredMessages`) dumps every message of every
call, and a message is unchanged when its dump is the same JSON text (`json_text`: `1` is not
`true`) as last time's at its place: it keeps the form stored then, without being redacted and
scrubbed again. The writer finds the start a request shares with the last one it stored by
`identical_prefix` of those stored forms (the recorder hands back the very objects), then by value
(`request_references.referring_row`).

**Replay** (`ReplayedMessages`) skips the dump too. Comparing objects instead of dumps is only
sound when every value they hold is compared: agents edit messages in place (an old tool result
cleared, a block appended). `UnchangedMessages` remembers, for each message, every container its
dump depends on (the message's and each block's field dict, each list and each JSON object) with
the very objects each held. A message is unchanged when it is the same object at the same place
and each of those containers holds the same objects (by identity, so `1` and `True` are never
mixed up) in the same number. The comparison runs as a few passes in C over flat lists
(`map(operator.is_, …)`), about 0.5 µs a message against 2.5 µs for a dump. Only exact instances
of the message and block types of `openprogram.providers.types` are followed (their dumps depend on
their fields alone); anything else (a subclass, a set, a custom object) is never called unchanged,
so it is dumped every time. A message is followed from the second call that sends it (the first
dumps it anyway, and an agent that builds new message objects for every call never pays for
following them).

**The lock rule.** `count` and `remember` of one request run under the caller's one lock, and
`remember` runs right after the messages not counted unchanged were dumped, before any `await`:
what is remembered is what was dumped.

**Replay's fast equality.** The leading messages that are unchanged since the last matched
request, that matched their recorded ones with no difference at all then (none absorbed by a rule,
none accepted), and that face the very same recorded objects now, are *settled*: neither dumped
nor compared again. `without_settled` puts one empty object in their place on both sides; the
difference walker skips an item that is the very object on both sides, and its paths, list
alignment and rules see the rest at their true indices.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, compress, count
from operator import attrgetter, is_, is_not
from typing import Any

import pydantic_core
from pydantic import BaseModel, TypeAdapter

from openprogram.providers.recording.differences import FieldDifference
from openprogram.providers.types import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

__all__ = [
    "ReplayedMessages",
    "Resent",
    "StoredForms",
    "UnchangedMessages",
    "dump_message",
    "identical_prefix",
    "json_text",
    "without_settled",
]

_MESSAGE = TypeAdapter(Message)


def dump_message(message: Message) -> dict[str, Any]:
    """One message's JSON dump, as `Context.model_dump(mode="json")` dumps each of its messages."""
    dumped: dict[str, Any] = _MESSAGE.dump_python(message, mode="json")
    return dumped


def json_text(value: Any) -> bytes:
    """`value` as compact JSON (NaN and infinities as their constants): two values are stored the
    same exactly when these are equal. Python's `==` is not enough: `1 == True == 1.0`."""
    return pydantic_core.to_json(value, inf_nan_mode="constants")


def identical_prefix(first: Sequence[Any], second: Sequence[Any]) -> int:
    """How many leading items of `first` are the very objects at the same places of `second`
    (one pass in C)."""
    return next(compress(count(), map(is_not, first, second)), min(len(first), len(second)))


_FOLLOWED_MODELS = frozenset(
    {
        AssistantMessage,
        ImageContent,
        TextContent,
        ThinkingContent,
        ToolCall,
        ToolResultMessage,
        Usage,
        UserMessage,
    }
)
_IMMUTABLE = frozenset({str, int, float, bool, type(None)})
MAX_DEPTH = 64
"""A message nested deeper than this is not followed (dumped every time)."""

_FIELDS = attrgetter("__dict__")


class _Parts:
    """The containers of one or more messages, flat, with what each held when taken."""

    __slots__ = (
        "elements",
        "fields",
        "keyed",
        "keyed_lengths",
        "mapped",
        "mapped_lengths",
        "models",
        "values",
    )

    def __init__(self) -> None:
        self.models: list[BaseModel] = []
        """Every followed model; `fields` holds its field dict (`__dict__`) at the same place."""
        self.fields: list[dict[str, Any]] = []
        self.keyed: list[Any] = []
        """Lists and JSON objects: their items (a JSON object's keys, in order) are `elements`."""
        self.keyed_lengths: list[int] = []
        self.mapped: list[dict[str, Any]] = []
        """Field dicts of `models`, then JSON objects: their values are `values`."""
        self.mapped_lengths: list[int] = []
        self.elements: list[Any] = []
        self.values: list[Any] = []

    def sizes(self) -> tuple[int, int, int, int, int]:
        return (
            len(self.models),
            len(self.keyed),
            len(self.mapped),
            len(self.elements),
            len(self.values),
        )


def _take(value: Any, parts: _Parts, depth: int) -> bool:
    """Add the containers of `value` to `parts`; False when `value` cannot be followed."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return True
    if depth > MAX_DEPTH:
        return False
    if kind in _FOLLOWED_MODELS:
        if value.__pydantic_extra__ is not None:
            return False
        fields = value.__dict__
        parts.models.append(value)
        parts.fields.append(fields)
        parts.mapped.append(fields)
        return all(_take(inner, parts, depth + 1) for inner in fields.values())
    if kind is list:
        parts.keyed.append(value)
        return all(_take(inner, parts, depth + 1) for inner in value)
    if kind is dict:
        parts.keyed.append(value)
        parts.mapped.append(value)
        return all(_take(inner, parts, depth + 1) for inner in value.values())
    return False


def _holds(
    models: list[BaseModel],
    fields: list[dict[str, Any]],
    mapped: list[dict[str, Any]],
    mapped_lengths: list[int],
    keyed: list[Any],
    keyed_lengths: list[int],
    elements: list[Any],
    values: list[Any],
) -> bool:
    """True when every container still holds what it held (by identity, in the same number)."""
    return (
        all(map(is_, map(_FIELDS, models), fields))
        and list(map(len, mapped)) == mapped_lengths
        and list(map(len, keyed)) == keyed_lengths
        and all(map(is_, chain.from_iterable(keyed), elements))
        and all(map(is_, chain.from_iterable(map(dict.values, mapped)), values))
    )


class UnchangedMessages:
    """The messages of the last request and what they held, to count the unchanged ones next time.

    Not thread-safe: the caller serialises `count` and `remember` (the recorder and the replayer
    do so under their locks), and calls `remember` right after dumping the messages it was not
    told are unchanged, before any await (what is remembered is what was dumped).
    """

    def __init__(self) -> None:
        self._objects: list[Any] = []
        """Every message of the last request, followed or not."""
        self._parts = _Parts()
        """The containers of the followed messages: a leading run of `_objects`."""
        self._ends: list[tuple[int, int, int, int, int]] = []
        """Where each followed message's containers end in `_parts` (its `sizes()` after it)."""

    def count(self, messages: Sequence[Any]) -> int:
        """How many leading `messages` are the messages remembered at their places, unchanged."""
        candidates = identical_prefix(messages[: len(self._ends)], self._objects)
        if candidates == 0:
            return 0
        if self._unchanged_through(candidates):
            return candidates
        low, high = 0, candidates - 1  # the first message that changed: the last `through` fails
        while low < high:
            middle = (low + high) // 2
            if self._unchanged_through(middle + 1):
                low = middle + 1
            else:
                high = middle
        return low

    def remember(self, messages: Sequence[Any], unchanged: int) -> None:
        """Remember `messages` as just sent; the first `unchanged` were counted by `count`.

        The messages after them are followed from now on when they were already sent last time
        at the same place (their second call), as long as each can be followed.
        """
        previous = self._objects
        self._objects = list(messages)
        del self._ends[unchanged:]
        parts = self._parts
        model_end, keyed_end, mapped_end, element_end, value_end = (
            self._ends[-1] if self._ends else (0, 0, 0, 0, 0)
        )
        del parts.models[model_end:], parts.fields[model_end:]
        del parts.keyed[keyed_end:], parts.keyed_lengths[keyed_end:]
        del parts.mapped[mapped_end:], parts.mapped_lengths[mapped_end:]
        del parts.elements[element_end:], parts.values[value_end:]
        for place in range(unchanged, min(len(messages), len(previous))):
            message = messages[place]
            if message is not previous[place] or not self._follow(message):
                break

    def _follow(self, message: Any) -> bool:
        """Take the containers of `message` into `_parts` (all or none)."""
        parts = self._parts
        taken = _Parts()
        if not _take(message, taken, 0):
            return False
        parts.models += taken.models
        parts.fields += taken.fields
        parts.keyed += taken.keyed
        parts.keyed_lengths += map(len, taken.keyed)
        parts.mapped += taken.mapped
        parts.mapped_lengths += map(len, taken.mapped)
        parts.elements += chain.from_iterable(taken.keyed)
        parts.values += chain.from_iterable(map(dict.values, taken.mapped))
        self._ends.append(parts.sizes())
        return True

    def _unchanged_through(self, count: int) -> bool:
        """Whether the first `count` followed messages hold what they held."""
        parts = self._parts
        if count == len(self._ends):
            return _holds(
                parts.models,
                parts.fields,
                parts.mapped,
                parts.mapped_lengths,
                parts.keyed,
                parts.keyed_lengths,
                parts.elements,
                parts.values,
            )
        models, keyed, mapped, elements, values = self._ends[count - 1]
        return _holds(
            parts.models[:models],
            parts.fields[:models],
            parts.mapped[:mapped],
            parts.mapped_lengths[:mapped],
            parts.keyed[:keyed],
            parts.keyed_lengths[:keyed],
            parts.elements[:elements],
            parts.values[:values],
        )


class StoredForms:
    """The recorder's side: the last request's messages as JSON text, each with its stored form.

    Every message is dumped on every call; one whose JSON text is the same as last time's at its
    place keeps the stored form made then, without `store` (redaction and scrubbing map each
    message on its own, at its place). The writer finds the shared start by identity of those
    stored forms (`identical_prefix`). Thread-safe (one lock around each request).
    """

    def __init__(self, store: Callable[[dict[str, Any], int], Any]) -> None:
        self._store = store
        """Makes the stored form of a message's dump at a place."""
        self._lock = threading.Lock()
        self._texts: list[bytes] = []
        self._stored: list[Any] = []

    def stored(self, messages: Sequence[Message]) -> list[Any]:
        """The stored form of each of `messages` (a new list; the forms shared with last time's)."""
        with self._lock:
            known, known_stored = self._texts, self._stored
            texts: list[bytes] = []
            stored: list[Any] = []
            for place, message in enumerate(messages):
                dumped = dump_message(message)
                text = json_text(dumped)
                texts.append(text)
                same = place < len(known) and known[place] == text
                stored.append(known_stored[place] if same else self._store(dumped, place))
            self._texts, self._stored = texts, stored
            return list(stored)


@dataclass(frozen=True)
class Resent:
    """A request's messages, how many of them lead unchanged (`UnchangedMessages.count`), and the
    dump of each: the remembered dumps of those, fresh ones of the rest."""

    messages: Sequence[Message]
    unchanged: int
    dumps: list[dict[str, Any]]


class ReplayedMessages:
    """What replay keeps of the last matched request to compare the next one fast (see the
    module's "Replay's fast equality"). Not thread-safe: the replayer calls it under its lock."""

    def __init__(self) -> None:
        self._unchanged = UnchangedMessages()
        self._dumps: list[dict[str, Any]] = []
        """The dumps of the last matched request's messages."""
        self._recorded: list[Any] = []
        """The recorded messages that request was matched with."""
        self._exact = 0
        """How many leading messages of it matched their recorded ones with no difference at
        all (none a rule absorbed, none accepted)."""

    def dump(self, messages: Sequence[Message]) -> Resent:
        """The dumps of `messages`: those unchanged since the last matched request reused."""
        unchanged = self._unchanged.count(messages)
        dumps = self._dumps[:unchanged]
        dumps += map(dump_message, messages[unchanged:])
        return Resent(messages, unchanged, dumps)

    def settled(self, resent: Resent, recorded: list[Any] | None) -> int:
        """How many leading messages of `resent` need no comparison with the `recorded` ones:
        unchanged, matched exactly last time, and facing the very same recorded objects."""
        if recorded is None:
            return 0
        limit = min(resent.unchanged, self._exact)
        return identical_prefix(recorded[:limit], self._recorded)

    def matched(
        self,
        resent: Resent,
        recorded: list[Any] | None,
        differences: Iterable[FieldDifference],
    ) -> None:
        """Remember `resent` as matched with the `recorded` messages, with the `differences`
        found (absorbed or accepted): called right after the match, under the same lock."""
        self._unchanged.remember(resent.messages, resent.unchanged)
        self._dumps = resent.dumps
        self._recorded = recorded or []
        self._exact = _exact_messages(differences, len(resent.dumps))


def _exact_messages(differences: Iterable[FieldDifference], count: int) -> int:
    """How many leading messages no difference (absorbed or kept) touches."""
    exact = count
    for difference in differences:
        for path in (difference.recorded_path_tokens, difference.incoming_path_tokens):
            if path[:2] != ("context", "messages"):
                continue
            if len(path) < 3 or not isinstance(path[2], int):
                return 0
            exact = min(exact, path[2])
    return exact


def without_settled(
    recorded: dict[str, Any], incoming: dict[str, Any], settled: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both requests with their first `settled` messages replaced by one empty object (the same on
    both sides): what is compared when those messages are known to be equal. Paths, list
    alignment and rules see the rest unchanged (alignment starts after the equal leading items)."""
    if not settled:
        return recorded, incoming
    same: dict[str, Any] = {}
    pruned = []
    for request in (recorded, incoming):
        context = request["context"]
        messages = context["messages"]
        pruned.append(
            {
                **request,
                "context": {**context, "messages": [same] * settled + messages[settled:]},
            }
        )
    return pruned[0], pruned[1]
