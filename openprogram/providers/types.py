"""The data that crosses the provider boundary: models, contexts, messages, options and streamed events.

Everything is a pydantic v2 model with snake_case fields, so a request or an event dumps to JSON and
validates back without loss. Delta events carry no cumulative snapshot of the message; use
`openprogram.providers.accumulator.MessageAccumulator` to fold events into the message so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


def now_ms() -> int:
    """The current wall-clock time in Unix milliseconds (the unit of every `timestamp`)."""
    return int(time.time() * 1000)


# ---- bounds ---------------------------------------------------------------------------------
# A recording is untrusted input: every number it holds has bounds, generous for real use, so a
# view never meets a year past 9999, a negative token count or a wait of a century. The strict
# reader refuses a row outside them (docs/recording-format.md#numbers).

MAX_COUNT = 10**9
"""Indexes and counts (call, event, content block): a billion events is a file of 100 GB."""
MAX_TOKENS = 10**12
"""Tokens of one kind in one call (the largest context windows hold about 10^7)."""
MAX_CALL_MS = 7 * 24 * 3600 * 1000
"""A time within one call (an event's arrival, its duration): a week."""
MAX_SESSION_MS = 366 * 24 * 3600 * 1000
"""A call's start within the session: a year."""
MAX_UNIX_MS = 253_402_300_799_999
"""A `timestamp` (Unix milliseconds): 9999-12-31T23:59:59.999Z, the last moment a date holds."""

Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Tokens = Annotated[int, Field(ge=0, le=MAX_TOKENS)]
CallMs = Annotated[int, Field(ge=0, le=MAX_CALL_MS)]
SessionMs = Annotated[int, Field(ge=0, le=MAX_SESSION_MS)]
UnixMs = Annotated[int, Field(ge=0, le=MAX_UNIX_MS)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- content blocks -------------------------------------------------------------------------


def _unset(value: object) -> bool:
    return value is None


class TextContent(_Record):
    """A block of plain text."""

    type: Literal["text"] = "text"
    text: str
    refusal: bool | None = Field(default=None, exclude_if=_unset)
    """True when the text is the model's refusal (OpenAI's `delta.refusal`), not an answer."""
    signature: str | None = Field(default=None, exclude_if=_unset)
    """The vendor's opaque token for this block (Gemini's `thoughtSignature` on a text part), sent
    back unchanged on the next turn."""


class ThinkingContent(_Record):
    """A block of model reasoning; `signature` is the vendor's opaque proof, when it sends one."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    redacted: bool | None = Field(default=None, exclude_if=_unset)
    """True for reasoning the vendor encrypted (Anthropic's `redacted_thinking`): `thinking` is
    empty and `signature` holds the opaque `data`, which must be sent back unchanged."""


class ImageContent(_Record):
    """An image given to the model, base64 `data` with its `mime_type`."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ToolCall(_Record):
    """A request from the model to run tool `name` with JSON `arguments`."""

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    signature: str | None = Field(default=None, exclude_if=_unset)
    """The vendor's opaque token for this call (Gemini's `thoughtSignature`, which Gemini 3 requires
    back with the call on the next turn)."""


UserBlock = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantBlock = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]

StopReason = Literal["stop", "length", "toolUse", "pauseTurn", "error", "aborted"]
"""`pauseTurn`: the vendor paused a long turn (Anthropic `pause_turn`); send the answer back to go on."""


class Usage(_Record):
    """Token counts reported by the vendor for one call."""

    input: Tokens = 0
    output: Tokens = 0
    cache_read: Tokens = 0
    cache_write: Tokens = 0
    total_tokens: Tokens = 0
    reasoning: Tokens | None = Field(default=None, exclude_if=_unset)
    """Of `output`, the tokens spent reasoning, when the vendor says (OpenAI's
    `reasoning_tokens`, Gemini's `thoughtsTokenCount`); absent otherwise."""


# ---- messages -------------------------------------------------------------------------------


class UserMessage(_Record):
    """What the user said: a string or a list of text and image blocks."""

    role: Literal["user"] = "user"
    content: str | list[UserBlock]
    timestamp: UnixMs = Field(default_factory=now_ms)


class AssistantMessage(_Record):
    """What the model answered, and which api/provider/model answered it."""

    role: Literal["assistant"] = "assistant"
    content: list[AssistantBlock] = Field(default_factory=list)
    api: str
    provider: str
    model: str
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: UnixMs = Field(default_factory=now_ms)
    vendor_items: list[dict[str, Any]] | None = Field(default=None, exclude_if=_unset)
    """What the vendor sent that these types cannot hold (built-in tool items, citations, grounding),
    as JSON, as it came: kept for the record and the TUI, never sent back to a vendor."""


class ToolResultMessage(_Record):
    """The result of running one tool call, sent back to the model."""

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserBlock] = Field(default_factory=list)
    is_error: bool = False
    timestamp: UnixMs = Field(default_factory=now_ms)


Message = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


# ---- request --------------------------------------------------------------------------------


class Tool(_Record):
    """A tool the model may call: its name, description and JSON-schema `parameters`."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Context(_Record):
    """The conversation sent to the model: system prompt, messages and tools."""

    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=list)
    tools: list[Tool] | None = None


InputKind = Literal["text", "image"]


class Model(_Record):
    """Which model to call and through which `api` (the registry key) and `provider` (the vendor)."""

    id: str
    name: str = ""
    api: str
    provider: str
    base_url: str = ""
    reasoning: bool = False
    input: list[InputKind] = Field(default_factory=lambda: list[InputKind](["text"]))
    context_window: int = 128_000
    max_tokens: int = 4_096
    headers: dict[str, str] | None = None


class StreamOptions(BaseModel):
    """Per-call options. `signal` and `on_payload` are runtime-only: never dumped, never recorded."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    temperature: float | None = None
    max_tokens: int | None = None
    api_key: str | None = None
    headers: dict[str, str] | None = None
    session_id: str | None = None
    metadata: dict[str, Any] | None = None
    timeout: float | None = None
    """Seconds to wait for the vendor (connect and between chunks); None uses the provider default."""
    signal: Any = Field(default=None, exclude=True)
    """An `asyncio.Event`-like object; when set, the provider stops and ends with an `aborted` error."""
    on_payload: Callable[[dict[str, Any]], None] | None = Field(default=None, exclude=True)
    """Called with the vendor request body just before it is sent (for debugging)."""


class SimpleStreamOptions(StreamOptions):
    """`StreamOptions` plus a vendor-neutral reasoning effort."""

    reasoning: Literal["minimal", "low", "medium", "high"] | None = None


# ---- events ---------------------------------------------------------------------------------


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StartEvent(_Event):
    """The stream began; `partial` is the empty assistant message."""

    type: Literal["start"] = "start"
    partial: AssistantMessage


class TextStartEvent(_Event):
    type: Literal["text_start"] = "text_start"
    content_index: Count


class TextDeltaEvent(_Event):
    type: Literal["text_delta"] = "text_delta"
    content_index: Count
    delta: str


class TextEndEvent(_Event):
    type: Literal["text_end"] = "text_end"
    content_index: Count
    content: str
    refusal: bool | None = Field(default=None, exclude_if=_unset)
    signature: str | None = Field(default=None, exclude_if=_unset)


class ThinkingStartEvent(_Event):
    type: Literal["thinking_start"] = "thinking_start"
    content_index: Count


class ThinkingDeltaEvent(_Event):
    type: Literal["thinking_delta"] = "thinking_delta"
    content_index: Count
    delta: str


class ThinkingEndEvent(_Event):
    type: Literal["thinking_end"] = "thinking_end"
    content_index: Count
    content: str
    signature: str | None = None
    redacted: bool | None = Field(default=None, exclude_if=_unset)


class ToolCallStartEvent(_Event):
    type: Literal["toolcall_start"] = "toolcall_start"
    content_index: Count
    id: str
    name: str


class ToolCallDeltaEvent(_Event):
    """A piece of the tool call's JSON arguments, as streamed."""

    type: Literal["toolcall_delta"] = "toolcall_delta"
    content_index: Count
    delta: str


class ToolCallEndEvent(_Event):
    type: Literal["toolcall_end"] = "toolcall_end"
    content_index: Count
    tool_call: ToolCall


class DoneEvent(_Event):
    """The stream finished normally with the complete `message`."""

    type: Literal["done"] = "done"
    reason: Literal["stop", "length", "toolUse", "pauseTurn"]
    message: AssistantMessage


class ErrorEvent(_Event):
    """The stream failed or was aborted; `error` is the message so far with `error_message` set."""

    type: Literal["error"] = "error"
    reason: Literal["aborted", "error"]
    error: AssistantMessage


AssistantMessageEvent = Annotated[
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[AssistantMessageEvent] = TypeAdapter(AssistantMessageEvent)
"""Validates one event from a dict or JSON; `event.type` picks the class."""

EVENT_TYPES: frozenset[str] = frozenset(
    cls.model_fields["type"].default
    for cls in (
        StartEvent,
        TextStartEvent,
        TextDeltaEvent,
        TextEndEvent,
        ThinkingStartEvent,
        ThinkingDeltaEvent,
        ThinkingEndEvent,
        ToolCallStartEvent,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        DoneEvent,
        ErrorEvent,
    )
)
"""Every known `event.type`."""

TERMINAL_EVENT_TYPES: frozenset[str] = frozenset({"done", "error"})
