"""Request references (format 2): a request row holds what changed since an earlier call.

`referring_row` is what the writer stores for a request given the last request it stored itself;
`rebuild` is what readers do: the full request from a row and its base call's full request. A row
without `base` is the full request (always valid). docs/recording-format.md#references has the rules.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import pydantic_core

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.format import RequestRow

__all__ = [
    "RequestReferenceError",
    "json_text",
    "rebuild",
    "rebuild_chain",
    "reference_problem",
    "referring_row",
]

REQUEST_KEYS = frozenset({"model", "context", "options"})


def json_text(value: Any) -> bytes:
    """`value` as compact JSON (NaN and infinities as their constants): two values are stored the
    same exactly when these are equal. Python's `==` is not enough: `1 == True == 1.0`."""
    return pydantic_core.to_json(value, inf_nan_mode="constants")


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
    # The recorder hands back the very objects it stored last time: find where they stop (a loop
    # in C), then compare by value from there.
    same = list(map(operator.is_, messages, base_messages))
    keep = same.index(False) if False in same else len(same)
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
                f"(call {row.base} has {base_messages} messages)"
            )
        if added is not None and not isinstance(added, list):
            return "request context.messages must be a list (a reference of the wrong kind)"
    return None


def message_count(request: RequestRow) -> int | None:
    """How many messages a full request holds (None when its messages are not a list)."""
    messages = request.context.get("messages")
    return len(messages) if isinstance(messages, list) else None


def rebuild(row: RequestRow, base: RequestRow | None) -> RequestRow:
    """The full request of `row` (itself when it is full); `base` is call `row.base`'s full
    request. Raises `RequestReferenceError` with the reason when the reference cannot be followed."""
    problem = reference_problem(
        row, message_count(base) if base is not None else None, base is not None
    )
    if problem is not None:
        raise RequestReferenceError(problem)
    if row.base is None:
        return row
    assert base is not None
    context = {**base.context, **row.context}
    base_messages = base.context.get("messages")
    if isinstance(base_messages, list):
        context["messages"] = base_messages[: row.keep or 0] + row.context.get("messages", [])
    fields: dict[str, Any] = {
        "type": "request",
        "call_index": row.call_index,
        "model": row.model if "model" in row.model_fields_set else base.model,
        "context": context,
        "options": row.options if "options" in row.model_fields_set else base.options,
    }
    if row.start_ms is not None:
        fields["start_ms"] = row.start_ms
    return RequestRow.model_construct(**fields)


def rebuild_chain(row: RequestRow, earlier: Callable[[int], RequestRow | None]) -> RequestRow:
    """The full request of `row`, reading the rows it refers to with `earlier(call_index)` (None:
    no such row). For readers of one row at a time (the TUI); raises `RequestReferenceError`."""
    chain = [row]
    while chain[-1].base is not None:
        current = chain[-1]
        assert current.base is not None
        if current.base >= current.call_index:
            raise RequestReferenceError(
                f"request base {current.base} is not an earlier call (a forward reference)"
            )
        found = earlier(current.base)
        if found is None or found.call_index != current.base:
            raise RequestReferenceError(
                f"request base {current.base} has no request row that was read "
                "(a dangling reference)"
            )
        chain.append(found)
    full = rebuild(chain.pop(), None)
    while chain:
        full = rebuild(chain.pop(), full)
    return full
