"""Which leading messages of a request are the very objects of the last one, holding the same values.

An agent sends its whole conversation on every call: call N carries the N−1 earlier turns again.
Dumping them all again makes a call's cost grow with the session (at 1,000 calls the recorder
spent 10 ms a call dumping and comparing 2,000 messages). Comparing objects instead of dumps is
only sound when every value they hold is compared too: agents edit messages in place (an old tool
result cleared, a block appended), and a recording must hold what was sent.

`UnchangedMessages` remembers, for each message, every container its dump depends on (the
message's and each block's field dict, each list and each JSON object) with the very objects each
held. A message is unchanged when it is the same object at the same place and each of those
containers holds the same objects (by identity, so `1` and `True` are never mixed up) in the same
number. The comparison runs as a few passes in C over flat lists (`map(operator.is_, …)`), about
0.5 µs a message against 2.5 µs for a dump. Only exact instances of the message and block types of
`openprogram.providers.types` are followed (their dumps depend on their fields alone); anything
else (a subclass, a set, a custom object) is never called unchanged, so it is dumped every time.

A message is followed from the second call that sends it (the first dumps it anyway, and an agent
that builds new message objects for every call never pays for following them).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import attrgetter, is_
from typing import Any

from pydantic import BaseModel

from openprogram.providers.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

__all__ = ["UnchangedMessages"]

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
        same = list(map(is_, messages[: len(self._ends)], self._objects))
        candidates = same.index(False) if False in same else len(same)
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
