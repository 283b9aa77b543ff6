"""The `openai-completions` provider: OpenAI chat completions, and compatible servers, over SSE.

Requests go to `{model.base_url or https://api.openai.com/v1}/chat/completions` with `stream: true`;
streamed chunks become our events (text, reasoning as thinking, tool calls keyed by their index).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

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
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

API = "openai-completions"
DEFAULT_BASE_URL = "https://api.openai.com/v1"

_FINISH_REASONS: dict[str, DoneReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}


def chat_completions_url(model: Model) -> str:
    """The endpoint for `model`: its `base_url` (default OpenAI's) plus `/chat/completions`."""
    return (model.base_url or DEFAULT_BASE_URL).rstrip("/") + "/chat/completions"


def _parts(blocks: Sequence[TextContent | ImageContent]) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": b.text}
        if isinstance(b, TextContent)
        else {"type": "image_url", "image_url": {"url": f"data:{b.mime_type};base64,{b.data}"}}
        for b in blocks
    ]


def request_messages(context: Context) -> list[dict[str, Any]]:
    """The context as chat-completions `messages` (system, user, assistant, tool)."""
    messages: list[dict[str, Any]] = []
    if context.system_prompt:
        messages.append({"role": "system", "content": context.system_prompt})
    # Tool messages take text only, and must directly follow their assistant message; images
    # from tool results therefore go in one user message after the run of tool messages.
    pending_images: list[ImageContent] = []
    for message in context.messages:
        if not isinstance(message, ToolResultMessage) and pending_images:
            messages.append({"role": "user", "content": _parts(pending_images)})
            pending_images = []
        if isinstance(message, UserMessage):
            content = message.content
            messages.append(
                {
                    "role": "user",
                    "content": content if isinstance(content, str) else _parts(content),
                }
            )
        elif isinstance(message, AssistantMessage):
            text = "".join(b.text for b in message.content if isinstance(b, TextContent))
            calls = [
                {
                    "id": b.id,
                    "type": "function",
                    "function": {"name": b.name, "arguments": json.dumps(b.arguments)},
                }
                for b in message.content
                if isinstance(b, ToolCall)
            ]
            if not text and not calls:
                continue  # the API rejects an assistant message with neither
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            messages.append(entry)
        else:
            text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
            images = [b for b in message.content if isinstance(b, ImageContent)]
            pending_images.extend(images)
            if not text:
                text = "(see the attached image)" if images else "(no output)"
            messages.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": text})
    if pending_images:
        messages.append({"role": "user", "content": _parts(pending_images)})
    return messages


def request_body(
    model: Model, context: Context, options: StreamOptions, reasoning: str | None
) -> dict[str, Any]:
    """The JSON body of a streamed chat-completions request."""
    body: dict[str, Any] = {
        "model": model.id,
        "messages": request_messages(context),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.max_tokens is not None:
        # Reasoning models refuse `max_tokens`; many compatible servers only know `max_tokens`.
        body["max_completion_tokens" if model.reasoning else "max_tokens"] = options.max_tokens
    if context.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in context.tools
        ]
    if reasoning and model.reasoning:
        body["reasoning_effort"] = reasoning
    return body


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Request headers: JSON in, SSE out, the bearer key, then model and call headers."""
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if options.api_key:
        headers["authorization"] = f"Bearer {options.api_key}"
    headers.update(model.headers or {})
    headers.update(options.headers or {})
    return headers


def _usage(raw: dict[str, Any]) -> Usage:
    prompt = int(raw.get("prompt_tokens") or 0)
    output = int(raw.get("completion_tokens") or 0)
    cached = int((raw.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
    reasoning = (raw.get("completion_tokens_details") or {}).get("reasoning_tokens")
    return Usage(
        input=max(prompt - cached, 0),
        output=output,
        cache_read=cached,
        total_tokens=int(raw.get("total_tokens") or prompt + output),
        reasoning=int(reasoning) if reasoning is not None else None,
    )


class _Translator(BlockTranslator):
    """Chat-completion chunks to events.

    Text and thinking blocks end when another block starts; tool calls, keyed by the chunk's
    `tool_calls[].index`, stay open until the stream finishes, since their pieces may interleave.
    """

    def __init__(self, url: str) -> None:
        super().__init__(API, url)
        self.finish_reason: str | None = None
        self._current: Block | None = None
        self._tools: dict[int, Block] = {}

    def feed(self, event: SSEEvent) -> list[AssistantMessageEvent]:
        if event.data.strip() == "[DONE]":
            self.complete = True
            return []
        chunk = self.json(event)
        if chunk.get("error"):
            text = vendor_error_text(chunk) or "unknown error"
            raise self.fail(f"error in the stream from {self.where}: {text}")
        if isinstance(chunk.get("usage"), dict):
            self.usage = _usage(chunk["usage"])
        events: list[AssistantMessageEvent] = []
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            thinking = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thinking, str) and thinking:
                events += self._text_like("thinking", thinking)
            if isinstance(delta.get("content"), str) and delta["content"]:
                events += self._text_like("text", delta["content"])
            if isinstance(delta.get("refusal"), str) and delta["refusal"]:
                events += self._text_like("text", delta["refusal"], refusal=True)
            for call in delta.get("tool_calls") or []:
                events += self._tool_call(call)
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        return events

    def finish(self) -> tuple[list[AssistantMessageEvent], DoneReason]:
        if self.finish_reason is None and not self.complete:
            raise self.fail(f"the stream from {self.where} ended before a finish_reason")
        if self.finish_reason == "content_filter":
            raise self.fail("the vendor's content filter stopped the response (content_filter)")
        events = self._end_current()
        events += [self.close(block) for block in self._tools.values()]
        # A compatible server may end with [DONE] and no finish_reason: what arrived is whole.
        reason = _FINISH_REASONS.get(self.finish_reason or "stop", "stop")
        # Some compatible servers say "stop" after tool calls; the calls still need running.
        return events, "toolUse" if reason == "stop" and self._tools else reason

    def _end_current(self) -> list[AssistantMessageEvent]:
        block, self._current = self._current, None
        return [self.close(block)] if block is not None else []

    def _text_like(
        self, kind: Literal["text", "thinking"], piece: str, *, refusal: bool = False
    ) -> list[AssistantMessageEvent]:
        events: list[AssistantMessageEvent] = []
        current = self._current
        if current is None or current.kind != kind or current.refusal != refusal:
            events += self._end_current()
            current = self._current = Block(kind=kind, refusal=refusal)
            events.append(self.open(current))
        events.append(self.add(current, piece))
        return events

    def _tool_call(self, call: dict[str, Any]) -> list[AssistantMessageEvent]:
        events: list[AssistantMessageEvent] = []
        function = call.get("function") or {}
        key = call.get("index")
        if not isinstance(key, int):
            # Servers that omit the index: a new id starts a call, anything else continues one.
            ids = {block.id: k for k, block in self._tools.items()}
            call_id = call.get("id")
            key = ids.get(call_id, len(self._tools)) if call_id else max(self._tools, default=0)
        block = self._tools.get(key)
        if block is None:
            events += self._end_current()
            block = Block(
                kind="toolCall",
                id=str(call.get("id") or f"call_{key}"),
                name=str(function.get("name") or ""),
            )
            self._tools[key] = block
            events.append(self.open(block))
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            events.append(self.add(block, arguments))
        return events


VENDOR = Vendor(
    api=API,
    endpoint=chat_completions_url,
    headers=request_headers,
    body=request_body,
    translator=_Translator,
)
"""The `openai-completions` api as data: its endpoint, headers, body and stream translator."""


class OpenAICompletionsProvider(SseProvider):
    """Streams OpenAI chat completions (or any compatible server) over HTTP server-sent events."""

    vendor = VENDOR
