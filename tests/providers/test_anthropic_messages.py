"""The `anthropic-messages` provider against a real HTTP server on loopback (no transport mocks)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.http.anthropic_messages import (
    AnthropicMessagesProvider,
    messages_url,
    request_messages,
)
from openprogram.providers.stream import complete
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    Model,
    SimpleStreamOptions,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    ThinkingContent,
    ThinkingEndEvent,
    Tool,
    ToolCall,
    ToolCallDeltaEvent,
    ToolResultMessage,
    UserMessage,
)
from tests.sse_server import SSEServer, json_response, split_pieces, sse_event, sse_response

API_KEY = "sk-ant-test-secret-key-987654"
CONTEXT = Context(system_prompt="Be brief.", messages=[UserMessage(content="Say hello")])


def model_for(server: SSEServer, **fields: Any) -> Model:
    return Model(
        id="claude-test",
        api="anthropic-messages",
        provider="anthropic",
        base_url=server.url,
        max_tokens=2048,
        **fields,
    )


def event(data: dict[str, Any]) -> str:
    return sse_event(data, event=data["type"])


def message_start(input_tokens: int = 25) -> str:
    return event(
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "claude-test",
                "stop_reason": None,
                "usage": {
                    "input_tokens": input_tokens,
                    "output_tokens": 1,
                    "cache_read_input_tokens": 100,
                    "cache_creation_input_tokens": 7,
                },
            },
        }
    )


def block_start(index: int, block: dict[str, Any]) -> str:
    return event({"type": "content_block_start", "index": index, "content_block": block})


def block_delta(index: int, delta: dict[str, Any]) -> str:
    return event({"type": "content_block_delta", "index": index, "delta": delta})


def block_stop(index: int) -> str:
    return event({"type": "content_block_stop", "index": index})


def message_end(stop_reason: str = "end_turn", output_tokens: int = 15) -> list[str]:
    return [
        event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            }
        ),
        event({"type": "message_stop"}),
    ]


def text_stream(pieces: list[str], stop_reason: str = "end_turn") -> list[str]:
    return [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        *(block_delta(0, {"type": "text_delta", "text": p}) for p in pieces),
        block_stop(0),
        *message_end(stop_reason),
    ]


async def collect(
    events: AsyncIterator[AssistantMessageEvent], timeout: float = 10.0
) -> list[AssistantMessageEvent]:
    async def drain() -> list[AssistantMessageEvent]:
        return [e async for e in events]

    return await asyncio.wait_for(drain(), timeout)


def assert_done_is_the_fold(events: list[AssistantMessageEvent]) -> DoneEvent:
    assert isinstance(events[0], StartEvent)
    done = events[-1]
    assert isinstance(done, DoneEvent), done
    folded = assemble_message(events[:-1])
    assert folded is not None and done.message.content == folded.content
    assert assemble_message(events) == done.message
    return done


def error_of(events: list[AssistantMessageEvent]) -> ErrorEvent:
    assert isinstance(events[0], StartEvent)
    assert isinstance(events[-1], ErrorEvent), events[-1]
    return events[-1]


async def test_thinking_and_text_streamed_with_usage(sse_server: SSEServer) -> None:
    chunks = [
        ": a comment line the parser ignores\n\n",
        message_start(),
        event({"type": "ping"}),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        block_delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
        block_delta(0, {"type": "thinking_delta", "thinking": "think."}),
        block_delta(0, {"type": "signature_delta", "signature": "sig-part-1"}),
        block_delta(0, {"type": "signature_delta", "signature": "-part-2"}),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        *(block_delta(1, {"type": "text_delta", "text": p}) for p in ["Hel", "lo", " there", "!"]),
        block_stop(1),
        *message_end("end_turn", output_tokens=42),
    ]
    sse_server.respond(sse_response(split_pieces("".join(chunks), 11)))
    options = StreamOptions(api_key=API_KEY)
    events = await collect(
        AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT, options)
    )

    assert [e.type for e in events] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        *["text_delta"] * 4,
        "text_end",
        "done",
    ]
    ends = [e for e in events if isinstance(e, ThinkingEndEvent)]
    assert ends[0].signature == "sig-part-1-part-2"
    done = assert_done_is_the_fold(events)
    assert done.reason == "stop"
    assert done.message.content == [
        ThinkingContent(thinking="Let me think.", signature="sig-part-1-part-2"),
        TextContent(text="Hello there!"),
    ]
    assert (done.message.api, done.message.provider, done.message.model) == (
        "anthropic-messages",
        "anthropic",
        "claude-test",
    )
    usage = done.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (25, 42, 100, 7)
    assert usage.total_tokens == 25 + 42 + 100 + 7

    request = sse_server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == API_KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    body = request.json()
    assert body["stream"] is True and body["model"] == "claude-test"
    assert body["max_tokens"] == 2048  # the model's, as options gave none
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "Say hello"}]


async def test_tool_use_with_input_json_in_many_pieces(sse_server: SSEServer) -> None:
    arguments = {"city": "Zürich", "days": [1, 2], "detail": {"hourly": True}}
    raw = json.dumps(arguments)
    chunks = [
        message_start(),
        block_start(0, {"type": "text", "text": "Checking"}),
        block_delta(0, {"type": "text_delta", "text": " now."}),
        block_stop(0),
        block_start(1, {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}),
        *(
            block_delta(1, {"type": "input_json_delta", "partial_json": p})
            for p in split_pieces(raw, 4)
        ),
        block_stop(1),
        block_start(2, {"type": "tool_use", "id": "toolu_2", "name": "noargs", "input": {}}),
        block_delta(2, {"type": "input_json_delta", "partial_json": ""}),
        block_stop(2),
        *message_end("tool_use"),
    ]
    sse_server.respond(sse_response(chunks))
    context = CONTEXT.model_copy(update={"tools": [Tool(name="weather"), Tool(name="noargs")]})
    events = await collect(AnthropicMessagesProvider().stream(model_for(sse_server), context))

    done = assert_done_is_the_fold(events)
    assert done.reason == "toolUse" and done.message.stop_reason == "toolUse"
    assert done.message.content == [
        TextContent(text="Checking now."),
        ToolCall(id="toolu_1", name="weather", arguments=arguments),
        ToolCall(id="toolu_2", name="noargs", arguments={}),
    ]
    deltas = [e for e in events if isinstance(e, ToolCallDeltaEvent)]
    assert "".join(d.delta for d in deltas) == raw and len(deltas) > 10


@pytest.mark.parametrize(
    ("stop_reason", "reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "toolUse"),
    ],
)
async def test_stop_reasons(sse_server: SSEServer, stop_reason: str, reason: str) -> None:
    sse_server.respond(sse_response(text_stream(["x"], stop_reason)))
    events = await collect(AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT))
    done = assert_done_is_the_fold(events)
    assert done.reason == reason and done.message.stop_reason == reason


async def test_unsupported_blocks_are_skipped_and_redacted_thinking_is_kept(
    sse_server: SSEServer,
) -> None:
    chunks = [
        message_start(),
        block_start(0, {"type": "redacted_thinking", "data": "opaque"}),
        block_stop(0),
        block_start(1, {"type": "server_tool_use", "id": "srv_1", "name": "web_search"}),
        block_stop(1),
        block_start(2, {"type": "text", "text": ""}),
        block_delta(2, {"type": "text_delta", "text": "visible"}),
        block_stop(2),
        *message_end(),
    ]
    sse_server.respond(sse_response(chunks))
    events = await collect(AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT))
    done = assert_done_is_the_fold(events)
    assert done.message.content == [
        ThinkingContent(thinking="", signature="opaque", redacted=True),
        TextContent(text="visible"),
    ]
    assert {e.content_index for e in events if isinstance(e, TextDeltaEvent)} == {1}


def test_redacted_thinking_is_sent_back_as_it_came() -> None:
    """Anthropic needs encrypted reasoning back, unchanged, to continue a thinking + tool loop."""
    answer = AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude",
        content=[
            ThinkingContent(thinking="", signature="EncryptedData==", redacted=True),
            ToolCall(id="toolu_1", name="echo", arguments={"text": "hi"}),
        ],
        stop_reason="toolUse",
    )
    context = Context(messages=[UserMessage(content="go"), answer])
    sent = request_messages(context)[1]["content"]
    assert sent[0] == {"type": "redacted_thinking", "data": "EncryptedData=="}
    assert sent[1]["type"] == "tool_use"


async def test_pause_turn_is_a_stop_reason_of_its_own(sse_server: SSEServer) -> None:
    chunks = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        block_delta(0, {"type": "text_delta", "text": "working"}),
        block_stop(0),
        *message_end("pause_turn"),
    ]
    sse_server.respond(sse_response(chunks))
    events = await collect(AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT))
    done = assert_done_is_the_fold(events)
    assert done.reason == "pauseTurn" and done.message.stop_reason == "pauseTurn"


@pytest.mark.parametrize(
    ("status", "kind", "text"),
    [
        (429, "rate_limit_error", "Number of requests has exceeded your rate limit"),
        (500, "api_error", "Internal server error"),
        (529, "overloaded_error", "Overloaded"),
    ],
)
async def test_http_errors_report_status_and_server_text(
    sse_server: SSEServer, status: int, kind: str, text: str
) -> None:
    sse_server.respond(
        json_response(status, {"type": "error", "error": {"type": kind, "message": text}})
    )
    options = StreamOptions(api_key=API_KEY)
    events = await collect(
        AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT, options)
    )
    assert [e.type for e in events] == ["start", "error"]
    error = error_of(events)
    assert error.reason == "error" and error.error.stop_reason == "error"
    assert error.error.error_message == (
        f"anthropic-messages: HTTP {status} from {sse_server.url}/v1/messages: {text} ({kind})"
    )
    assert sse_server.requests[0].headers["x-api-key"] == API_KEY


async def test_api_key_never_appears_in_the_error(sse_server: SSEServer) -> None:
    sse_server.respond(
        json_response(
            401,
            {
                "type": "error",
                "error": {
                    "type": "authentication_error",
                    "message": f"invalid x-api-key {API_KEY}",
                },
            },
        )
    )
    events = await collect(
        AnthropicMessagesProvider().stream(
            model_for(sse_server), CONTEXT, StreamOptions(api_key=API_KEY)
        )
    )
    message = error_of(events).error.error_message or ""
    assert "HTTP 401" in message and "invalid x-api-key" in message
    assert API_KEY not in message


async def test_error_event_mid_stream(sse_server: SSEServer) -> None:
    chunks = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        block_delta(0, {"type": "text_delta", "text": "partial"}),
        event({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]
    sse_server.respond(sse_response(chunks))
    events = await collect(AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT))
    error = error_of(events)
    assert error.error.error_message == (
        f"anthropic-messages: error in the stream from {sse_server.url}/v1/messages: "
        "Overloaded (overloaded_error)"
    )
    assert error.error.content == [TextContent(text="partial")]
    assert error.error.usage.input == 25  # the usage so far is kept


async def test_connection_dropped_mid_stream(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["a", "b", "c"]), drop_after=4, delay=0.01))
    # With a waitable signal, reads run in their own tasks; a transport error must still surface.
    options = StreamOptions(signal=asyncio.Event())
    events = await collect(
        AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT, options), timeout=5
    )
    error = error_of(events)
    assert error.error.content == [TextContent(text="ab")]
    assert (error.error.error_message or "").startswith(
        f"anthropic-messages: connection to {sse_server.url}/v1/messages closed before the response finished"
    )


async def test_stream_closed_before_message_stop(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["a"])[:-1], framing="close"))
    events = await collect(
        AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT), timeout=5
    )
    assert "ended before message_stop" in (error_of(events).error.error_message or "")


async def test_malformed_data_line(sse_server: SSEServer) -> None:
    chunks = text_stream(["a"])
    chunks.insert(
        2, 'event: content_block_delta\ndata: {"type": "content_block_delta", "index"\n\n'
    )
    sse_server.respond(sse_response(chunks))
    events = await collect(AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT))
    message = error_of(events).error.error_message or ""
    assert message.startswith(
        f"anthropic-messages: malformed SSE data from {sse_server.url}/v1/messages"
    )
    assert "invalid JSON" in message


async def test_request_maps_the_whole_context(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["ok"])))
    context = Context(
        system_prompt="sys",
        messages=[
            UserMessage(
                content=[TextContent(text="see"), ImageContent(data="AAAA", mime_type="image/png")]
            ),
            AssistantMessage(
                api="anthropic-messages",
                provider="anthropic",
                model="claude-test",
                content=[
                    ThinkingContent(thinking="plan", signature="sig"),
                    ThinkingContent(thinking="unsigned, dropped"),
                    TextContent(text=""),
                    TextContent(text="Two lookups."),
                    ToolCall(id="toolu_1", name="lookup", arguments={"q": "a"}),
                    ToolCall(id="toolu_2", name="lookup", arguments={"q": "b"}),
                ],
                stop_reason="toolUse",
            ),
            ToolResultMessage(
                tool_call_id="toolu_1", tool_name="lookup", content=[TextContent(text="A")]
            ),
            ToolResultMessage(
                tool_call_id="toolu_2",
                tool_name="lookup",
                is_error=True,
                content=[TextContent(text="failed")],
            ),
            UserMessage(content="thanks"),
        ],
        tools=[
            Tool(
                name="lookup",
                description="Look up.",
                parameters={"type": "object", "properties": {}},
            )
        ],
    )
    payloads: list[dict[str, Any]] = []
    options = SimpleStreamOptions(
        api_key=API_KEY,
        max_tokens=4000,
        temperature=1.0,
        reasoning="medium",
        headers={"anthropic-beta": "x"},
        on_payload=payloads.append,
    )
    await collect(
        AnthropicMessagesProvider().stream_simple(
            model_for(sse_server, reasoning=True), context, options
        )
    )

    request = sse_server.requests[0]
    body = request.json()
    assert payloads == [body]
    assert request.headers["anthropic-beta"] == "x"
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "plan", "signature": "sig"},
                {"type": "text", "text": "Two lookups."},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "a"}},
                {"type": "tool_use", "id": "toolu_2", "name": "lookup", "input": {"q": "b"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "is_error": False,
                    "content": [{"type": "text", "text": "A"}],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "is_error": True,
                    "content": [{"type": "text", "text": "failed"}],
                },
            ],
        },
        {"role": "user", "content": "thanks"},
    ]
    assert body["tools"] == [
        {
            "name": "lookup",
            "description": "Look up.",
            "input_schema": {"type": "object", "properties": {}},
        }
    ]
    assert body["max_tokens"] == 4000 and body["temperature"] == 1.0
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2976}  # kept below max_tokens


async def test_reasoning_is_ignored_for_a_non_reasoning_model(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["ok"])))
    options = SimpleStreamOptions(reasoning="high")
    await collect(
        AnthropicMessagesProvider().stream_simple(model_for(sse_server), CONTEXT, options)
    )
    assert "thinking" not in sse_server.requests[0].json()


async def test_signal_aborts_a_stalled_stream(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["a", "b"]), delay=10.0))
    signal = asyncio.Event()
    events: list[AssistantMessageEvent] = []

    async def consume() -> None:
        async for e in AnthropicMessagesProvider().stream(
            model_for(sse_server), CONTEXT, StreamOptions(signal=signal)
        ):
            events.append(e)
            if e.type == "start":
                asyncio.get_running_loop().call_later(0.2, signal.set)

    await asyncio.wait_for(consume(), 3)
    error = error_of(events)
    assert error.reason == "aborted" and error.error.stop_reason == "aborted"
    assert error.error.error_message == "anthropic-messages: request aborted by the caller"
    assert await asyncio.to_thread(sse_server.wait_for_hangup, 3)  # the connection was closed


async def test_an_abandoned_stream_closes_without_hanging(sse_server: SSEServer) -> None:
    chunks = text_stream(["a", "b"])
    sse_server.respond(sse_response(["".join(chunks[:3]), *chunks[3:]], delay=10.0))
    stream = AnthropicMessagesProvider().stream(model_for(sse_server), CONTEXT)

    async def first_two() -> None:
        async for e in stream:
            if e.type == "text_delta":
                break
        await stream.aclose()  # type: ignore[attr-defined]

    await asyncio.wait_for(first_two(), 3)
    assert await asyncio.to_thread(sse_server.wait_for_hangup, 3)


def test_default_and_v1_base_urls() -> None:
    model = Model(id="m", api="anthropic-messages", provider="anthropic")
    assert messages_url(model) == "https://api.anthropic.com/v1/messages"
    v1 = model.model_copy(update={"base_url": "https://proxy.example/v1/"})
    assert messages_url(v1) == "https://proxy.example/v1/messages"
    assert AnthropicMessagesProvider.requires_credentials is True


async def test_through_the_registry_with_the_key_from_the_environment(
    sse_server: SSEServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    sse_server.respond(sse_response(text_stream(["via ", "registry"])))
    message = await asyncio.wait_for(complete(model_for(sse_server), CONTEXT), 10)
    assert message.content == [TextContent(text="via registry")]
    assert sse_server.requests[0].headers["x-api-key"] == API_KEY
