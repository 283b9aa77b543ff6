"""The `openai-responses` provider: OpenAI's Responses API (and Azure's, and OpenRouter's) over SSE.

Requests go to `{model.base_url or https://api.openai.com/v1}/responses` with `stream: true` and
`store: false`, so every turn sends the whole conversation back, reasoning items included (their
encrypted content is asked for with `include`). Stream events are keyed by `output_index`, since
parallel calls interleave: reasoning becomes thinking whose `signature` is the whole reasoning item
as JSON (sent back as it came), message text becomes text (refusals marked), function calls become
tool calls. Other finished items (built-in tools: web search, code interpreter, ...) and the
annotations of message text (`url_citation`, ...) have no place in our types: they are kept as sent
in the final message's `vendor_items`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from openprogram.providers.http.sse import (
    Block,
    BlockTranslator,
    DoneReason,
    SSEEvent,
    SseProvider,
    Vendor,
)
from openprogram.providers.http.transport import vendor_error_text
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)

API = "openai-responses"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
SUMMARY_PART_SEPARATOR = "\n\n"
"""Put between a reasoning item's summary parts, which arrive as separate paragraphs."""


def responses_url(model: Model) -> str:
    """The endpoint for `model`: its `base_url` (default OpenAI's) plus `/responses`."""
    return (model.base_url or DEFAULT_BASE_URL).rstrip("/") + "/responses"


def is_azure(model: Model) -> bool:
    """Whether `model.base_url` is an Azure OpenAI resource (which takes an `api-key` header)."""
    return ".openai.azure.com" in model.base_url


def _parts(blocks: Sequence[TextContent | ImageContent]) -> list[dict[str, Any]]:
    return [
        {"type": "input_text", "text": b.text}
        if isinstance(b, TextContent)
        else {"type": "input_image", "image_url": f"data:{b.mime_type};base64,{b.data}"}
        for b in blocks
    ]


def reasoning_item(block: ThinkingContent) -> dict[str, Any] | None:
    """The reasoning item a thinking block carries in its `signature`, if it can go back.

    Only an item with its encrypted content can: with `store: false` the vendor keeps nothing, so
    an item sent back by id alone would be refused as not found."""
    if not block.signature:
        return None
    try:
        item = json.loads(block.signature)
    except ValueError:
        return None  # another vendor's signature: not ours to send back
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return None
    return item if item.get("encrypted_content") else None


def _assistant_items(message: AssistantMessage) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if (item := reasoning_item(block)) is not None:
                items.append(item)
        elif isinstance(block, TextContent):
            if block.text:
                items.append({"role": "assistant", "content": block.text})
        else:
            items.append(
                {
                    "type": "function_call",
                    "call_id": block.id,
                    "name": block.name,
                    "arguments": json.dumps(block.arguments),
                }
            )
    return items


def _tool_output(message: ToolResultMessage) -> list[dict[str, Any]]:
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)]
    if not text:
        text = "(see the attached image)" if images else "(no output)"
    items: list[dict[str, Any]] = [
        {"type": "function_call_output", "call_id": message.tool_call_id, "output": text}
    ]
    if images:
        items.append({"role": "user", "content": _parts(images)})
    return items


def request_input(model: Model, context: Context) -> list[dict[str, Any]]:
    """The context as Responses `input` items (system prompt first, as `developer` for reasoning
    models), user and assistant messages, reasoning items, function calls and their outputs."""
    items: list[dict[str, Any]] = []
    if context.system_prompt:
        role = "developer" if model.reasoning else "system"
        items.append({"role": role, "content": context.system_prompt})
    for message in context.messages:
        if isinstance(message, UserMessage):
            content = message.content
            items.append(
                {
                    "role": "user",
                    "content": content if isinstance(content, str) else _parts(content),
                }
            )
        elif isinstance(message, AssistantMessage):
            items += _assistant_items(message)
        else:
            items += _tool_output(message)
    return items


def request_body(
    model: Model, context: Context, options: StreamOptions, reasoning: str | None
) -> dict[str, Any]:
    """The JSON body of a streamed Responses request."""
    body: dict[str, Any] = {
        "model": model.id,
        "input": request_input(model, context),
        "stream": True,
        "store": False,
    }
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.max_tokens is not None:
        body["max_output_tokens"] = options.max_tokens
    if context.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
            }
            for t in context.tools
        ]
        body["tool_choice"] = "auto"
    if model.reasoning:
        # Without storage, reasoning can only continue if its encrypted content comes back.
        body["include"] = ["reasoning.encrypted_content"]
        if reasoning:
            body["reasoning"] = {"effort": reasoning, "summary": "auto"}
    return body


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Request headers: JSON in, SSE out, the key (bearer, or `api-key` for Azure), then extras."""
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if options.api_key:
        if is_azure(model):
            headers["api-key"] = options.api_key
        else:
            headers["authorization"] = f"Bearer {options.api_key}"
    headers.update(model.headers or {})
    headers.update(options.headers or {})
    return headers


def response_usage(raw: Any) -> Usage:
    """Our usage from a response's `usage`: input excludes cached tokens; output includes reasoning."""
    if not isinstance(raw, dict):
        return Usage()
    prompt = int(raw.get("input_tokens") or 0)
    output = int(raw.get("output_tokens") or 0)
    cached = int((raw.get("input_tokens_details") or {}).get("cached_tokens") or 0)
    reasoning = (raw.get("output_tokens_details") or {}).get("reasoning_tokens")
    return Usage(
        input=max(prompt - cached, 0),
        output=output,
        cache_read=cached,
        total_tokens=int(raw.get("total_tokens") or prompt + output),
        reasoning=int(reasoning) if reasoning is not None else None,
    )


class _Translator(BlockTranslator):
    """Responses stream events to ours; blocks are keyed by `(output_index, content_index)`.

    A reasoning item is one thinking block from `output_item.added` to `output_item.done` (summary
    parts joined by a blank line, raw reasoning text appended), signed with the finished item. A
    message's text and refusal parts open on their first delta; a function call opens when its
    item is added. Every block of an item closes when the item is done.
    """

    def __init__(self, url: str) -> None:
        super().__init__(API, url)
        self.status: str | None = None
        self.incomplete_reason: str | None = None
        self._blocks: dict[tuple[int, int], Block] = {}
        self._summary_parts: dict[int, int] = {}
        self._calls = 0

    def feed(self, event: SSEEvent) -> list[AssistantMessageEvent]:
        if event.data.strip() == "[DONE]":
            self.complete = True
            return []
        payload = self.json(event)
        kind = str(payload.get("type") or event.event)
        output = payload.get("output_index")
        index = output if isinstance(output, int) else 0
        part = payload.get("content_index")
        part = part if isinstance(part, int) else 0
        if kind == "error":
            # The standalone error event: fields nested under `error`, or (older) at the top.
            text = vendor_error_text(payload) or "unknown error"
            raise self.fail(f"error in the stream from {self.where}: {text}")
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            return self._end(kind, payload.get("response") or {})
        if kind == "response.output_item.added":
            return self._added(index, payload.get("item") or {})
        if kind == "response.output_item.done":
            return self._done(index, payload.get("item") or {})
        if kind == "response.reasoning_summary_part.added":
            return self._summary_part(index)
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return self._piece(index, 0, "thinking", payload.get("delta"))
        if kind == "response.output_text.delta":
            return self._piece(index, part, "text", payload.get("delta"))
        if kind == "response.refusal.delta":
            return self._piece(index, part, "text", payload.get("delta"), refusal=True)
        if kind == "response.function_call_arguments.delta":
            return self._piece(index, 0, "toolCall", payload.get("delta"))
        return []  # lifecycle events, built-in tool progress, annotations, later additions

    def finish(self) -> tuple[list[AssistantMessageEvent], DoneReason]:
        if self.status is None:
            raise self.fail(f"the stream from {self.where} ended before response.completed")
        events = [self.close(block) for block in self._blocks.values()]
        self._blocks.clear()
        if self.status == "incomplete":
            if self.incomplete_reason == "content_filter":
                raise self.fail("the vendor's content filter stopped the response (content_filter)")
            return events, "length"
        return events, "toolUse" if self._calls else "stop"

    def _end(self, kind: str, response: dict[str, Any]) -> list[AssistantMessageEvent]:
        self.usage = response_usage(response.get("usage"))
        if kind == "response.failed":
            text = vendor_error_text(response) or "no error details in the response"
            raise self.fail(f"the response from {self.where} failed: {text}")
        self.status = "incomplete" if kind == "response.incomplete" else "completed"
        details = response.get("incomplete_details")
        if isinstance(details, dict):
            self.incomplete_reason = str(details.get("reason") or "") or None
        self.complete = True
        return []

    def _added(self, index: int, item: dict[str, Any]) -> list[AssistantMessageEvent]:
        kind = item.get("type")
        if kind == "reasoning":
            block = Block(kind="thinking")
        elif kind == "function_call":
            block = Block(
                kind="toolCall", id=str(item.get("call_id") or ""), name=str(item.get("name") or "")
            )
            self._calls += 1
        else:
            return []
        self._blocks[(index, 0)] = block
        return [self.open(block)]

    def _done(self, index: int, item: dict[str, Any]) -> list[AssistantMessageEvent]:
        events: list[AssistantMessageEvent] = []
        kind = item.get("type")
        if kind == "message":
            for content in item.get("content") or []:
                for annotation in (content or {}).get("annotations") or []:
                    if isinstance(annotation, dict):
                        self.keep(annotation)
        elif kind not in ("reasoning", "function_call"):
            self.keep(item)
        if item.get("type") == "function_call" and (index, 0) not in self._blocks:
            events += self._added(index, item)  # a call announced only when done
        for key in sorted(k for k in self._blocks if k[0] == index):
            block = self._blocks.pop(key)
            if block.kind == "thinking" and item.get("type") == "reasoning":
                block.signature = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
            arguments = item.get("arguments")
            if (
                block.kind == "toolCall"
                and not block.text
                and isinstance(arguments, str)
                and arguments
            ):
                events.append(self.add(block, arguments))  # arguments given whole, without deltas
            events.append(self.close(block))
        return events

    def _summary_part(self, index: int) -> list[AssistantMessageEvent]:
        count = self._summary_parts[index] = self._summary_parts.get(index, 0) + 1
        block = self._blocks.get((index, 0))
        if count > 1 and block is not None and block.text:
            return [self.add(block, SUMMARY_PART_SEPARATOR)]
        return []

    def _piece(
        self, index: int, part: int, kind: str, piece: Any, *, refusal: bool = False
    ) -> list[AssistantMessageEvent]:
        if not isinstance(piece, str) or not piece:
            return []
        events: list[AssistantMessageEvent] = []
        block = self._blocks.get((index, part))
        if block is None:
            if kind != "text":
                return []  # a delta for an item that was never added
            block = self._blocks[(index, part)] = Block(kind="text", refusal=refusal)
            events.append(self.open(block))
        events.append(self.add(block, piece))
        return events


VENDOR = Vendor(
    api=API,
    endpoint=responses_url,
    headers=request_headers,
    body=request_body,
    translator=_Translator,
)
"""The `openai-responses` api as data: its endpoint, headers, body and stream translator."""


class OpenAIResponsesProvider(SseProvider):
    """Streams OpenAI Responses API calls (also Azure and OpenRouter) over server-sent events."""

    vendor = VENDOR
