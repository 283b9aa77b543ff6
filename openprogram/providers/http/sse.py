"""Server-sent events over httpx, and the one provider class the HTTP vendors share.

`iter_sse_events` parses lines into events (`event:`/`data:`/`id:` fields, dispatched on a blank
line, `:` comments ignored). A vendor is data, a `Vendor`: its endpoint, headers, body builder and
`BlockTranslator`. `SseProvider` runs one call over it: it emits `start`, posts the request,
feeds each SSE event to the vendor's translator, folds every emitted event with the one
`MessageAccumulator`, and ends with `done` or with an `error` event carrying a one-line message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import httpx

from openprogram.providers.accumulator import MessageAccumulator, parse_partial_json
from openprogram.providers.api_provider import ApiProvider
from openprogram.providers.http.transport import (
    ProviderStreamError,
    aborted_error,
    display_url,
    post_streaming_lines,
    scrub,
)
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    SimpleStreamOptions,
    StartEvent,
    StopReason,
    StreamOptions,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
)
from openprogram.text import one_line

DoneReason = Literal["stop", "length", "toolUse", "pauseTurn"]
DEFAULT_TIMEOUT_SECONDS = 60.0
"""Seconds an HTTP provider waits for the vendor (connect, and between chunks) when neither it nor
the call (`StreamOptions.timeout`) says otherwise."""


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched server-sent event: its `event` name (default `message`), `data` and `id`."""

    event: str = "message"
    data: str = ""
    id: str | None = None


async def iter_sse_events(lines: AsyncIterable[str]) -> AsyncGenerator[SSEEvent, None]:
    """Parse SSE `lines` (without line endings) into events, per the WHATWG rules.

    An event without `data:` lines is never dispatched, and an event left unterminated when the
    lines end is discarded, as the spec says: a cut-off stream must not look complete.
    """
    event_name = ""
    data: list[str] = []
    last_id: str | None = None
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SSEEvent(event=event_name or "message", data="\n".join(data), id=last_id)
            event_name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            event_name = value
        elif field == "data":
            data.append(value)
        elif field == "id" and "\0" not in value:
            last_id = value


def parse_json_data(api: str, url: str, event: SSEEvent) -> Any:
    """The JSON value in `event.data`; malformed data becomes a `ProviderStreamError`."""
    try:
        return json.loads(event.data)
    except ValueError as error:
        raise ProviderStreamError(
            one_line(
                f"{api}: malformed SSE data from {display_url(url)}: invalid JSON ({error}): "
                f"{event.data[:80]!r}"
            )
        ) from None


@dataclass
class Block:
    """One content block being streamed: its kind, content index and the text so far."""

    kind: Literal["text", "thinking", "toolCall"]
    index: int = -1
    text: str = ""
    signature: str | None = None
    id: str = ""
    name: str = ""
    refusal: bool = False
    """A text block holding the model's refusal."""
    redacted: bool = False
    """A thinking block the vendor encrypted (`signature` holds its data)."""


VENDOR_ITEMS_KEPT = 100
"""At most this many vendor items are kept on a message; a `{"type": "dropped", "count": N}` note
follows them when more came."""


class BlockTranslator:
    """Base of a vendor's translator from SSE events to ours (one instance per call).

    Subclasses implement `feed` and `finish`; the helpers here number content blocks and build
    their start, delta and end events, so every vendor shapes blocks the same way.
    """

    def __init__(self, api: str, url: str) -> None:
        self.api = api
        self.url = url
        self.usage = Usage()
        self.complete = False
        """Set when the vendor has said the response is over, so reading stops."""
        self._count = 0
        self.vendor_items: list[dict[str, Any]] = []
        """Items the types cannot hold, as the vendor sent them (at most `VENDOR_ITEMS_KEPT`)."""
        self.vendor_items_dropped = 0

    def keep(self, item: dict[str, Any]) -> None:
        """Keep one vendor item our types cannot hold, for the final message's `vendor_items`."""
        if len(self.vendor_items) < VENDOR_ITEMS_KEPT:
            self.vendor_items.append(item)
        else:
            self.vendor_items_dropped += 1

    def feed(self, event: SSEEvent) -> list[AssistantMessageEvent]:
        """Our events for one SSE event; raises `ProviderStreamError` for vendor errors."""
        raise NotImplementedError

    def finish(self) -> tuple[list[AssistantMessageEvent], DoneReason]:
        """Events closing open blocks, and the done reason; raises if the stream was cut off."""
        raise NotImplementedError

    def fail(self, text: str) -> ProviderStreamError:
        """An error naming the api, e.g. `fail(f"the stream from {where} ended early")`."""
        return ProviderStreamError(one_line(f"{self.api}: {text}"))

    @property
    def where(self) -> str:
        """The endpoint as shown in messages."""
        return display_url(self.url)

    def json(self, event: SSEEvent) -> dict[str, Any]:
        """The JSON object in `event.data`; anything else is a malformed-data error."""
        value = parse_json_data(self.api, self.url, event)
        if not isinstance(value, dict):
            raise self.fail(f"malformed SSE data from {self.where}: expected a JSON object")
        return value

    def open(self, block: Block) -> AssistantMessageEvent:
        """Number `block` as the next content block and return its start event."""
        block.index, self._count = self._count, self._count + 1
        if block.kind == "text":
            return TextStartEvent(content_index=block.index)
        if block.kind == "thinking":
            return ThinkingStartEvent(content_index=block.index)
        return ToolCallStartEvent(content_index=block.index, id=block.id, name=block.name)

    def add(self, block: Block, piece: str) -> AssistantMessageEvent:
        """Append `piece` (text, thinking or tool-argument JSON) and return its delta event."""
        block.text += piece
        if block.kind == "text":
            return TextDeltaEvent(content_index=block.index, delta=piece)
        if block.kind == "thinking":
            return ThinkingDeltaEvent(content_index=block.index, delta=piece)
        return ToolCallDeltaEvent(content_index=block.index, delta=piece)

    def close(self, block: Block) -> AssistantMessageEvent:
        """The end event of `block`; tool arguments are parsed from the streamed JSON."""
        if block.kind == "text":
            refusal = True if block.refusal else None
            return TextEndEvent(
                content_index=block.index,
                content=block.text,
                refusal=refusal,
                signature=block.signature,
            )
        if block.kind == "thinking":
            return ThinkingEndEvent(
                content_index=block.index,
                content=block.text,
                signature=block.signature,
                redacted=True if block.redacted else None,
            )
        call = ToolCall(
            id=block.id,
            name=block.name,
            arguments=parse_partial_json(block.text),
            signature=block.signature,
        )
        return ToolCallEndEvent(content_index=block.index, tool_call=call)


RequestHeaders = Callable[[Model, StreamOptions], dict[str, str]]
"""A vendor's request headers: its key header, then the model's and the call's own headers."""
RequestBody = Callable[[Model, Context, StreamOptions, str | None], dict[str, Any]]
"""A vendor's JSON body for a call; the last argument is the reasoning effort asked for, if any."""


@dataclass(frozen=True)
class Vendor:
    """One HTTP vendor api as data: where a call goes, what it sends, how its stream reads back."""

    api: str
    """The registry key, e.g. `anthropic-messages`."""
    endpoint: Callable[[Model], str]
    """The URL to post to for a model."""
    headers: RequestHeaders
    body: RequestBody
    translator: Callable[[str], BlockTranslator]
    """A fresh translator of the vendor's events for one call, given the endpoint."""


class SseProvider(ApiProvider):
    """The HTTP vendor provider: one POST per call to its `vendor`, the SSE stream turned into events.

    Each vendor module binds its `Vendor` to a subclass of its own name (`AnthropicMessagesProvider`).
    Pass `client` to share one `httpx.AsyncClient`; without it each call opens and closes its own.
    `timeout` (seconds, connect and between chunks) is the default when `options.timeout` is None.
    """

    vendor: ClassVar[Vendor]
    requires_credentials: bool = True

    def __init__(
        self, client: httpx.AsyncClient | None = None, timeout: float = DEFAULT_TIMEOUT_SECONDS
    ) -> None:
        self._client = client
        self._timeout = timeout

    @property
    def api(self) -> str:
        """The api this provider serves (its vendor's)."""
        return self.vendor.api

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Stream one call as events: `start`, the blocks, then `done` or `error`.

        `SimpleStreamOptions.reasoning` asks a reasoning model for that effort.
        """
        options = options or StreamOptions()
        reasoning = options.reasoning if isinstance(options, SimpleStreamOptions) else None
        async with aclosing(self._run(model, context, options, reasoning)) as run:
            async for event in run:
                yield event

    async def _run(
        self, model: Model, context: Context, options: StreamOptions, reasoning: str | None
    ) -> AsyncGenerator[AssistantMessageEvent, None]:
        vendor = self.vendor
        api, url = vendor.api, vendor.endpoint(model)
        timeout = options.timeout if options.timeout is not None else self._timeout
        translator = vendor.translator(url)
        accumulator = MessageAccumulator()
        start = StartEvent(
            partial=AssistantMessage(api=api, provider=model.provider, model=model.id)
        )
        accumulator.apply(start)
        yield start
        try:
            # Built after `start`, so that a request that cannot be built still ends as an error.
            headers = vendor.headers(model, options)
            body = vendor.body(model, context, options, reasoning)
            if options.on_payload is not None:
                options.on_payload(body)
            if options.signal is not None and options.signal.is_set():
                raise aborted_error(api)
            lines = post_streaming_lines(
                api, self._client, url, headers, body, timeout, options.signal
            )
            events = iter_sse_events(lines)
            async with aclosing(lines), aclosing(events):
                async for sse in events:
                    for event in translator.feed(sse):
                        accumulator.apply(event)
                        yield event
                    if translator.complete:
                        break
            closing, reason = translator.finish()
            for event in closing:
                accumulator.apply(event)
                yield event
            yield DoneEvent(reason=reason, message=self._final(accumulator, translator, reason))
            return
        except ProviderStreamError as error:
            failure = error
        except Exception as error:
            # A bug or an unexpected payload must still end the stream with an event.
            failure = ProviderStreamError(
                one_line(
                    f"{api}: unexpected failure calling {display_url(url)}: "
                    f"{type(error).__name__}: {error}"
                )
            )
        text = scrub(failure.message, [options.api_key])
        message = self._final(accumulator, translator, failure.reason, text)
        yield ErrorEvent(reason=failure.reason, error=message)

    @staticmethod
    def _final(
        accumulator: MessageAccumulator,
        translator: BlockTranslator,
        stop_reason: StopReason,
        error_message: str | None = None,
    ) -> AssistantMessage:
        assert accumulator.message is not None  # `start` was applied first
        update: dict[str, Any] = {"usage": translator.usage, "stop_reason": stop_reason}
        if error_message is not None:
            update["error_message"] = error_message
        if translator.vendor_items:
            items = [*translator.vendor_items]
            if translator.vendor_items_dropped:
                items.append({"type": "dropped", "count": translator.vendor_items_dropped})
            update["vendor_items"] = items
        return accumulator.message.model_copy(deep=True, update=update)
