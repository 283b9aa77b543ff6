"""Redaction of streamed pieces as strong as redaction of whole values.

A secret can arrive split over several deltas (`{"pa`, `sswor`, `d": "m`, `ello`, `n"}`, or
`sk-pro` + `j-abc…`): no single piece looks secret, so redacting each row alone would write every
piece verbatim. Instead the recorder holds a content block's delta rows in memory until the
block's end event. Then the assembled value is redacted: if that changes nothing, the deltas are
written as they came; if it changes it, the block is written as one delta holding the redacted
value, so the recorded deltas still fold to exactly the recorded end row and `done` message.

A block that never ends (stop reason `length`, an error, a cancellation, a consumer that stops) is
released when the call ends and redacted the same way. Tool arguments cut short are not JSON, so
they are first closed (`{"password": "V` as `{"password": "V"}`) to find the values by their keys;
the redacted form is written without its final brace, so it stays unfinished and still folds to the
same `{}` arguments the cut text did.

Memory is bounded by the blocks open at once (usually one). The caller receives every event live
and unchanged: only the file waits for the block's end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from openprogram.providers.recording.redaction import remove_secret_text, remove_secret_values
from openprogram.providers.types import (
    AssistantMessageEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
)

DeltaEvent = TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent
_DELTA_TYPES = (TextDeltaEvent, ThinkingDeltaEvent, ToolCallDeltaEvent)
_END_TYPES = frozenset({"text_end", "thinking_end", "toolcall_end"})


def _each_string(value: Any, change: Callable[[str], str]) -> Any:
    """`value`, a fresh copy (lists and dicts nobody else holds), with `change` applied to each of
    its strings in place, with a stack: arguments may nest as deep as JSON allows."""
    stack = [value]
    while stack:
        container = stack.pop()
        entries = container.items() if isinstance(container, dict) else enumerate(container)
        for key, inner in list(entries):
            if isinstance(inner, str):
                container[key] = change(inner)
            elif isinstance(inner, dict | list):
                stack.append(inner)
    return value


_PARTIAL_UNICODE = re.compile(r"\\u[0-9a-fA-F]{0,3}$")
_PARTIAL_SCALAR = re.compile(r"[A-Za-z0-9.+\-]+$")


def _closed_json(text: str) -> Any:
    """The value of JSON `text` cut short, its open string, key and containers closed; None if none.

    `{"pass` reads as `{"pass": null}`, `{"password": "V` as `{"password": "V"}`, `[1, tr` as `[1]`.
    """
    closers: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]" and closers:
            closers.pop()
    ends = "".join(reversed(closers))
    if in_string:
        kept = text[:-1] if escaped else text  # a lone backslash, or a `\u12` cut short
        body = [kept + '"', _PARTIAL_UNICODE.sub("", kept) + '"']
    else:  # a literal or number cut short is dropped; a dangling ',' or ':' is tried below
        body = [text, _PARTIAL_SCALAR.sub("", text).rstrip()]
    for start in body:
        for candidate in (start, start + ":null", start + "null", start.rstrip().rstrip(",")):
            try:
                return json.loads(candidate + ends)
            except (ValueError, RecursionError):  # nested deeper than json reads: no value
                continue
    return None


def closed_arguments(text: str) -> tuple[Any, bool]:
    """Tool arguments as streamed: their JSON value (closed first when cut short, None when there
    is none), and whether the text was whole. Raises RecursionError when nested deeper than JSON
    can be read."""
    try:
        return json.loads(text), True
    except ValueError:
        return _closed_json(text), False


def _redacted_cut_string(text: str) -> str:
    """A string of arguments cut short that is itself JSON cut short (`{\\"password\\": \\"V`):
    redacted like the arguments, by its keys, and left cut short. It nests again at most about
    log2(len) deep (each level doubles the escapes of its quotes), which bounds the recursion."""
    if not text.startswith(("{", "[")):
        return text
    try:
        json.loads(text)
        return text  # whole JSON: the text rules find its closed fields
    except ValueError:
        pass
    closed = _closed_json(text)
    if not isinstance(closed, dict | list):
        return text
    clean = _each_string(remove_secret_values(closed), _redacted_cut_string)
    if clean == closed:
        return text
    return json.dumps(clean, ensure_ascii=False, separators=(",", ":"))[:-1]


def _redacted_arguments(text: str, scrub: Callable[[str], str] | None) -> str | None:
    """Tool arguments redacted by their keys (and scrubbed), or None when they hold no JSON
    container or it is unchanged."""
    arguments, finished = closed_arguments(text)
    if not isinstance(arguments, dict | list):
        return None
    clean = remove_secret_values(arguments)
    if not finished:  # the string cut short may be JSON cut short itself
        clean = _each_string(clean, _redacted_cut_string)
    if scrub is not None:
        clean = _each_string(clean, scrub)
    if clean == arguments:
        return None
    whole = json.dumps(clean, ensure_ascii=False, separators=(",", ":"))
    # Cut short it stays cut short (no proper prefix of `{…}` parses): same fold.
    return whole if finished else whole[:-1]


def _redacted_whole(
    event: DeltaEvent, text: str, scrub: Callable[[str], str] | None = None
) -> str | None:
    """The redacted (and scrubbed) form of a block's assembled `text`, or None when unchanged."""
    if isinstance(event, ToolCallDeltaEvent):
        try:
            whole = _redacted_arguments(text, scrub)
        except RecursionError:  # nested deeper than json reads and compares: the text rules
            whole = None
        if whole is not None:
            return whole
    clean_text = remove_secret_text(text)
    if scrub is not None:
        clean_text = scrub(clean_text)
    return clean_text if clean_text != text else None


class BlockRedactor:
    """Turns the events of one call into the events to write, holding deltas until their block ends.

    `encode` is the recorder's event encoder (which redacts each value on its own as well), used
    for every row but the deltas of a block whose assembled value redaction leaves unchanged.
    """

    def __init__(
        self,
        encode: Callable[[AssistantMessageEvent], dict[str, Any]],
        scrub: Callable[[str], str] | None = None,
    ) -> None:
        self._encode = encode
        self._scrub = scrub
        """The user's scrub rules for answer text (after the built-in redaction), if any."""
        self._open: dict[int, list[DeltaEvent]] = {}

    def rows_for(self, event: AssistantMessageEvent) -> list[dict[str, Any]]:
        """The rows to write now for `event` (none while a block's deltas are held)."""
        if isinstance(event, _DELTA_TYPES):
            self._open.setdefault(event.content_index, []).append(event)
            return []
        rows: list[dict[str, Any]] = []
        index = getattr(event, "content_index", None)
        if event.type in _END_TYPES and isinstance(index, int):
            rows += self._release(index)
        elif event.type in ("done", "error"):
            rows += self.release_all()
        rows.append(self._encode(event))
        return rows

    def release_all(self) -> list[dict[str, Any]]:
        """The rows of every block still open (the call ended, failed or was abandoned)."""
        rows: list[dict[str, Any]] = []
        for index in sorted(self._open):
            rows += self._release(index)
        return rows

    def _release(self, index: int) -> list[dict[str, Any]]:
        deltas = self._open.pop(index, [])
        if not deltas:
            return []
        whole = "".join(delta.delta for delta in deltas)
        redacted = _redacted_whole(deltas[0], whole, self._scrub)
        if redacted is None:
            # The assembled value is what redaction and scrubbing judge: unchanged, each piece is
            # written as it came (redacting a piece alone could only cut a value the whole kept,
            # and then the deltas would no longer fold to the end row).
            return [delta.model_dump(mode="json") for delta in deltas]
        merged: dict[str, Any] = {**deltas[0].model_dump(), "delta": redacted}
        return [self._encode(type(deltas[0]).model_validate(merged))]
