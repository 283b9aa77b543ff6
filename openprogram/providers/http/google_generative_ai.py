"""The `google-generative-ai` provider: Gemini's `streamGenerateContent` (and Vertex AI's) over SSE.

Requests go to `{model.base_url or https://generativelanguage.googleapis.com}/v1beta/models/{id}
:streamGenerateContent?alt=sse` with the key in `x-goog-api-key`. Each chunk is a whole
`GenerateContentResponse`: its first candidate's parts become text, thinking (`thought: true`) and
tool calls (`functionCall`, several per chunk for parallel calls, or streamed as Vertex's
`partialArgs`). A part's `thoughtSignature` stays on the block the part went into and goes back
with it on the next turn. `usageMetadata` is cumulative on every chunk: the last one with token
counts wins. Parts and candidate metadata with no place in our types (`executableCode`,
`codeExecutionResult`, a non-empty `groundingMetadata` or `citationMetadata`) are kept as sent in the
final message's `vendor_items`, metadata under its own key (`{"groundingMetadata": {...}}`).
"""

from __future__ import annotations

import itertools
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
    ThinkingContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)

API = "google-generative-ai"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
THINKING_BUDGETS = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}
"""`thinkingConfig.thinkingBudget` for each vendor-neutral reasoning effort."""

_METADATA_KEPT = ("groundingMetadata", "citationMetadata")
"""Candidate fields our types cannot hold, kept in `vendor_items` when not empty."""

_FINISH_REASONS: dict[str, DoneReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "FINISH_REASON_UNSPECIFIED": "stop",
}


def generate_url(model: Model) -> str:
    """`{base}/v1beta/models/{id}:streamGenerateContent?alt=sse` (a base ending in a version keeps it).

    A query on the base (`?key=…`, the older way to pass the key) is kept after `alt=sse`; recordings
    redact it like any `key` parameter in a URL.
    """
    base, _, query = (model.base_url or DEFAULT_BASE_URL).partition("?")
    base = base.rstrip("/")
    if not base.rsplit("/", 1)[-1].startswith("v1"):
        base += "/v1beta"
    model_id = model.id.removeprefix("models/")
    return f"{base}/models/{model_id}:streamGenerateContent?alt=sse" + (
        f"&{query}" if query else ""
    )


def _parts(blocks: Sequence[TextContent | ImageContent]) -> list[dict[str, Any]]:
    return [
        {"text": b.text}
        if isinstance(b, TextContent)
        else {"inlineData": {"mimeType": b.mime_type, "data": b.data}}
        for b in blocks
    ]


def _signed(part: dict[str, Any], signature: str | None, ours: bool) -> dict[str, Any]:
    # Another vendor's signature means nothing to Gemini and would be rejected.
    if signature and ours:
        part["thoughtSignature"] = signature
    return part


def _model_parts(message: AssistantMessage) -> list[dict[str, Any]]:
    ours = message.api == API
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            # Thought summaries are for reading; only a signed thought carries state back.
            if block.signature and ours:
                parts.append(
                    _signed({"text": block.thinking, "thought": True}, block.signature, ours)
                )
        elif isinstance(block, TextContent):
            if block.text or (block.signature and ours):
                parts.append(_signed({"text": block.text}, block.signature, ours))
        else:
            call = {"name": block.name, "args": block.arguments, "id": block.id}
            parts.append(_signed({"functionCall": call}, block.signature, ours))
    return parts


def _response_part(message: ToolResultMessage) -> list[dict[str, Any]]:
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)]
    if not text:
        text = "(see the attached image)" if images else "(no output)"
    response = {"error": text} if message.is_error else {"output": text}
    part = {
        "functionResponse": {
            "name": message.tool_name,
            "id": message.tool_call_id,
            "response": response,
        }
    }
    return [part, *_parts(images)]


def request_contents(context: Context) -> list[dict[str, Any]]:
    """The context's messages as Gemini `contents` (`user` and `model` turns); the results of one
    turn's calls go back together in the one `user` turn after it."""
    contents: list[dict[str, Any]] = []
    previous_results = False
    for message in context.messages:
        if isinstance(message, UserMessage):
            content = message.content
            parts = [{"text": content}] if isinstance(content, str) else _parts(content)
            contents.append({"role": "user", "parts": parts})
        elif isinstance(message, AssistantMessage):
            if parts := _model_parts(message):
                contents.append({"role": "model", "parts": parts})
        elif previous_results:
            contents[-1]["parts"] += _response_part(message)
        else:
            contents.append({"role": "user", "parts": _response_part(message)})
        previous_results = isinstance(message, ToolResultMessage)
    return contents


def request_body(
    model: Model, context: Context, options: StreamOptions, reasoning: str | None
) -> dict[str, Any]:
    """The JSON body of a streamed generateContent request."""
    body: dict[str, Any] = {"contents": request_contents(context)}
    if context.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": context.system_prompt}]}
    if context.tools:
        declarations = [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in context.tools
        ]
        body["tools"] = [{"functionDeclarations": declarations}]
    config: dict[str, Any] = {}
    if options.max_tokens is not None:
        config["maxOutputTokens"] = options.max_tokens
    if options.temperature is not None:
        config["temperature"] = options.temperature
    if model.reasoning:
        thinking: dict[str, Any] = {"includeThoughts": True}
        if reasoning:
            thinking["thinkingBudget"] = THINKING_BUDGETS.get(reasoning, THINKING_BUDGETS["low"])
        config["thinkingConfig"] = thinking
    if config:
        body["generationConfig"] = config
    return body


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Request headers: JSON in, SSE out, the key in `x-goog-api-key`, then model and call headers."""
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if options.api_key:
        headers["x-goog-api-key"] = options.api_key
    headers.update(model.headers or {})
    headers.update(options.headers or {})
    return headers


def usage_of(raw: Any) -> Usage | None:
    """Our usage from `usageMetadata`, or None when it holds no token count (Vertex's early chunks).

    Input is the prompt plus tool-use prompt tokens less cached ones; output includes thoughts.
    """
    if not isinstance(raw, dict) or not any(k.endswith("TokenCount") for k in raw):
        return None
    prompt = int(raw.get("promptTokenCount") or 0) + int(raw.get("toolUsePromptTokenCount") or 0)
    cached = int(raw.get("cachedContentTokenCount") or 0)
    thoughts = raw.get("thoughtsTokenCount")
    output = int(raw.get("candidatesTokenCount") or 0) + int(thoughts or 0)
    return Usage(
        input=max(prompt - cached, 0),
        output=output,
        cache_read=cached,
        total_tokens=int(raw.get("totalTokenCount") or prompt + output),
        reasoning=int(thoughts) if thoughts is not None else None,
    )


def set_json_path(target: dict[str, Any], path: str, value: Any, append: bool) -> None:
    """Set (or, for string pieces, extend) `value` at a `$.a.b` / `$.a[0]` path in `target`."""
    keys: list[str | int] = []
    for name in path.removeprefix("$").strip(".").replace("[", ".[").split("."):
        if name.startswith("[") and name.endswith("]") and name[1:-1].isdigit():
            keys.append(int(name[1:-1]))
        elif name:
            keys.append(name)
    node: Any = target
    for key, following in itertools.pairwise(keys):
        empty: Any = [] if isinstance(following, int) else {}
        if isinstance(node, list) and isinstance(key, int):
            while len(node) <= key:
                node.append(empty)
            node = node[key]
        else:
            node = node.setdefault(key, empty)
    last = keys[-1] if keys else ""
    if isinstance(node, list) and isinstance(last, int):
        while len(node) <= last:
            node.append(None)
        node[last] = node[last] + value if append and isinstance(node[last], str) else value
    else:
        old = node.get(last)
        node[last] = old + value if append and isinstance(old, str) else value


def _partial_value(piece: dict[str, Any]) -> tuple[Any, bool]:
    if "stringValue" in piece:
        return str(piece["stringValue"]), True
    for key in ("numberValue", "boolValue", "structValue", "listValue"):
        if key in piece:
            return piece[key], False
    return None, False


class _Translator(BlockTranslator):
    """Gemini chunks to events, part by part, in order.

    Consecutive text parts (and consecutive thought parts) share a block unless a second signature
    arrives; an empty text part carrying a signature signs the open text block (or opens an empty
    signed one). Each function call is its own block, closed at once, or when a Vertex
    `partialArgs` stream is closed by its empty `functionCall`.
    """

    def __init__(self, url: str) -> None:
        super().__init__(API, url)
        self.finish_reason: str | None = None
        self._current: Block | None = None
        self._streaming_call: Block | None = None
        self._streaming_args: dict[str, Any] = {}
        self._calls = 0

    def feed(self, event: SSEEvent) -> list[AssistantMessageEvent]:
        chunk = self.json(event)
        if chunk.get("error"):
            text = _google_error_text(chunk)
            raise self.fail(f"error in the stream from {self.where}: {text}")
        usage = usage_of(chunk.get("usageMetadata"))
        if usage is not None:
            self.usage = usage
        blocked = (chunk.get("promptFeedback") or {}).get("blockReason")
        if blocked:
            raise self.fail(f"the prompt was blocked ({blocked})")
        events: list[AssistantMessageEvent] = []
        candidates = chunk.get("candidates") or []
        candidate = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
        for part in (candidate.get("content") or {}).get("parts") or []:
            if isinstance(part, dict):
                events += self._part(part)
        for key in _METADATA_KEPT:
            if candidate.get(key):
                self.keep({key: candidate[key]})
        if candidate.get("finishReason"):
            self.finish_reason = str(candidate["finishReason"])
        return events

    def finish(self) -> tuple[list[AssistantMessageEvent], DoneReason]:
        if self.finish_reason is None:
            raise self.fail(f"the stream from {self.where} ended before a finishReason")
        reason = _FINISH_REASONS.get(self.finish_reason)
        if reason is None:
            raise self.fail(f"the model stopped without finishing ({self.finish_reason})")
        events = self._end_current()
        if self._streaming_call is not None:
            events += self._end_streaming_call()
        # Gemini says STOP after function calls too; they still need running.
        return events, "toolUse" if reason == "stop" and self._calls else reason

    def _end_current(self) -> list[AssistantMessageEvent]:
        block, self._current = self._current, None
        return [self.close(block)] if block is not None else []

    def _part(self, part: dict[str, Any]) -> list[AssistantMessageEvent]:
        signature = part.get("thoughtSignature")
        signature = str(signature) if signature else None
        call = part.get("functionCall")
        if isinstance(call, dict):
            return self._function_call(call, signature)
        text = part.get("text")
        if text is None and signature and set(part) <= {"thoughtSignature", "thought"}:
            text = ""  # a signature on its own signs the block it follows
        if not isinstance(text, str):
            if set(part) - {"thoughtSignature", "thought"}:
                self.keep(
                    part
                )  # executableCode, codeExecutionResult, inlineData, ...: not in our types
            return []
        kind: Literal["text", "thinking"] = "thinking" if part.get("thought") else "text"
        events: list[AssistantMessageEvent] = []
        current = self._current
        if (
            not text
            and signature
            and current is not None
            and current.kind == kind
            and current.signature is None
        ):
            current.signature = signature
            return []
        if not text and not signature:
            return []
        if (
            current is None
            or current.kind != kind
            or (signature is not None and current.signature is not None)
        ):
            events += self._end_current()
            current = self._current = Block(kind=kind)
            events.append(self.open(current))
        if signature is not None:
            current.signature = signature
        if text:
            events.append(self.add(current, text))
        return events

    def _function_call(
        self, call: dict[str, Any], signature: str | None
    ) -> list[AssistantMessageEvent]:
        events = self._end_current()
        streaming = self._streaming_call
        if streaming is not None:
            for piece in call.get("partialArgs") or []:
                if isinstance(piece, dict) and isinstance(piece.get("jsonPath"), str):
                    value, append = _partial_value(piece)
                    set_json_path(self._streaming_args, piece["jsonPath"], value, append)
            if not call.get("willContinue") and "name" not in call:
                events += self._end_streaming_call()
                return events
            if "name" not in call:
                return events
            events += self._end_streaming_call()  # a new call began without closing the last
        block = Block(
            kind="toolCall",
            id=str(call.get("id") or f"{call.get('name') or 'call'}#{self._calls}"),
            name=str(call.get("name") or ""),
            signature=signature,
        )
        self._calls += 1
        events.append(self.open(block))
        if call.get("willContinue"):
            self._streaming_call, self._streaming_args = block, {}
            args = call.get("args")
            if isinstance(args, dict):
                self._streaming_args.update(args)
            return events
        args = call.get("args")
        if isinstance(args, dict) and args:
            events.append(self.add(block, json.dumps(args, ensure_ascii=False)))
        events.append(self.close(block))
        return events

    def _end_streaming_call(self) -> list[AssistantMessageEvent]:
        block, self._streaming_call = self._streaming_call, None
        if block is None:
            return []
        events: list[AssistantMessageEvent] = []
        if self._streaming_args:
            events.append(self.add(block, json.dumps(self._streaming_args, ensure_ascii=False)))
        events.append(self.close(block))
        return events


def _google_error_text(payload: dict[str, Any]) -> str:
    error = payload.get("error")
    if isinstance(error, dict) and error.get("status") and error.get("message"):
        return f"{error['message']} ({error['status']})"
    return vendor_error_text(payload) or "unknown error"


VENDOR = Vendor(
    api=API,
    endpoint=generate_url,
    headers=request_headers,
    body=request_body,
    translator=_Translator,
)
"""The `google-generative-ai` api as data: its endpoint, headers, body and stream translator."""


class GoogleGenerativeAIProvider(SseProvider):
    """Streams Gemini (Google AI Studio, or Vertex AI through `base_url`) over server-sent events."""

    vendor = VENDOR
