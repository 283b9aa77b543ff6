"""Stream faults: replay one recorded call's own stream broken the way a live one breaks.

A `StreamFault` names a kind, a call and an event. Replay delivers that call's recorded events up
to the event, then breaks the stream the way the provider boundary shows a live failure there:

- `cut`: the connection drops after event k. A live HTTP provider ends such a stream with an
  `error` event whose message is the transport's "connection … closed before the response
  finished" (`transport_error_message` of the `RemoteProtocolError` httpx raises), carrying the
  message so far; no `done` ever comes.
- `error`: the vendor sends an error event after event k: an `error` event with the vendor's text
  as the providers word it ("error in the stream from …: Overloaded (overloaded_error)").
- `stall`: nothing arrives for `seconds` before event k. A live provider waits its read timeout
  (`StreamOptions.timeout`, or the HTTP providers' default), then ends with the "timed out" error
  event; a shorter stall just delays the rest, and a set `options.signal` aborts it as live.
- `cancel`: the consumer's task is cancelled after event k (`asyncio.CancelledError` raised where
  the program awaits the next event), as `asyncio.timeout`, a `TaskGroup` or Ctrl-C do.

The fault happens once: the faulted call is not consumed, so a program that asks again (a retry)
is answered with the whole recorded call, as a vendor that recovered would.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import math
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from openprogram.errors import OpenProgramError
from openprogram.providers.accumulator import MessageAccumulator
from openprogram.providers.http.sse import DEFAULT_TIMEOUT_SECONDS
from openprogram.providers.http.transport import (
    aborted_error,
    display_url,
    transport_error_message,
    vendor_error_text,
)
from openprogram.providers.types import (
    MAX_COUNT,
    AssistantMessageEvent,
    ErrorEvent,
    Model,
    StreamOptions,
)
from openprogram.text import one_line

FaultKind = Literal["cut", "error", "stall", "cancel"]
FAULT_KINDS: tuple[FaultKind, ...] = ("cut", "error", "stall", "cancel")
DEFAULT_STALL_SECONDS = 120.0
"""A stall longer than the HTTP providers' default read timeout (60 s), so a program that sets
no timeout of its own meets that one."""
MAX_STALL_SECONDS = 24 * 3600.0
DROPPED = "peer closed connection without sending complete message body (incomplete chunked read)"
"""What httpx says when a streamed response's connection drops mid-body."""
VENDOR_ERRORS: dict[str, dict[str, Any]] = {
    "anthropic-messages": {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    },
    "openai-completions": {
        "error": {
            "message": "The server had an error while processing your request.",
            "type": "server_error",
        }
    },
    "openai-responses": {
        "error": {
            "message": "The server had an error while processing your request.",
            "type": "server_error",
        }
    },
    "google-generative-ai": {
        "error": {
            "code": 503,
            "message": "The model is overloaded. Please try again later.",
            "status": "UNAVAILABLE",
        }
    },
}
"""The error body each vendor sends mid-stream when it fails (an overloaded server), read by the
providers' own `vendor_error_text`; other apis get the OpenAI-compatible one."""


class StreamFaultError(OpenProgramError, ValueError):
    """A fault that cannot be applied to a recording (no such call, no such event, bad syntax)."""


class StreamFault(BaseModel):
    """Break recorded call `call`'s stream at event `event` the way `kind` says; `event` None:
    the middle of that call's stream. `seconds`: how long a `stall` lasts."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: FaultKind
    call: int = Field(default=0, ge=0, le=MAX_COUNT)
    event: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    seconds: float = DEFAULT_STALL_SECONDS

    @field_validator("seconds")
    @classmethod
    def _bounded(cls, value: float) -> float:
        if not (math.isfinite(value) and 0 < value <= MAX_STALL_SECONDS):
            raise ValueError(f"a stall lasts more than 0 and at most {MAX_STALL_SECONDS:g} seconds")
        return value

    def describe(self) -> str:
        """`KIND@CALL[:EVENT]`, as the command line takes it (`stall` with its seconds)."""
        event = "" if self.event is None else f":{self.event}"
        seconds = f" ({self.seconds:g} s)" if self.kind == "stall" else ""
        return f"{self.kind}@{self.call}{event}{seconds}"

    def event_in(self, events: Sequence[AssistantMessageEvent]) -> int:
        """The event the fault breaks at in a call of `events`: after it (cut, error, cancel) or
        before it (stall); `StreamFaultError` when the call has no such event."""
        end = len(events)
        if end and events[-1].type in ("done", "error"):
            end -= 1  # the terminal event is never delivered whole
        low, high = (1, end) if self.kind == "stall" else (0, end - 1)
        if high < low:
            raise StreamFaultError(
                f"fault {self.describe()}: call {self.call} has too few events to break "
                f"({len(events)})"
            )
        event = self.event if self.event is not None else max(low, end // 2)
        if not low <= event <= high:
            where = "before" if self.kind == "stall" else "after"
            raise StreamFaultError(
                f"fault {self.describe()}: call {self.call} can break {where} event {low}–{high} "
                f"only, not {event}"
            )
        return event


def fault_variants(
    calls: Sequence[Sequence[AssistantMessageEvent]],
    kinds: Sequence[FaultKind] = FAULT_KINDS,
    seconds: float = DEFAULT_STALL_SECONDS,
) -> list[StreamFault]:
    """Each kind against each call (the events of each, in order), at the middle of its stream;
    a call too short to break that way is left out."""
    variants = []
    for number, events in enumerate(calls):
        for kind in kinds:
            fault = StreamFault(kind=kind, call=number, seconds=seconds)
            try:
                fault.event_in(events)
            except StreamFaultError:
                continue
            variants.append(fault)
    return variants


def parse_kinds(text: str) -> tuple[FaultKind, ...]:
    """`all` or `KIND[,KIND…]` as fault kinds, in the order given."""
    if text.strip() == "all":
        return FAULT_KINDS
    kinds = tuple(word.strip() for word in text.split(","))
    unknown = [k for k in kinds if k not in FAULT_KINDS]
    if unknown:
        raise StreamFaultError(
            f"unknown fault kind {unknown[0]!r}: expected all or some of {', '.join(FAULT_KINDS)}"
        )
    return kinds  # type: ignore[return-value]  # each one checked against FAULT_KINDS


FAULT_SYNTAX = re.compile(r"(?P<kind>[a-z]+)(?:@(?P<call>\d{1,9})(?::(?P<event>\d{1,9}))?)?")


def parse_fault(text: str, seconds: float = DEFAULT_STALL_SECONDS) -> StreamFault:
    """`KIND[@CALL[:EVENT]]` as a fault (call 0 and the middle event when left out)."""
    matched = FAULT_SYNTAX.fullmatch(text.strip())
    if matched is None or matched["kind"] not in FAULT_KINDS:
        raise StreamFaultError(
            f"fault {text!r}: expected KIND[@CALL[:EVENT]] with KIND one of {', '.join(FAULT_KINDS)}"
        )
    event = matched["event"]
    return StreamFault(
        kind=matched["kind"],  # checked against FAULT_KINDS above
        call=int(matched["call"] or 0),
        event=None if event is None else int(event),
        seconds=seconds,
    )


def _endpoint(model: Model) -> str:
    """Where a live call of `model` goes, as the providers show it in messages."""
    from openprogram.providers.api_registry import builtin_providers

    vendor = getattr(builtin_providers().get(model.api), "vendor", None)
    if vendor is not None:
        return str(vendor.endpoint(model))
    return model.base_url or model.api


def _vendor_error(model: Model) -> str:
    where = display_url(_endpoint(model))
    body = VENDOR_ERRORS.get(model.api, VENDOR_ERRORS["openai-completions"])
    return one_line(f"{model.api}: error in the stream from {where}: {vendor_error_text(body)}")


def _failed(accumulator: MessageAccumulator, text: str, aborted: bool = False) -> ErrorEvent:
    """The `error` event a live provider ends with: the message so far, `error_message` set."""
    assert accumulator.message is not None  # the start event came first
    reason: Literal["aborted", "error"] = "aborted" if aborted else "error"
    message = accumulator.message.model_copy(
        deep=True, update={"stop_reason": reason, "error_message": text}
    )
    return ErrorEvent(reason=reason, error=message)


async def _stall(seconds: float, signal: Any) -> bool:
    """Wait `seconds`; True when `signal` (an `asyncio.Event`-like one) was set meanwhile."""
    wait = getattr(signal, "wait", None)
    if signal is None or not inspect.iscoroutinefunction(wait):
        await asyncio.sleep(seconds)
        return signal is not None and bool(signal.is_set())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(wait(), seconds)
    return bool(signal.is_set())


async def faulted_stream(
    fault: StreamFault,
    events: Sequence[AssistantMessageEvent],
    model: Model,
    options: StreamOptions | None,
    on_fault: Callable[[int, bool], None] = lambda event, broke: None,
) -> AsyncIterator[AssistantMessageEvent]:
    """The recorded `events` of one call, broken as `fault` says (see the module's text).

    `on_fault(event, broke)` is told once, when the fault point is reached: `broke` is False for a
    stall shorter than the read timeout, after which the stream goes on whole."""
    at = fault.event_in(events)
    accumulator = MessageAccumulator()
    for number, event in enumerate(events):
        if fault.kind == "stall" and number == at:
            signal = options.signal if options is not None else None
            timeout = DEFAULT_TIMEOUT_SECONDS
            if options is not None and options.timeout is not None:
                timeout = options.timeout
            aborted = await _stall(min(fault.seconds, timeout), signal)
            on_fault(at, aborted or fault.seconds >= timeout)
            if aborted:
                yield _failed(accumulator, aborted_error(model.api).message, aborted=True)
                return
            if fault.seconds >= timeout:
                timed_out = httpx.ReadTimeout("")
                text = transport_error_message(model.api, _endpoint(model), timed_out, timeout)
                yield _failed(accumulator, text)
                return
        accumulator.apply(event)
        yield event
        if number != at or fault.kind == "stall":
            continue
        on_fault(at, True)
        if fault.kind == "cut":
            error = httpx.RemoteProtocolError(DROPPED)
            yield _failed(
                accumulator, transport_error_message(model.api, _endpoint(model), error, 0)
            )
        elif fault.kind == "error":
            yield _failed(accumulator, _vendor_error(model))
        else:
            task = asyncio.current_task()
            assert task is not None  # replay streams run in a task
            task.cancel()
            await asyncio.sleep(0)  # raises the CancelledError here, where the consumer awaits
        return
