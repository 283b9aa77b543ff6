"""The `anthropic-messages` provider: Anthropic's Messages API over server-sent events.

Requests go to `{model.base_url or https://api.anthropic.com}/v1/messages` with `stream: true`;
`content_block_*` events become our text, thinking (with its signature) and tool-call blocks.
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
    ToolCall,
    UserMessage,
)

API = "anthropic-messages"
DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
MIN_THINKING_BUDGET = 1024
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
"""Thinking `budget_tokens` for each vendor-neutral reasoning effort."""

_STOP_REASONS: dict[str, DoneReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "pauseTurn",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}


def messages_url(model: Model) -> str:
    """The endpoint for `model`: its `base_url` (default Anthropic's) plus `/v1/messages`."""
    base = (model.base_url or DEFAULT_BASE_URL).rstrip("/")
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


def _blocks(blocks: Sequence[TextContent | ImageContent]) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": b.text}
        if isinstance(b, TextContent)
        else {
            "type": "image",
            "source": {"type": "base64", "media_type": b.mime_type, "data": b.data},
        }
        for b in blocks
    ]


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent) and block.text:  # the API refuses empty text blocks
            blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ThinkingContent) and block.redacted and block.signature:
            # Encrypted reasoning must go back as it came for the turn to continue.
            blocks.append({"type": "redacted_thinking", "data": block.signature})
        elif isinstance(block, ThinkingContent) and block.signature:
            # Unsigned thinking (another vendor's, or cut off) cannot be sent back as thinking.
            blocks.append(
                {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
            )
        elif isinstance(block, ToolCall):
            blocks.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.arguments}
            )
    return blocks


def request_messages(context: Context) -> list[dict[str, Any]]:
    """The context's messages as Messages-API `messages`; tool results become user turns."""
    messages: list[dict[str, Any]] = []
    for message in context.messages:
        if isinstance(message, UserMessage):
            content = message.content
            blocks = content if isinstance(content, str) else _blocks(content)
            messages.append({"role": "user", "content": blocks})
        elif isinstance(message, AssistantMessage):
            if blocks := _assistant_blocks(message):
                messages.append({"role": "assistant", "content": blocks})
        else:
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "is_error": message.is_error,
            }
            if message.content:
                result["content"] = _blocks(message.content)
            previous = messages[-1] if messages else None
            # All results for one assistant turn must arrive in the single user turn after it.
            if previous and previous["role"] == "user" and _is_tool_results(previous["content"]):
                previous["content"].append(result)
            else:
                messages.append({"role": "user", "content": [result]})
    return messages


def _is_tool_results(content: Any) -> bool:
    return isinstance(content, list) and all(b.get("type") == "tool_result" for b in content)


def request_body(
    model: Model, context: Context, options: StreamOptions, reasoning: str | None
) -> dict[str, Any]:
    """The JSON body of a streamed Messages request."""
    max_tokens = options.max_tokens or model.max_tokens
    body: dict[str, Any] = {
        "model": model.id,
        "max_tokens": max_tokens,
        "stream": True,
        "messages": request_messages(context),
    }
    if context.system_prompt:
        body["system"] = context.system_prompt
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in context.tools
        ]
    if reasoning and model.reasoning:
        budget = THINKING_BUDGETS.get(reasoning, MIN_THINKING_BUDGET)
        if budget >= max_tokens:
            # The budget must stay below max_tokens, which also has to cover the answer.
            budget = max(MIN_THINKING_BUDGET, max_tokens - MIN_THINKING_BUDGET)
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return body


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Request headers: JSON in, SSE out, the API version and key, then model and call headers."""
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        "anthropic-version": ANTHROPIC_VERSION,
    }
    if options.api_key:
        headers["x-api-key"] = options.api_key
    headers.update(model.headers or {})
    headers.update(options.headers or {})
    return headers


class _Translator(BlockTranslator):
    """Messages-API stream events to ours; vendor block indexes map to our content indexes.

    Blocks we cannot represent (e.g. server tool results) are skipped with their deltas, so our
    content indexes stay consecutive; `redacted_thinking` becomes a thinking block marked
    `redacted` whose `signature` holds the encrypted data.
    """

    def __init__(self, url: str) -> None:
        super().__init__(API, url)
        self.stop_reason: str | None = None
        self._blocks: dict[int, Block] = {}

    def feed(self, event: SSEEvent) -> list[AssistantMessageEvent]:
        payload = self.json(event)
        kind = payload.get("type") or event.event
        if kind == "error":
            text = vendor_error_text(payload) or "unknown error"
            raise self.fail(f"error in the stream from {self.where}: {text}")
        if kind == "message_start":
            self._update_usage((payload.get("message") or {}).get("usage"))
        elif kind == "message_delta":
            self.stop_reason = (payload.get("delta") or {}).get("stop_reason") or self.stop_reason
            self._update_usage(payload.get("usage"))
        elif kind == "message_stop":
            self.complete = True
        elif kind == "content_block_start":
            return self._start(int(payload.get("index", 0)), payload.get("content_block") or {})
        elif kind == "content_block_delta":
            return self._delta(int(payload.get("index", 0)), payload.get("delta") or {})
        elif kind == "content_block_stop":
            block = self._blocks.pop(int(payload.get("index", 0)), None)
            return [self.close(block)] if block is not None else []
        return []  # ping and event types added later

    def finish(self) -> tuple[list[AssistantMessageEvent], DoneReason]:
        if not self.complete:
            raise self.fail(f"the stream from {self.where} ended before message_stop")
        if self.stop_reason == "refusal":
            raise self.fail("the model declined to answer (stop_reason refusal)")
        events = [self.close(block) for block in self._blocks.values()]
        self._blocks.clear()
        return events, _STOP_REASONS.get(self.stop_reason or "end_turn", "stop")

    def _start(self, index: int, content: dict[str, Any]) -> list[AssistantMessageEvent]:
        kind = content.get("type")
        if kind == "text":
            block, initial = Block(kind="text"), content.get("text") or ""
        elif kind == "thinking":
            block, initial = Block(kind="thinking"), content.get("thinking") or ""
            block.signature = content.get("signature") or None
        elif kind == "redacted_thinking":
            block = Block(kind="thinking", redacted=True, signature=str(content.get("data") or ""))
            initial = ""
        elif kind == "tool_use":
            block = Block(kind="toolCall", id=str(content.get("id")), name=str(content.get("name")))
            # The input normally arrives as input_json_delta pieces after an empty `{}`.
            given = content.get("input")
            initial = json.dumps(given) if isinstance(given, dict) and given else ""
        else:
            return []
        self._blocks[index] = block
        events = [self.open(block)]
        if initial:
            events.append(self.add(block, initial))
        return events

    def _delta(self, index: int, delta: dict[str, Any]) -> list[AssistantMessageEvent]:
        block = self._blocks.get(index)
        kind = delta.get("type")
        if block is None:
            return []
        if kind == "signature_delta":
            block.signature = (block.signature or "") + str(delta.get("signature") or "")
            return []
        piece = {
            "text_delta": "text",
            "thinking_delta": "thinking",
            "input_json_delta": "partial_json",
        }
        field = piece.get(str(kind))
        text = delta.get(field) if field else None
        return [self.add(block, text)] if isinstance(text, str) and text else []

    def _update_usage(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            return
        # message_delta repeats only the counts that changed; keep the others from message_start.
        usage = self.usage.model_copy()
        for ours, theirs in (
            ("input", "input_tokens"),
            ("output", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        ):
            if isinstance(raw.get(theirs), int):
                setattr(usage, ours, raw[theirs])
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
        self.usage = usage


VENDOR = Vendor(
    api=API,
    endpoint=messages_url,
    headers=request_headers,
    body=request_body,
    translator=_Translator,
)
"""The `anthropic-messages` api as data: its endpoint, headers, body and stream translator."""


class AnthropicMessagesProvider(SseProvider):
    """Streams Anthropic Messages API calls over HTTP server-sent events."""

    vendor = VENDOR
