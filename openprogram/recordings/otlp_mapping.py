"""Our messages in the OpenTelemetry GenAI conventions' form, and back (docs/otlp.md).

The conventions (`gen-ai/1.42.0`, status Development) give a model call's messages as JSON:
`gen_ai.input.messages` (`[{"role", "parts": [...]}]`), `gen_ai.output.messages` (the same with
`finish_reason`) and `gen_ai.system_instructions` (parts). A part is `text`, `reasoning`,
`tool_call`, `tool_call_response` or `blob`. What the conventions have no name for (a message's
`timestamp`, an answer's `usage`, a block's `signature`) goes under the key `openprogram` of the
same object, so our own export comes back exactly and any other reader ignores it. OTLP/JSON
attribute values (`{"stringValue": …}`, ints as strings) are encoded and decoded here too.
"""

from __future__ import annotations

import json
from typing import Any

from openprogram.errors import OpenProgramError
from openprogram.providers.types import (
    AssistantMessage,
    ImageContent,
    Message,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

SEMCONV_VERSION = "1.42.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/gen-ai/{SEMCONV_VERSION}"
"""The conventions' schema this mapping follows (status Development: names may still change)."""
INFERENCE_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
"""`gen_ai.operation.name` of a `gen_ai.client.inference` span: one model call."""
OWN = "openprogram"
"""The key, in a message or part object, of what the conventions have no name for."""

MAX_DEPTH = 64
"""Nesting a trace's attribute value may have (a tool's arguments nest; a hostile file nests
without end)."""

FINISH_REASONS: dict[str, str] = {"toolUse": "tool_call"}
"""Our stop reasons the conventions name otherwise (`stop`, `length`, `error` are the same)."""
STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_call": "toolUse",
    "tool_calls": "toolUse",
    "tool_use": "toolUse",
    "toolUse": "toolUse",
    "pauseTurn": "pauseTurn",
    "pause_turn": "pauseTurn",
    "error": "error",
    "aborted": "aborted",
}
"""A finish reason read from a trace, as our stop reason (anything else reads as `stop`)."""


class TraceContentError(OpenProgramError, ValueError):
    """A part of a trace that does not hold what the conventions say; `field` names it."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


# ---- OTLP/JSON attribute values ----------------------------------------------------------------


def any_value(value: Any) -> dict[str, Any]:
    """`value` as an OTLP/JSON `AnyValue` (an int as a string, as protobuf's JSON mapping has it)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [any_value(item) for item in value]}}
    raise TypeError(f"no OTLP value for {type(value).__name__}")


def attribute(key: str, value: Any) -> dict[str, Any]:
    """One OTLP/JSON attribute, `{"key", "value": AnyValue}`."""
    return {"key": key, "value": any_value(value)}


def json_attribute(key: str, value: Any) -> dict[str, Any]:
    """An attribute holding JSON as a string, as the conventions record messages on a span."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return attribute(key, text)


def plain_value(value: Any, field: str, depth: int = 0) -> Any:
    """An OTLP/JSON `AnyValue` as plain data: ints from their strings, kvlists as dicts."""
    if depth > MAX_DEPTH:
        raise TraceContentError(field, f"nested deeper than {MAX_DEPTH}")
    if not isinstance(value, dict) or len(value) != 1:
        raise TraceContentError(field, "is not an OTLP value (one of stringValue, intValue, …)")
    ((kind, inner),) = value.items()
    if kind == "stringValue" and isinstance(inner, str):
        return inner
    if kind == "boolValue" and isinstance(inner, bool):
        return inner
    if kind == "intValue" and isinstance(inner, str | int) and not isinstance(inner, bool):
        try:
            return int(inner)
        except ValueError:
            raise TraceContentError(field, f"intValue {inner!r} is not an integer") from None
    if (
        kind == "doubleValue"
        and isinstance(inner, int | float | str)
        and not isinstance(inner, bool)
    ):
        try:
            return float(inner)
        except ValueError:
            raise TraceContentError(field, f"doubleValue {inner!r} is not a number") from None
    if kind == "arrayValue" and isinstance(inner, dict):
        return [plain_value(item, field, depth + 1) for item in _list(inner.get("values"), field)]
    if kind == "kvlistValue" and isinstance(inner, dict):
        entries = _list(inner.get("values"), field)
        return {
            str(entry.get("key")): plain_value(entry.get("value"), field, depth + 1)
            for entry in entries
            if isinstance(entry, dict)
        }
    if kind == "bytesValue" and isinstance(inner, str):
        return inner
    raise TraceContentError(field, f"holds an OTLP value of unknown kind {kind!r}")


def _list(value: Any, field: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TraceContentError(field, "is not a list")
    return value


def structured(value: Any, field: str) -> Any:
    """A messages attribute as data: the conventions allow a JSON string or structured values."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except RecursionError:
        raise TraceContentError(field, f"nested deeper than {MAX_DEPTH}") from None
    except json.JSONDecodeError as exc:
        raise TraceContentError(field, f"is not JSON ({exc.msg})") from None


# ---- our messages as parts ----------------------------------------------------------------------


def _with_own(part: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    kept = {key: value for key, value in own.items() if value is not None}
    return {**part, OWN: kept} if kept else part


def user_block_part(block: TextContent | ImageContent) -> dict[str, Any]:
    """A user's text or image block as a `text` or `blob` part."""
    if isinstance(block, TextContent):
        return _with_own({"type": "text", "content": block.text}, {"signature": block.signature})
    return {
        "type": "blob",
        "modality": "image",
        "mime_type": block.mime_type,
        "content": block.data,
    }


def answer_parts(message: AssistantMessage) -> list[dict[str, Any]]:
    """An answer's blocks as `text`, `reasoning` and `tool_call` parts."""
    parts = []
    for block in message.content:
        if isinstance(block, TextContent):
            own = {"refusal": block.refusal, "signature": block.signature}
            parts.append(_with_own({"type": "text", "content": block.text}, own))
        elif isinstance(block, ThinkingContent):
            own = {"signature": block.signature, "redacted": block.redacted}
            parts.append(_with_own({"type": "reasoning", "content": block.thinking}, own))
        else:
            call: dict[str, Any] = {"type": "tool_call", "id": block.id, "name": block.name}
            call["arguments"] = block.arguments
            parts.append(_with_own(call, {"signature": block.signature}))
    return parts


def answer_facts(message: AssistantMessage) -> dict[str, Any]:
    """What an answer holds beside its blocks, kept under `openprogram`."""
    return {
        "api": message.api,
        "provider": message.provider,
        "model": message.model,
        "usage": message.usage.model_dump(mode="json"),
        "stop_reason": message.stop_reason,
        "error_message": message.error_message,
        "timestamp": message.timestamp,
        "vendor_items": message.vendor_items,
    }


ANSWER_FACTS = frozenset(
    {
        "api",
        "provider",
        "model",
        "usage",
        "stop_reason",
        "error_message",
        "timestamp",
        "vendor_items",
    }
)
"""The keys `answer_facts` writes: the only ones read back (a trace may hold anything there)."""


def message_form(message: Message) -> dict[str, Any]:
    """One of our messages in the conventions' form (`role`, `parts`)."""
    if isinstance(message, UserMessage):
        if isinstance(message.content, str):
            parts = [{"type": "text", "content": message.content}]
            own: dict[str, Any] = {"timestamp": message.timestamp}
        else:
            parts = [user_block_part(block) for block in message.content]
            own = {"timestamp": message.timestamp, "blocks": True}
        return _with_own({"role": "user", "parts": parts}, own)
    if isinstance(message, AssistantMessage):
        return _with_own(
            {"role": "assistant", "parts": answer_parts(message)}, answer_facts(message)
        )
    blocks = message.content
    response: Any
    if len(blocks) == 1 and isinstance(blocks[0], TextContent) and blocks[0].signature is None:
        response = blocks[0].text
    else:
        response = [user_block_part(block) for block in blocks]
    part = {"type": "tool_call_response", "id": message.tool_call_id, "response": response}
    own = {"tool_name": message.tool_name, "is_error": message.is_error or None}
    return _with_own({"role": "tool", "parts": [part]}, {**own, "timestamp": message.timestamp})


def output_form(message: AssistantMessage) -> dict[str, Any]:
    """An answer as one `gen_ai.output.messages` item, with its `finish_reason`."""
    form = message_form(message)
    reason = FINISH_REASONS.get(message.stop_reason, message.stop_reason)
    return {**form, "finish_reason": reason}


# ---- parts back to our messages -----------------------------------------------------------------


def _own(item: dict[str, Any]) -> dict[str, Any]:
    own = item.get(OWN)
    return own if isinstance(own, dict) else {}


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _parts(item: Any, field: str) -> list[dict[str, Any]]:
    if not isinstance(item, dict):
        raise TraceContentError(field, "a message is not a JSON object")
    parts = item.get("parts", [])
    if not isinstance(parts, list) or not all(isinstance(part, dict) for part in parts):
        raise TraceContentError(field, "a message's parts are not a list of JSON objects")
    return parts


def _user_blocks(parts: list[dict[str, Any]]) -> list[TextContent | ImageContent]:
    blocks: list[TextContent | ImageContent] = []
    for part in parts:
        if part.get("type") == "blob" and part.get("modality", "image") == "image":
            mime = part.get("mime_type")
            blocks.append(ImageContent(data=_text(part.get("content", "")), mime_type=_text(mime)))
        else:
            signature = _own(part).get("signature")
            blocks.append(TextContent(text=_text(part.get("content", "")), signature=signature))
    return blocks


def answer_message(item: Any, field: str, defaults: dict[str, Any]) -> AssistantMessage:
    """An assistant message in the conventions' form as ours; `defaults` give what it lacks."""
    content: list[TextContent | ThinkingContent | ToolCall] = []
    for number, part in enumerate(_parts(item, field)):
        own, kind = _own(part), part.get("type")
        if kind == "reasoning":
            content.append(
                ThinkingContent(
                    thinking=_text(part.get("content", "")),
                    signature=own.get("signature"),
                    redacted=own.get("redacted"),
                )
            )
        elif kind == "tool_call":
            arguments = structured(part.get("arguments") or {}, f"{field} part {number}")
            if not isinstance(arguments, dict):
                arguments = {"arguments": arguments}
            content.append(
                ToolCall(
                    id=_text(part.get("id") or f"call_{number}"),
                    name=_text(part.get("name", "")),
                    arguments=arguments,
                    signature=own.get("signature"),
                )
            )
        else:
            content.append(
                TextContent(
                    text=_text(part.get("content", "")),
                    refusal=own.get("refusal"),
                    signature=own.get("signature"),
                )
            )
    own = {k: v for k, v in _own(item).items() if k in ANSWER_FACTS and v is not None}
    facts = {**defaults, **own}
    if "stop_reason" not in _own(item) and "finish_reason" in item:
        facts["stop_reason"] = STOP_REASONS.get(str(item["finish_reason"]), "stop")
    return AssistantMessage(content=content, **facts)


def context_messages(items: Any, field: str, defaults: dict[str, Any]) -> list[Message]:
    """`gen_ai.input.messages` as our messages (a `system` message is left to the caller);
    `defaults` give an answer's facts and every message's `timestamp` where the trace has none."""
    if not isinstance(items, list):
        raise TraceContentError(field, "is not a list of messages")
    messages: list[Message] = []
    for number, item in enumerate(items):
        where = f"{field}[{number}]"
        parts, role = _parts(item, where), item.get("role")
        own = _own(item)
        timestamp = {"timestamp": own.get("timestamp", defaults["timestamp"])}
        if role == "assistant":
            messages.append(answer_message(item, where, defaults))
        elif role == "tool":
            for part in parts:
                response = part.get("response", "")
                blocks = (
                    _user_blocks(response)
                    if isinstance(response, list) and all(isinstance(p, dict) for p in response)
                    else [TextContent(text=_text(response))]
                )
                messages.append(
                    ToolResultMessage(
                        tool_call_id=_text(part.get("id", "")),
                        tool_name=_text(own.get("tool_name", "")),
                        content=blocks,
                        is_error=bool(own.get("is_error", False)),
                        **timestamp,
                    )
                )
        elif role != "system":
            blocks = _user_blocks(parts)
            if own.get("blocks"):
                messages.append(UserMessage(content=list(blocks), **timestamp))
            else:
                text = "".join(b.text for b in blocks if isinstance(b, TextContent))
                messages.append(UserMessage(content=text, **timestamp))
    return messages


def system_text(items: Any, field: str) -> str:
    """`gen_ai.system_instructions` (parts) as one system prompt."""
    if isinstance(items, str):
        return items
    if not isinstance(items, list):
        raise TraceContentError(field, "is not a list of parts")
    return "".join(_text(p.get("content", "")) for p in items if isinstance(p, dict))
