"""The `openai-completions` provider against a real HTTP server on loopback (no transport mocks)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.http.openai_completions import (
    OpenAICompletionsProvider,
    chat_completions_url,
)
from openprogram.providers.http.sse import SSEEvent, iter_sse_events
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
    Tool,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
    ToolResultMessage,
    UserMessage,
)
from tests.sse_server import SSEServer, json_response, split_pieces, sse_event, sse_response

API_KEY = "sk-test-secret-key-123456"
CONTEXT = Context(system_prompt="Be brief.", messages=[UserMessage(content="Say hello")])


def model_for(server: SSEServer, **fields: Any) -> Model:
    return Model(
        id="gpt-test",
        api="openai-completions",
        provider="openai",
        base_url=server.url + "/v1",
        **fields,
    )


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
) -> str:
    choices = (
        []
        if delta is None and finish is None
        else [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    )
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": choices,
    }
    if usage is not None:
        body["usage"] = usage
    return sse_event(body)


USAGE = {
    "prompt_tokens": 30,
    "completion_tokens": 7,
    "total_tokens": 37,
    "prompt_tokens_details": {"cached_tokens": 10},
}


def text_stream(pieces: list[str], finish: str = "stop") -> list[str]:
    return [
        chunk({"role": "assistant", "content": ""}),
        *(chunk({"content": piece}) for piece in pieces),
        chunk(finish=finish),
        chunk(usage=USAGE),
        "data: [DONE]\n\n",
    ]


async def collect(
    events: AsyncIterator[AssistantMessageEvent], timeout: float = 10.0
) -> list[AssistantMessageEvent]:
    async def drain() -> list[AssistantMessageEvent]:
        return [event async for event in events]

    return await asyncio.wait_for(drain(), timeout)


def final(events: list[AssistantMessageEvent]) -> AssistantMessage:
    last = events[-1]
    assert isinstance(last, DoneEvent | ErrorEvent), last
    return last.message if isinstance(last, DoneEvent) else last.error


def assert_done_is_the_fold(events: list[AssistantMessageEvent]) -> DoneEvent:
    assert isinstance(events[0], StartEvent)
    done = events[-1]
    assert isinstance(done, DoneEvent)
    folded = assemble_message(events[:-1])
    assert folded is not None
    assert done.message.content == folded.content
    assert assemble_message(events) == done.message
    return done


def error_of(events: list[AssistantMessageEvent]) -> ErrorEvent:
    assert isinstance(events[0], StartEvent)
    assert isinstance(events[-1], ErrorEvent), events[-1]
    return events[-1]


async def test_text_streamed_in_many_pieces_with_usage(sse_server: SSEServer) -> None:
    pieces = ["Hel", "lo", ", ", "wor", "ld", "! ", "How ", "are ", "you?"]
    # Network chunks of 7 bytes cut SSE lines and JSON anywhere; the parser must not care.
    sse_server.respond(sse_response(split_pieces("".join(text_stream(pieces)), 7)))
    provider = OpenAICompletionsProvider()
    events = await collect(
        provider.stream(model_for(sse_server), CONTEXT, StreamOptions(api_key=API_KEY))
    )

    assert [e.type for e in events] == [
        "start",
        "text_start",
        *["text_delta"] * len(pieces),
        "text_end",
        "done",
    ]
    start = events[0]
    assert isinstance(start, StartEvent)
    assert (start.partial.api, start.partial.provider, start.partial.model) == (
        "openai-completions",
        "openai",
        "gpt-test",
    )
    assert start.partial.content == []
    assert [e.delta for e in events if isinstance(e, TextDeltaEvent)] == pieces
    done = assert_done_is_the_fold(events)
    assert done.reason == "stop" and done.message.stop_reason == "stop"
    assert done.message.content == [TextContent(text="Hello, world! How are you?")]
    usage = done.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (20, 7, 10, 37)

    request = sse_server.requests[0]
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.headers["accept"] == "text/event-stream"
    body = request.json()
    assert body["model"] == "gpt-test"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Say hello"},
    ]


async def test_tool_call_arguments_split_across_many_chunks(sse_server: SSEServer) -> None:
    first = json.dumps({"city": "Paris", "units": "metric", "days": [1, 2, 3]})
    second = json.dumps({"query": 'café "quoted" ünïcode'})
    chunks = [chunk({"role": "assistant", "content": "Let me check."})]
    chunks.append(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "weather", "arguments": ""},
                    }
                ]
            }
        )
    )
    chunks += [
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
        for piece in split_pieces(first, 3)
    ]
    chunks.append(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "search", "arguments": second[:5]},
                    }
                ]
            }
        )
    )
    chunks += [
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": piece}}]})
        for piece in split_pieces(second[5:], 4)
    ]
    chunks += [chunk(finish="tool_calls"), chunk(usage=USAGE), "data: [DONE]\n\n"]
    sse_server.respond(sse_response(chunks))
    context = CONTEXT.model_copy(update={"tools": [Tool(name="weather"), Tool(name="search")]})

    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), context))

    done = assert_done_is_the_fold(events)
    assert done.reason == "toolUse" and done.message.stop_reason == "toolUse"
    assert done.message.content == [
        TextContent(text="Let me check."),
        ToolCall(id="call_a", name="weather", arguments=json.loads(first)),
        ToolCall(id="call_b", name="search", arguments=json.loads(second)),
    ]
    starts = [e for e in events if isinstance(e, ToolCallStartEvent)]
    assert [(s.content_index, s.id, s.name) for s in starts] == [
        (1, "call_a", "weather"),
        (2, "call_b", "search"),
    ]
    deltas = [e for e in events if isinstance(e, ToolCallDeltaEvent)]
    assert len(deltas) > 10
    assert "".join(d.delta for d in deltas if d.content_index == 1) == first
    assert "authorization" not in sse_server.requests[0].headers  # no key given, none sent


async def test_reasoning_deltas_become_thinking_and_effort_is_sent(sse_server: SSEServer) -> None:
    chunks = [
        chunk({"reasoning_content": "First, "}),
        chunk({"reasoning_content": "think."}),
        chunk({"content": "Answer."}),
        chunk(finish="stop", usage=USAGE),
    ]
    sse_server.respond(sse_response(chunks, framing="close"))  # no [DONE]: the close ends it
    options = SimpleStreamOptions(reasoning="high", max_tokens=500, temperature=0.2)
    events = await collect(
        OpenAICompletionsProvider().stream_simple(
            model_for(sse_server, reasoning=True), CONTEXT, options
        )
    )

    assert [e.type for e in events] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]
    done = assert_done_is_the_fold(events)
    assert done.message.content == [
        ThinkingContent(thinking="First, think."),
        TextContent(text="Answer."),
    ]
    body = sse_server.requests[0].json()
    assert body["reasoning_effort"] == "high"
    assert body["max_completion_tokens"] == 500 and "max_tokens" not in body
    assert body["temperature"] == 0.2


async def test_reasoning_effort_is_not_sent_to_a_non_reasoning_model(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["ok"])))
    options = SimpleStreamOptions(reasoning="low", max_tokens=50)
    await collect(
        OpenAICompletionsProvider().stream_simple(model_for(sse_server), CONTEXT, options)
    )
    body = sse_server.requests[0].json()
    assert "reasoning_effort" not in body and body["max_tokens"] == 50


@pytest.mark.parametrize(
    ("finish", "reason"), [("stop", "stop"), ("length", "length"), ("tool_calls", "toolUse")]
)
async def test_finish_reasons(sse_server: SSEServer, finish: str, reason: str) -> None:
    sse_server.respond(sse_response(text_stream(["partial"], finish=finish)))
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    done = assert_done_is_the_fold(events)
    assert done.reason == reason and done.message.stop_reason == reason


async def test_content_filter_is_an_error(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["some"], finish="content_filter")))
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    error = error_of(events)
    assert "content filter" in (error.error.error_message or "")
    assert error.error.content == [TextContent(text="some")]


async def test_http_429_reports_status_and_the_server_error_text(sse_server: SSEServer) -> None:
    sse_server.respond(
        json_response(
            429,
            {
                "error": {
                    "message": "Rate limit reached for gpt-test",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            },
        )
    )
    options = StreamOptions(api_key=API_KEY)
    events = await collect(
        OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT, options)
    )

    assert [e.type for e in events] == ["start", "error"]
    error = error_of(events)
    assert error.reason == "error" and error.error.stop_reason == "error"
    assert error.error.error_message == (
        f"openai-completions: HTTP 429 from {sse_server.url}/v1/chat/completions: "
        "Rate limit reached for gpt-test (rate_limit_exceeded)"
    )
    assert sse_server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"


async def test_http_500_and_a_key_echoed_by_the_server_is_removed(sse_server: SSEServer) -> None:
    sse_server.respond(
        json_response(
            500,
            {
                "error": {
                    "message": f"Internal error while checking key {API_KEY}\nplease retry",
                    "type": "server_error",
                }
            },
        )
    )
    events = await collect(
        OpenAICompletionsProvider().stream(
            model_for(sse_server), CONTEXT, StreamOptions(api_key=API_KEY)
        )
    )
    message = error_of(events).error.error_message or ""
    assert message.startswith("openai-completions: HTTP 500 from ")
    assert "Internal error while checking key" in message and "(server_error)" in message
    assert API_KEY not in message and "\n" not in message


async def test_plain_text_error_body(sse_server: SSEServer) -> None:
    sse_server.respond(
        sse_response(
            ["upstream <b>gateway</b>\n  timeout"],
            status=502,
            headers={"Content-Type": "text/html"},
            framing="length",
        )
    )
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    assert (error_of(events).error.error_message or "").endswith(
        "HTTP 502 from " + sse_server.url + "/v1/chat/completions: upstream <b>gateway</b> timeout"
    )


async def test_connection_dropped_mid_stream(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["one ", "two ", "three"]), drop_after=3))
    events = await collect(
        OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT), timeout=5
    )
    error = error_of(events)
    assert error.reason == "error"
    assert error.error.content == [TextContent(text="one two ")]  # the message so far
    message = error.error.error_message or ""
    assert message.startswith(
        f"openai-completions: connection to {sse_server.url}/v1/chat/completions closed"
    )
    assert "Traceback" not in message and "\n" not in message


async def test_stream_closed_before_a_finish_reason(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["one"])[:2], framing="close"))
    events = await collect(
        OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT), timeout=5
    )
    assert "ended before a finish_reason" in (error_of(events).error.error_message or "")


async def test_done_without_a_finish_reason_ends_normally(sse_server: SSEServer) -> None:
    """Some compatible servers end with [DONE] and never send finish_reason: what came is whole."""
    call = {"index": 0, "id": "call_1", "function": {"name": "echo", "arguments": '{"text":"hi"}'}}
    chunks = [chunk({"tool_calls": [call]}), chunk(usage=USAGE), sse_event("[DONE]")]
    sse_server.respond(sse_response(chunks))
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    done = assert_done_is_the_fold(events)
    assert done.reason == "toolUse"
    assert done.message.content == [ToolCall(id="call_1", name="echo", arguments={"text": "hi"})]


async def test_a_refusal_reaches_the_caller_marked_as_one(sse_server: SSEServer) -> None:
    chunks = [
        chunk({"role": "assistant", "content": None, "refusal": ""}),
        chunk({"refusal": "I'm sorry, "}),
        chunk({"refusal": "I can't help with that."}),
        chunk(finish="stop"),
        sse_event("[DONE]"),
    ]
    sse_server.respond(sse_response(chunks))
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    done = assert_done_is_the_fold(events)
    assert done.message.content == [
        TextContent(text="I'm sorry, I can't help with that.", refusal=True)
    ]
    assert done.message.content[0].model_dump()["refusal"] is True
    assert "refusal" not in TextContent(text="an answer").model_dump()  # old files stay equal


async def test_malformed_data_line(sse_server: SSEServer) -> None:
    sse_server.respond(
        sse_response([chunk({"content": "ok"}), "data: {not json\n\n", *text_stream(["x"])])
    )
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    error = error_of(events)
    message = error.error.error_message or ""
    assert message.startswith("openai-completions: malformed SSE data from ")
    assert "invalid JSON" in message and "'{not json'" in message
    assert error.error.content == [TextContent(text="ok")]


async def test_error_chunk_in_the_stream(sse_server: SSEServer) -> None:
    sse_server.respond(
        sse_response(
            [
                chunk({"content": "so far"}),
                sse_event(
                    {"error": {"message": "The server had an error", "type": "server_error"}}
                ),
            ]
        )
    )
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    assert (error_of(events).error.error_message or "").endswith(
        "error in the stream from " + sse_server.url + "/v1/chat/completions: "
        "The server had an error (server_error)"
    )


async def test_request_maps_the_whole_context(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["done"])))
    context = Context(
        system_prompt="sys",
        messages=[
            UserMessage(
                content=[TextContent(text="look"), ImageContent(data="AAAA", mime_type="image/png")]
            ),
            AssistantMessage(
                api="openai-completions",
                provider="openai",
                model="gpt-test",
                content=[
                    ThinkingContent(thinking="hmm"),
                    TextContent(text="Checking."),
                    ToolCall(id="call_1", name="lookup", arguments={"q": "x"}),
                ],
                stop_reason="toolUse",
            ),
            ToolResultMessage(
                tool_call_id="call_1",
                tool_name="lookup",
                content=[
                    TextContent(text="found"),
                    ImageContent(data="BBBB", mime_type="image/jpeg"),
                ],
            ),
            UserMessage(content="thanks"),
        ],
        tools=[
            Tool(
                name="lookup",
                description="Look it up.",
                parameters={"type": "object", "properties": {"q": {"type": "string"}}},
            )
        ],
    )
    payloads: list[dict[str, Any]] = []
    options = StreamOptions(
        api_key=API_KEY,
        temperature=0.5,
        max_tokens=99,
        headers={"x-call": "1"},
        on_payload=payloads.append,
    )
    model = model_for(sse_server, headers={"x-model": "m", "x-call": "overridden"})
    await collect(OpenAICompletionsProvider().stream(model, context, options))

    request = sse_server.requests[0]
    assert payloads == [request.json()]
    assert request.headers["x-model"] == "m" and request.headers["x-call"] == "1"
    body = request.json()
    assert body["messages"] == [
        {"role": "system", "content": "sys"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"q": "x"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "found"},
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,BBBB"}},
            ],
        },
        {"role": "user", "content": "thanks"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": "Look it up.",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            },
        }
    ]
    assert body["temperature"] == 0.5 and body["max_tokens"] == 99


async def test_signal_set_mid_stream_aborts_a_stalled_read(sse_server: SSEServer) -> None:
    # Ten seconds between chunks: only the signal can end this stream quickly.
    sse_server.respond(sse_response(text_stream(["a", "b", "c"]), delay=10.0))
    signal = asyncio.Event()
    events: list[AssistantMessageEvent] = []

    async def consume() -> None:
        async for event in OpenAICompletionsProvider().stream(
            model_for(sse_server), CONTEXT, StreamOptions(signal=signal)
        ):
            events.append(event)
            if event.type == "start":
                asyncio.get_running_loop().call_later(0.2, signal.set)

    await asyncio.wait_for(consume(), 3)
    error = error_of(events)
    assert error.reason == "aborted" and error.error.stop_reason == "aborted"
    assert error.error.error_message == "openai-completions: request aborted by the caller"
    assert await asyncio.to_thread(sse_server.wait_for_hangup, 3)  # the connection was closed


class Flag:
    """A signal with only `is_set()`, checked between chunks."""

    def __init__(self) -> None:
        self.value = False

    def is_set(self) -> bool:
        return self.value


async def test_signal_without_wait_is_checked_between_chunks(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["a", "b", "c", "d"]), delay=0.05))
    flag = Flag()
    events: list[AssistantMessageEvent] = []
    async for event in OpenAICompletionsProvider().stream(
        model_for(sse_server), CONTEXT, StreamOptions(signal=flag)
    ):
        events.append(event)
        if isinstance(event, TextDeltaEvent):
            flag.value = True
    error = error_of(events)
    assert error.reason == "aborted"
    assert error.error.content == [TextContent(text="a")]


async def test_signal_set_before_the_call_sends_nothing(sse_server: SSEServer) -> None:
    signal = asyncio.Event()
    signal.set()
    events = await collect(
        OpenAICompletionsProvider().stream(
            model_for(sse_server), CONTEXT, StreamOptions(signal=signal)
        )
    )
    assert [e.type for e in events] == ["start", "error"]
    assert error_of(events).reason == "aborted"
    assert sse_server.requests == []


async def test_read_timeout(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["a", "b"]), delay=5.0))
    events = await collect(
        OpenAICompletionsProvider(timeout=30).stream(
            model_for(sse_server), CONTEXT, StreamOptions(timeout=0.3)
        ),
        timeout=3,
    )
    message = error_of(events).error.error_message or ""
    assert message.startswith("openai-completions: timed out after 0.3s waiting for ")


async def test_connection_refused() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = Model(
        id="m", api="openai-completions", provider="openai", base_url=f"http://127.0.0.1:{port}/v1"
    )
    events = await collect(
        OpenAICompletionsProvider().stream(model, CONTEXT, StreamOptions(api_key=API_KEY))
    )
    message = error_of(events).error.error_message or ""
    assert message.startswith(
        f"openai-completions: could not connect to http://127.0.0.1:{port}/v1/chat"
    )
    assert API_KEY not in message


async def test_a_shared_client_is_used_and_left_open(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response(text_stream(["one"])), sse_response(text_stream(["two"])))
    async with httpx.AsyncClient() as client:
        provider = OpenAICompletionsProvider(client=client)
        first = await collect(provider.stream(model_for(sse_server), CONTEXT))
        second = await collect(provider.stream(model_for(sse_server), CONTEXT))
        assert not client.is_closed
    assert final(first).content == [TextContent(text="one")]
    assert final(second).content == [TextContent(text="two")]


def test_no_client_is_created_before_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an httpx client was created")

    monkeypatch.setattr(httpx.AsyncClient, "__init__", refuse)
    provider = OpenAICompletionsProvider()
    assert provider.requires_credentials is True
    assert chat_completions_url(Model(id="m", api="openai-completions", provider="openai")) == (
        "https://api.openai.com/v1/chat/completions"
    )


async def test_through_the_registry_with_the_key_from_the_environment(
    sse_server: SSEServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    sse_server.respond(sse_response(text_stream(["via ", "registry"])))
    message = await asyncio.wait_for(complete(model_for(sse_server), CONTEXT), 10)
    assert message.content == [TextContent(text="via registry")]
    assert sse_server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"


async def test_a_json_body_where_a_stream_was_expected(sse_server: SSEServer) -> None:
    sse_server.respond(
        json_response(200, {"error": {"message": "proxy says no", "code": "blocked"}})
    )
    events = await collect(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    assert (error_of(events).error.error_message or "") == (
        f"openai-completions: expected an event stream from {sse_server.url}/v1/chat/completions: "
        "proxy says no (blocked)"
    )


async def test_an_unusable_base_url_is_an_error_event() -> None:
    model = Model(id="m", api="openai-completions", provider="openai", base_url="nowhere")
    events = await collect(OpenAICompletionsProvider().stream(model, CONTEXT))
    message = error_of(events).error.error_message or ""
    assert message.startswith("openai-completions: ") and "nowhere/chat/completions" in message


async def test_sse_parser_follows_the_event_stream_rules() -> None:
    async def lines() -> AsyncIterator[str]:
        for line in [
            ": comment",
            "event: first",
            "id: 7",
            "data: line one",
            "data:line two",
            "retry: 100",
            "",
            "",  # a second blank line dispatches nothing
            "event: no-data",
            "",
            "data: {}\r",
            "",
            "data: cut off at the end",
        ]:
            yield line

    events = [event async for event in iter_sse_events(lines())]
    assert events == [
        SSEEvent(event="first", data="line one\nline two", id="7"),
        SSEEvent(event="message", data="{}", id="7"),
    ]
