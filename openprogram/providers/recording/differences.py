"""Where two JSON values differ: the field path (string and tokens) and both values.

Dicts are walked by sorted key and lists by index, so the same pair always gives the same path.
When items were inserted into or removed from a list (a message added at the start of
`messages`), the two lists are aligned instead: each such item is one `inserted` or `removed`
difference, and the items after it are compared with their counterparts, not with their neighbours.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from openprogram.providers.recording.redaction import SECRET_PLACEHOLDER

NON_DETERMINISTIC_FIELD_NAMES: frozenset[str] = frozenset({"timestamp"})
"""Wall-clock fields that replay never compares."""

PathToken = str | int
DifferenceKind = Literal["changed", "type_changed", "missing", "added", "inserted", "removed"]
"""`missing`/`added`: a key (or an index past the other list's end) on one side only;
`inserted`/`removed`: a list item on one side only, found by aligning the two lists."""

MAX_ALIGNED_ITEMS = 1_000
"""Longer lists are compared index by index: aligning them could cost O(n²) comparisons."""
MAX_PAIRED_BLOCK = 64
"""A changed block of m × n items larger than this pairs its items in order, without scoring."""
SIMILARITY_CHARS = 2_000
"""How much of an item's JSON the pairing inside a changed block looks at."""


class _Missing:
    """The value on the side of a difference where the field does not exist."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")


def format_field_path(tokens: list[PathToken]) -> str:
    """`["context", "messages", 2, "text"]` → `context.messages[2].text`; odd keys as `["a.b"]`."""
    parts: list[str] = []
    for token in tokens:
        if isinstance(token, int):
            parts.append(f"[{token}]")
        elif _PLAIN_KEY.match(token):
            parts.append(f".{token}" if parts else token)
        else:
            escaped = token.replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'["{escaped}"]')
    return "".join(parts)


def json_type_name(value: Any) -> str:
    """The JSON type of a value: object, array, string, number, boolean, null (or missing)."""
    if value is MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


@dataclass(frozen=True)
class FieldDifference:
    """One differing field: its path, both values, and how they differ."""

    path_tokens: tuple[PathToken, ...]
    """Where the difference is, with the incoming request's list indices (a `removed` item's
    last index is its recorded one)."""
    recorded: Any
    incoming: Any
    kind: DifferenceKind
    recorded_at: tuple[PathToken, ...] | None = None
    """Where the recorded value is when that is not `path_tokens`: an aligned list shifted its
    index, or (for an `inserted` item) the list the recording lacks it in."""
    incoming_at: tuple[PathToken, ...] | None = None
    """For a `removed` item: the incoming list it is not in."""

    @property
    def field_path(self) -> str:
        """The dotted path, e.g. `context.messages[2].content[0].text`."""
        return format_field_path(list(self.path_tokens))

    @property
    def recorded_path_tokens(self) -> tuple[PathToken, ...]:
        """Where to look in the recorded request."""
        return self.path_tokens if self.recorded_at is None else self.recorded_at

    @property
    def incoming_path_tokens(self) -> tuple[PathToken, ...]:
        """Where to look in the incoming request."""
        return self.path_tokens if self.incoming_at is None else self.incoming_at


def iter_differences(
    recorded: Any,
    incoming: Any,
    path: tuple[PathToken, ...] = (),
    recorded_path: tuple[PathToken, ...] | None = None,
) -> Iterator[FieldDifference]:
    """Every differing leaf, in path order. A recorded `[secret removed]` matches any value.

    `recorded_path` is where `recorded` sits when an aligned list moved it (None: at `path`).
    """
    if recorded == SECRET_PLACEHOLDER:
        return
    if isinstance(recorded, dict) and isinstance(incoming, dict):
        for key in sorted(recorded.keys() | incoming.keys()):
            if key in NON_DETERMINISTIC_FIELD_NAMES:
                continue
            at = (*path, key)
            recorded_at = None if recorded_path is None else (*recorded_path, key)
            if key not in incoming:
                if recorded[key] != SECRET_PLACEHOLDER:
                    yield FieldDifference(at, recorded[key], MISSING, "missing", recorded_at)
            elif key not in recorded:
                yield FieldDifference(at, MISSING, incoming[key], "added", recorded_at)
            elif not _surely_equal(recorded[key], incoming[key]):  # prune equal subtrees fast
                yield from iter_differences(recorded[key], incoming[key], at, recorded_at)
        return
    if isinstance(recorded, list) and isinstance(incoming, list):
        yield from _list_differences(recorded, incoming, path, recorded_path)
        return
    if json_type_name(recorded) != json_type_name(incoming):
        yield FieldDifference(path, recorded, incoming, "type_changed", recorded_path)
    elif recorded != incoming:
        yield FieldDifference(path, recorded, incoming, "changed", recorded_path)


def _list_differences(
    recorded: list[Any],
    incoming: list[Any],
    path: tuple[PathToken, ...],
    recorded_path: tuple[PathToken, ...] | None,
) -> Iterator[FieldDifference]:
    """Index by index, unless inserting or removing items explains the change with fewer items."""
    base = path if recorded_path is None else recorded_path
    head, tail = _equal_ends(recorded, incoming)
    pairs = _alignment(recorded, incoming, head, tail)
    if pairs is None:
        # Items before `head` are equal; so are the last `tail` when the lengths (indices) agree,
        # and the pairs that ended both runs are known to differ (not compared again).
        longest = max(len(recorded), len(incoming))
        stop = longest - tail if len(recorded) == len(incoming) else longest
        for index in range(head, stop):
            at = (*path, index)
            recorded_at = None if recorded_path is None else (*recorded_path, index)
            if index >= len(incoming):
                yield FieldDifference(at, recorded[index], MISSING, "missing", recorded_at)
            elif index >= len(recorded):
                yield FieldDifference(at, MISSING, incoming[index], "added", recorded_at)
            elif (
                index == head
                or index == stop - 1
                or not _surely_equal(recorded[index], incoming[index])
            ):
                yield from iter_differences(recorded[index], incoming[index], at, recorded_at)
        return
    for old, new in pairs:
        if new is None:
            assert old is not None
            moved = None if base == path else (*base, old)
            yield FieldDifference((*path, old), recorded[old], MISSING, "removed", moved, path)
        elif old is None:
            yield FieldDifference((*path, new), MISSING, incoming[new], "inserted", base)
        elif not _surely_equal(recorded[old], incoming[new]):
            moved = None if (*base, old) == (*path, new) else (*base, old)
            yield from iter_differences(recorded[old], incoming[new], (*path, new), moved)


AlignedPair = tuple[int | None, int | None]
"""(recorded index, incoming index); None on the side that lacks the item."""


def _equal_ends(recorded: list[Any], incoming: list[Any]) -> tuple[int, int]:
    """How many items both lists share at the start, and then at the end."""
    shorter = min(len(recorded), len(incoming))
    head = 0
    while head < shorter and _surely_equal(recorded[head], incoming[head]):
        head += 1
    # With equal lengths the pair at `head` is the one that differs: the end stops before it.
    limit = shorter - head - (len(recorded) == len(incoming))
    tail = 0
    while tail < limit and _surely_equal(recorded[-1 - tail], incoming[-1 - tail]):
        tail += 1
    return head, tail


def _alignment(
    recorded: list[Any], incoming: list[Any], head: int, tail: int
) -> list[AlignedPair] | None:
    """The items between the equal ends (`head`, `tail`) paired in order, with the inserted and
    removed ones alone, when that leaves no more differing items than comparing index by index;
    None to compare index by index.

    An item edited in place stays one `changed` item and an item appended at the end stays
    `added`; a swapped pair is one item removed and inserted again (moved), as `recordings diff`
    shows a reordered pair of calls. The common cases cost no more than the index walk: equal
    ends are compared in place, and only items that moved are turned into JSON to be aligned.
    """
    shorter, longer = sorted((len(recorded), len(incoming)))
    if head == shorter or longer > MAX_ALIGNED_ITEMS:
        return None  # only appended (or cut) items, or too many to align
    end_recorded, end_incoming = len(recorded) - tail, len(incoming) - tail
    if len(recorded) == len(incoming) and (
        end_recorded - head < 2
        or not (
            _surely_equal(recorded[head], incoming[head + 1])
            or _surely_equal(recorded[head + 1], incoming[head])
        )
    ):
        return None  # edited in place: nothing moved up or down a place
    if end_recorded == head or end_incoming == head:  # only inserted, or only removed, items
        return [(n, None) for n in range(head, end_recorded)] + [
            (None, n) for n in range(head, end_incoming)
        ]
    by_index = longer - shorter
    by_index += sum(not _surely_equal(recorded[n], incoming[n]) for n in range(head, shorter))
    keys_recorded = _item_keys(recorded[head:end_recorded])
    keys_incoming = _item_keys(incoming[head:end_incoming])
    matcher = difflib.SequenceMatcher(None, keys_recorded, keys_incoming, autojunk=False)
    pairs: list[AlignedPair] = []
    aligned = 0
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            pairs.extend(zip(range(a1, a2), range(b1, b2), strict=True))
            continue
        aligned += max(a2 - a1, b2 - b1)
        pairs.extend(_pair_block(keys_recorded, keys_incoming, a1, a2, b1, b2))
    if aligned > by_index:
        return None
    return [
        (None if old is None else old + head, None if new is None else new + head)
        for old, new in pairs
    ]


def _item_keys(items: list[Any]) -> list[str]:
    """Each item as canonical JSON without wall-clock fields (equal keys: equal items)."""
    return [
        json.dumps(_without_clock(item), sort_keys=True, ensure_ascii=False, default=repr)
        for item in items
    ]


def _without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _without_clock(inner)
            for key, inner in value.items()
            if key not in NON_DETERMINISTIC_FIELD_NAMES
        }
    if isinstance(value, list):
        return [_without_clock(inner) for inner in value]
    return value


def _pair_block(
    keys_recorded: list[str], keys_incoming: list[str], a1: int, a2: int, b1: int, b2: int
) -> list[AlignedPair]:
    """A changed block: pair as many items as the shorter side has, choosing (when the block is
    small) the pairing whose items look most alike; the rest are inserted or removed."""
    old, new = list(range(a1, a2)), list(range(b1, b2))
    if not old or not new:
        return [(index, None) for index in old] + [(None, index) for index in new]
    if len(old) == len(new) or len(old) * len(new) > MAX_PAIRED_BLOCK:
        common = min(len(old), len(new))
        rest = [(index, None) for index in old[common:]] + [(None, index) for index in new[common:]]
        return [*zip(old[:common], new[:common], strict=True), *rest]
    swap = len(old) < len(new)
    longer, shorter = (new, old) if swap else (old, new)
    longer_keys, shorter_keys = (
        (keys_incoming, keys_recorded) if swap else (keys_recorded, keys_incoming)
    )

    def alike(i: int, j: int) -> float:
        a, b = (
            longer_keys[longer[i]][:SIMILARITY_CHARS],
            shorter_keys[shorter[j]][:SIMILARITY_CHARS],
        )
        return difflib.SequenceMatcher(None, a, b, autojunk=False).quick_ratio()

    # best[i][j]: the most alike pairing of the first j shorter items among the first i longer.
    rows, cols = len(longer), len(shorter)
    best = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        for j in range(cols + 1):
            skip = best[i - 1][j] if i - 1 >= j else float("-inf")
            take = best[i - 1][j - 1] + alike(i - 1, j - 1) if j else float("-inf")
            best[i][j] = max(skip, take)
    chosen: list[AlignedPair] = []
    i, j = rows, cols
    while i:
        # On a tie the earlier items pair up (the later one is the one inserted or removed).
        pair: AlignedPair
        if j and (i - 1 < j or best[i][j] != best[i - 1][j]):
            pair = (shorter[j - 1], longer[i - 1]) if swap else (longer[i - 1], shorter[j - 1])
            j -= 1
        else:
            pair = (None, longer[i - 1]) if swap else (longer[i - 1], None)
        chosen.append(pair)
        i -= 1
    return chosen[::-1]


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def _surely_equal(recorded: Any, incoming: Any) -> bool:
    """True only when `iter_differences` would find nothing; False means "walk to find out".

    Replay compares every incoming request with its recorded one and they are nearly always
    equal, so this plain recursion (no paths, no generators, leaves compared in place) answers
    first. Anything unusual (types that differ, keys on one side only, a recorded
    `[secret removed]`, subclasses) is left to the full walk.
    """
    kind = type(recorded)
    if kind is not type(incoming):
        return recorded == SECRET_PLACEHOLDER
    if kind is dict:
        if len(recorded) != len(incoming):
            return False
        for key, value in recorded.items():
            other = incoming.get(key, MISSING)
            if other is MISSING:
                return False
            if key in NON_DETERMINISTIC_FIELD_NAMES:
                continue
            leaf = type(value)
            if leaf is type(other) and leaf in _PLAIN_TYPES:
                if value != other:
                    return False
            elif not _surely_equal(value, other):
                return False
        return True
    if kind is list:
        if len(recorded) != len(incoming):
            return False
        for value, other in zip(recorded, incoming, strict=True):
            if value is other:
                continue  # one object on both sides (`sent_again.without_settled`): equal
            leaf = type(value)
            if leaf is type(other) and leaf in _PLAIN_TYPES:
                if value != other:
                    return False
            elif not _surely_equal(value, other):
                return False
        return True
    return kind in _PLAIN_TYPES and recorded == incoming


def find_first_difference(recorded: Any, incoming: Any) -> FieldDifference | None:
    """The first difference between two JSON values, or None when they are equal."""
    if _surely_equal(recorded, incoming):
        return None
    return next(iter_differences(recorded, incoming), None)


def iter_request_differences(
    recorded: dict[str, Any], incoming: dict[str, Any]
) -> Iterator[FieldDifference]:
    """Differences of two request payloads in the order model, then context, then options."""
    for part in ("model", "context", "options"):
        recorded_part, incoming_part = recorded.get(part, MISSING), incoming.get(part, MISSING)
        if not _surely_equal(recorded_part, incoming_part):
            yield from iter_differences(recorded_part, incoming_part, (part,))
