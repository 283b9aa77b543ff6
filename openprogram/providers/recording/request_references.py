"""Request references (format 2): a request row holds what changed since an earlier call.

`referring_row` is what the writer stores for a request given the last request it stored itself;
`rebuild` is what readers do: the full request from a row and its base call's full request. A row
without `base` is the full request (always valid). docs/recording-format.md#references has the rules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.row_models import RequestRow, parse_row
from openprogram.providers.recording.sent_again import identical_prefix, json_text
from openprogram.recently_used import RecentlyUsed
from openprogram.text import plural

__all__ = [
    "RequestChain",
    "RequestReferenceError",
    "StoredRequests",
    "reference_problem",
    "referring_row",
]

REQUEST_KEYS = frozenset({"model", "context", "options"})


def _same(a: Any, b: Any) -> bool:
    return a is b or json_text(a) == json_text(b)


class RequestReferenceError(OpenProgramError, ValueError):
    """A request row's reference cannot be followed; the message is the one-line reason."""


def referring_row(
    request: dict[str, Any], base_index: int | None, base: dict[str, Any] | None
) -> dict[str, Any]:
    """The stored fields of `request` given the stored (redacted) `base` request of call
    `base_index`: a reference when both hold a context with a messages list, else `request` whole."""
    if (
        base is None
        or base_index is None
        or set(request) != REQUEST_KEYS
        or set(base) != REQUEST_KEYS
    ):
        return dict(request)
    context, base_context = request["context"], base["context"]
    if not (isinstance(context, dict) and isinstance(base_context, dict)):
        return dict(request)
    messages, base_messages = context.get("messages"), base_context.get("messages")
    if not (isinstance(messages, list) and isinstance(base_messages, list)):
        return dict(request)
    if not set(base_context) <= set(context):  # a key gone since the base cannot be said
        return dict(request)
    # The recorder hands back the very objects it stored last time: find where they stop, then
    # compare by value from there.
    keep = identical_prefix(messages, base_messages)
    for new, old in zip(messages[keep:], base_messages[keep:], strict=False):
        if not _same(new, old):
            break
        keep += 1
    row: dict[str, Any] = {"base": base_index}
    if keep:
        row["keep"] = keep
    for key in ("model", "options"):
        if not _same(request[key], base[key]):
            row[key] = request[key]
    changed = {
        key: value
        for key, value in context.items()
        if key != "messages" and (key not in base_context or not _same(base_context[key], value))
    }
    if len(messages) > keep:
        changed["messages"] = messages[keep:]
    row["context"] = changed
    return row


def reference_problem(row: RequestRow, base_messages: int | None, known: bool) -> str | None:
    """Why `row`'s reference cannot be followed, or None. `known`: the base call's request row was
    read; `base_messages`: how many messages that call's full request holds (None: not a list)."""
    if row.base is None:
        if row.keep is not None:
            return "request keep needs a base (a reference of the wrong kind)"
        missing = [key for key in ("model", "options") if key not in row.model_fields_set]
        if missing:
            return f"request row without a base needs {' and '.join(missing)}"
        return None
    if row.base >= row.call_index:
        return f"request base {row.base} is not an earlier call (a forward reference)"
    if not known:
        return f"request base {row.base} has no request row that was read (a dangling reference)"
    added = row.context.get("messages")
    if row.keep or added is not None:
        if base_messages is None:
            return (
                f"request base {row.base} has no messages list to keep "
                "(a reference of the wrong kind)"
            )
        if row.keep is not None and row.keep > base_messages:
            return (
                f"request keep {row.keep} is out of range "
                f"(call {row.base} has {plural(base_messages, 'message')})"
            )
        if added is not None and not isinstance(added, list):
            return "request context.messages must be a list (a reference of the wrong kind)"
    return None


class StoredRequests:
    """Every call's request row as the file stores it, for the references of later calls.

    A reader that hands each call on and keeps none (`scan_recording(path, each=…)`) keeps the
    rows as their lines' bytes: a typed row of a short reference is about fifteen times its line
    (`{"base": 0, "keep": 3000}`: 81 bytes, 1.2 KB typed, most of it pydantic's per-instance set
    of given fields), so a file of many calls would be held several times over. A row a reference
    leads to is parsed again (it was validated once, so it parses) and the last `parsed` rows
    stay parsed: a reader going in order finds the rows its references name among them. A reader
    that keeps every call anyway (`read_recording`) keeps the typed rows themselves (`typed`)."""

    def __init__(self, *, typed: bool = False, parsed: int = 64) -> None:
        self._typed = typed
        self._rows: dict[int, RequestRow | bytes] = {}
        self._parsed: RecentlyUsed[int, RequestRow] = RecentlyUsed(parsed)

    def add(self, row: RequestRow, line: bytes) -> None:
        """Keep `row`, read from `line` (the line's own bytes, without its newline)."""
        self._rows[row.call_index] = row if self._typed else line
        if not self._typed:
            self._parsed.put(row.call_index, row)

    def get(self, call_index: int) -> RequestRow | None:
        """Call `call_index`'s row as stored (None: no such row was kept)."""
        found = self._rows.get(call_index)
        if found is None or isinstance(found, RequestRow):
            return found
        row = self._parsed.get(call_index)
        if row is None:
            parsed = parse_row(found)
            assert isinstance(parsed, RequestRow)
            row = self._parsed.put(call_index, parsed)
        return row


class RequestChain:
    """The full requests of one file's calls, shared as the file shares them.

    `stored(call_index)` gives a call's request row as stored (None: no such row was read). A full
    request is materialized only when asked for, from the rows its references lead to, and is not
    kept beyond a bounded memo of the last few: no reader holds every full request at once (a
    file of N calls that each keep the messages of the last would otherwise hold N²/2 of them).

    Materializing call i walks its references back to a full row (or a remembered request) and
    copies each message once: time proportional to the references followed plus the request
    built. Reading calls in order (replay, reports) finds call i-1 remembered, so each call costs
    its own row and the copy of its list. A call's model, its tools and its last message (what
    the diff aligns calls on) are found without materializing anything: what each call's request
    is made of (`_Shape`: three numbers) and its model and tools are remembered per call, each
    reference followed once.

    A reader going in any order (the TUI) asks for `checkpoints=K`: the full request of every call
    whose depth (the references from it to a full row) is a multiple of K is kept once built, and
    a walk that passes one builds it on the way, so materializing any call follows at most K
    references. Each checkpoint is a list of shared messages: a chain of N calls that each add a
    message keeps about N²/2K message references, a fan-out (every call one reference from a full
    row) none."""

    def __init__(
        self,
        stored: Callable[[int], RequestRow | None],
        *,
        remember: int = 4,
        checkpoints: int | None = None,
    ) -> None:
        self._stored = stored
        self._every = checkpoints
        # A built request with its depth (the references from it to a full row).
        self._full: RecentlyUsed[int, tuple[RequestRow, int]] = RecentlyUsed(remember)
        self._checkpoints: dict[int, tuple[RequestRow, int]] = {}
        self._models: dict[int, Any] = {}
        self._tools: dict[int, Any] = {}
        self._shapes: dict[int, _Shape] = {}
        self._lock = threading.Lock()

    def full(self, call_index: int) -> RequestRow:
        """Call `call_index`'s full request; raises `RequestReferenceError` with the reason when
        its row or a reference cannot be followed."""
        found = self._built(call_index)
        if found is not None:
            return found[0]
        row = self._row(call_index)
        built = (row, 0) if row.base is None else self._materialize(row)
        self._full.put(call_index, built)
        return built[0]

    def _built(self, call_index: int) -> tuple[RequestRow, int] | None:
        """A request built before (remembered or a checkpoint) with its depth, or None."""
        found = self._full.get(call_index)
        if found is not None:
            return found
        with self._lock:
            return self._checkpoints.get(call_index)

    def row(self, call_index: int) -> RequestRow:
        """Call `call_index`'s request row as stored; raises `RequestReferenceError` when no such
        row was read."""
        return self._row(call_index)

    def model(self, call_index: int) -> dict[str, Any]:
        """Call `call_index`'s model (the nearest row of its chain that states one), without
        materializing the request; raises `RequestReferenceError`."""
        model: dict[str, Any] = self._nearest(
            call_index, self._models, lambda row: "model" in row.model_fields_set, _model
        )
        return model

    def tools(self, call_index: int) -> Any:
        """Call `call_index`'s `context.tools` (the nearest row of its chain that states them;
        None: none does), without materializing the request; raises `RequestReferenceError`
        as `model` does."""
        return self._nearest(call_index, self._tools, lambda row: "tools" in row.context, _tools)

    def _nearest(
        self,
        call_index: int,
        memo: dict[int, Any],
        states: Callable[[RequestRow], bool],
        value: Callable[[RequestRow], Any],
    ) -> Any:
        """`value` of the nearest row of the chain from `call_index` that `states` it (or of
        the full row at its end), remembered in `memo` for every call the walk passed."""
        walked: list[int] = []
        index = call_index
        while (found := memo.get(index, _NOT_KNOWN)) is _NOT_KNOWN:
            row = self._row(index)
            walked.append(index)
            if row.base is None or states(row):
                found = value(row)
                break
            self._check_base(row)
            index = row.base
        for index in walked:
            memo[index] = found
        return found

    def last_message(self, call_index: int) -> Any:
        """The last message of call `call_index`'s full request (None: its messages are not a
        list, or none), without materializing it: the call's own last message when its row adds
        any, else the message at position keep-1 of its base, found in the nearest earlier row
        of its chain that holds that position itself. Raises the `RequestReferenceError` that
        `full` raises."""
        shape = self._shape(call_index)
        if shape is None:  # a reference that cannot be followed: `full` says why
            messages = self.full(call_index).context.get("messages")
            return messages[-1] if isinstance(messages, list) and messages else None
        if not shape.length:
            return None
        position = shape.length - 1  # in the nearest row (from this call's) that keeps fewer
        index, shape = self._keeping_fewer(call_index, shape, position + 1)
        return self._row(index).context["messages"][position - shape.keep]

    def _keeping_fewer(self, index: int, shape: _Shape, count: int) -> tuple[int, _Shape]:
        """The nearest of call `index` (its `shape`) and the earlier calls of its chain that keeps
        fewer than `count` messages, with its shape: down the `below` calls (each keeps fewer than
        the one before), ahead by `jump` while that one still keeps `count` or more."""
        while shape.keep >= count:
            ahead = self._shapes[shape.jump]
            if ahead.keep >= count:
                index, shape = shape.jump, ahead
            else:
                assert shape.below is not None
                index, shape = shape.below, self._shapes[shape.below]
        return index, shape

    def _shape(self, call_index: int) -> _Shape | None:
        """What call `call_index`'s full request is made of (remembered per call), or None when
        a reference on its way cannot be followed as `full` follows it (or the walk cannot tell:
        `full` is then asked)."""
        found = self._shapes.get(call_index)
        if found is not None:
            return found
        rows: list[RequestRow] = []
        index = call_index
        while (known := self._shapes.get(index)) is None:  # back to a known call or a full row
            try:
                row = self._row(index)
            except RequestReferenceError:
                return None
            rows.append(row)
            if row.base is None:
                break
            if row.base >= row.call_index:
                return None
            index = row.base
        for row in reversed(rows):
            added = row.context.get("messages")
            if row.base is None:
                length = len(added) if isinstance(added, list) else None
                known = _Shape(length, 0, None, row.call_index, 0)
            else:
                assert known is not None
                keep = row.keep or 0
                listed = known.length is not None
                if _keep_problem(row, listed) is not None or (
                    known.length is not None and keep > known.length
                ):
                    return None
                length = keep + len(added) if isinstance(added, list) else keep
                if not keep:
                    known = _Shape(length if listed else None, 0, None, row.call_index, 0)
                else:
                    below, under = self._keeping_fewer(row.base, known, keep)
                    # Skew-binary jumps (Myers): any call is O(log n) jumps from any below it.
                    over = self._shapes[under.jump]
                    even = under.depth - over.depth == over.depth - self._shapes[over.jump].depth
                    jump = over.jump if even else below
                    known = _Shape(length if listed else None, keep, below, jump, under.depth + 1)
            self._shapes[row.call_index] = known
        return known

    def _row(self, call_index: int) -> RequestRow:
        row = self._stored(call_index)
        if row is None or row.call_index != call_index:
            raise RequestReferenceError(
                f"request base {call_index} has no request row that was read (a dangling reference)"
            )
        return row

    @staticmethod
    def _check_base(row: RequestRow) -> None:
        assert row.base is not None
        if row.base >= row.call_index:
            raise RequestReferenceError(
                f"request base {row.base} is not an earlier call (a forward reference)"
            )

    def _materialize(self, row: RequestRow) -> tuple[RequestRow, int]:
        """The full request of `row` (which has a base) and its depth: its chain of rows back to
        a full row or a built request, then built from the oldest, a checkpoint at a time."""
        chain = [row]
        terminal: tuple[RequestRow, int] | None = None
        while terminal is None:
            current = chain[-1]
            assert current.base is not None
            self._check_base(current)
            terminal = self._built(current.base)
            if terminal is None:
                earlier = self._row(current.base)
                if earlier.base is None:
                    terminal = (earlier, 0)
                else:
                    chain.append(earlier)
        base, base_depth = terminal
        end = len(chain)  # chain[at:end] is built on `base`
        for at in range(len(chain) - 1, 0, -1):
            depth = base_depth + end - at
            if self._every is None or depth % self._every:
                continue
            try:
                checkpoint = _gather(chain[at:end], base)
            except RequestReferenceError:
                continue  # the request that was asked for says why, built in one piece
            with self._lock:
                self._checkpoints[chain[at].call_index] = (checkpoint, depth)
            base, base_depth, end = checkpoint, depth, at
        full, depth = _gather(chain[:end], base), base_depth + end
        if self._every is not None and depth % self._every == 0:
            with self._lock:
                self._checkpoints[row.call_index] = (full, depth)
        return full, depth


_NOT_KNOWN = object()


def _model(row: RequestRow) -> dict[str, Any]:
    return row.model


def _tools(row: RequestRow) -> Any:
    return row.context.get("tools")


class _Shape(NamedTuple):
    """What a call's full request is made of, known without building it (its chain followed)."""

    length: int | None
    """How many messages it holds (None: its chain's messages are not a list)."""
    keep: int
    """How many of them are its base's (0 for a full row: its messages are all its own)."""
    below: int | None
    """The nearest earlier call of its chain that keeps fewer messages (None: `keep` is 0): a
    message before `keep` is that call's, or one of its own chain's, at the same position."""
    jump: int
    """A call further down the same `below` calls (itself when `keep` is 0), so that finding the
    first of them keeping fewer than some count takes O(log n) steps, not one per call."""
    depth: int
    """How many `below` steps lead from it to a call keeping none."""


def _gather(chain: list[RequestRow], terminal: RequestRow) -> RequestRow:
    """The full request of `chain[0]`, whose references lead through the rest of `chain` (newest
    first) to `terminal` (a full request): its messages gathered from the end, a slice per row."""
    row = chain[0]
    root_messages = terminal.context.get("messages")
    listed = isinstance(root_messages, list)
    # Messages, from the newest row back: each row adds the part of its own messages the
    # later rows still need; `need` is how many of the base's messages come first.
    pieces: list[list[Any]] = []
    need: int | None = None
    for current in chain:
        added = current.context.get("messages")
        count_problem = _keep_problem(current, listed)
        if count_problem is not None:
            raise RequestReferenceError(count_problem)
        if not listed:
            continue
        own: list[Any] = added if isinstance(added, list) else []
        keep = current.keep or 0
        if need is None:
            pieces.append(own)
            need = keep
        elif need > keep:
            if need > keep + len(own):
                raise RequestReferenceError(
                    f"request keep {need} is out of range "
                    f"(call {current.call_index} has {plural(keep + len(own), 'message')})"
                )
            pieces.append(own[: need - keep])
            need = keep
    if listed:
        assert isinstance(root_messages, list) and need is not None
        if need > len(root_messages):
            raise RequestReferenceError(
                f"request keep {need} is out of range "
                f"(call {terminal.call_index} has {plural(len(root_messages), 'message')})"
            )
        messages = root_messages[:need]
        for piece in reversed(pieces):
            messages.extend(piece)
    # Everything else, from the oldest row forward: a later row's value wins.
    context = dict(terminal.context)
    model, options = terminal.model, terminal.options
    for current in reversed(chain):
        context.update(current.context)
        if "model" in current.model_fields_set:
            model = current.model
        if "options" in current.model_fields_set:
            options = current.options
    if listed:
        context["messages"] = messages
    fields: dict[str, Any] = {
        "type": "request",
        "call_index": row.call_index,
        "model": model,
        "context": context,
        "options": options,
    }
    if row.start_ms is not None:
        fields["start_ms"] = row.start_ms
    return RequestRow.model_construct(**fields)


def _keep_problem(row: RequestRow, listed: bool) -> str | None:
    """Why `row` (a reference) cannot be followed when the chain's messages are `listed` or not."""
    added = row.context.get("messages")
    if not listed and (row.keep or added is not None):
        return (
            f"request base {row.base} has no messages list to keep (a reference of the wrong kind)"
        )
    if added is not None and not isinstance(added, list):
        return "request context.messages must be a list (a reference of the wrong kind)"
    return None
