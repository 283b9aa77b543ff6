"""The `openai-responses` provider against a real HTTP server on loopback: request mapping, the
event shapes the real streams do not cover, and errors."""

from __future__ import annotations

import json
from typing import Any

from openprogram.providers.http.openai_responses import (
    OpenAIResponsesProvider,
    request_headers,
    responses_url,
)
from openprogram.providers.stream import drain
from openprogram.providers.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.sse_server import SSEServer, sse_event, sse_response

API_KEY = "sk-test-responses-key-123456"
COMPLETED = sse_event(
    {
        "type": "response.completed",
        "response": {
            "usage": {
                "input_tokens": 100,
                "input_tokens_details": {"cached_tokens": 60},
                "output_tokens": 30,
                "output_tokens_details": {"reasoning_tokens": 20},
                "total_tokens": 130,
            }
        },
    }
)


def model_for(server: SSEServer, **fields: Any) -> Model:
    fields.setdefault("base_url", server.url + "/v1")
    return Model(id="gpt-test", api="openai-responses", provider="openai", **fields)


async def call(server: SSEServer, model: Model, context: Context | None = None) -> AssistantMessage:
    context = context or Context(messages=[UserMessage(content="hi")])
    return await drain(
        OpenAIResponsesProvider().stream(model, context, StreamOptions(api_key=API_KEY))
    )


def text(delta: str, index: int = 0) -> str:
    return sse_event({"type": "response.output_text.delta", "output_index": index, "delta": delta})


async def test_usage_counts_cached_input_apart_and_reasoning_as_output(
    sse_server: SSEServer,
) -> None:
    sse_server.respond(sse_response([text("Hel"), text("lo"), COMPLETED]))
    message = await call(sse_server, model_for(sse_server))
    assert message.content == [TextContent(text="Hello")]
    assert message.stop_reason == "stop"
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (40, 60, 30)
    assert message.usage.total_tokens == 130
    assert sse_server.requests[0].path == "/v1/responses"
    assert sse_server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"


async def test_a_standalone_error_event_is_read_in_both_shapes(sse_server: SSEServer) -> None:
    nested = {
        "type": "error",
        "error": {"message": "Rate limit hit", "code": "rate_limit_exceeded"},
    }
    flat = {"type": "error", "message": "Server overloaded", "code": "server_error"}
    sse_server.respond(
        sse_response([text("a"), sse_event(nested, "error")]), sse_response([sse_event(flat)])
    )
    first = await call(sse_server, model_for(sse_server))
    second = await call(sse_server, model_for(sse_server))
    assert first.stop_reason == "error" and first.content == [TextContent(text="a")]
    assert "Rate limit hit (rate_limit_exceeded)" in (first.error_message or "")
    assert "Server overloaded (server_error)" in (second.error_message or "")


async def test_a_stream_cut_before_the_response_completes_is_an_error(
    sse_server: SSEServer,
) -> None:
    sse_server.respond(sse_response([text("partial")]))
    message = await call(sse_server, model_for(sse_server))
    assert message.stop_reason == "error"
    assert "ended before response.completed" in (message.error_message or "")
    assert message.content == [TextContent(text="partial")]


async def test_incomplete_for_the_content_filter_is_an_error(sse_server: SSEServer) -> None:
    incomplete = {
        "type": "response.incomplete",
        "response": {"incomplete_details": {"reason": "content_filter"}, "usage": None},
    }
    sse_server.respond(sse_response([text("x"), sse_event(incomplete)]))
    message = await call(sse_server, model_for(sse_server))
    assert message.stop_reason == "error"
    assert "content_filter" in (message.error_message or "")


def test_azure_takes_the_key_in_an_api_key_header() -> None:
    azure = Model(
        id="gpt-test",
        api="openai-responses",
        provider="azure",
        base_url="https://res.openai.azure.com/openai/v1",
        headers={"x-test": "1"},
    )
    headers = request_headers(azure, StreamOptions(api_key=API_KEY))
    assert headers["api-key"] == API_KEY and "authorization" not in headers
    assert headers["x-test"] == "1"
    assert responses_url(azure) == "https://res.openai.azure.com/openai/v1/responses"


async def test_request_maps_the_whole_context(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response([text("ok"), COMPLETED]))
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENC"}
    stored_only = {"type": "reasoning", "id": "rs_2", "summary": []}  # no content: cannot go back
    context = Context(
        system_prompt="Be brief.",
        tools=[Tool(name="look", description="Look.", parameters={"type": "object"})],
        messages=[
            UserMessage(
                content=[TextContent(text="see"), ImageContent(data="QUJD", mime_type="image/png")]
            ),
            AssistantMessage(
                api="openai-responses",
                provider="openai",
                model="gpt-test",
                content=[
                    ThinkingContent(thinking="hmm", signature=json.dumps(reasoning)),
                    ThinkingContent(thinking="other", signature=json.dumps(stored_only)),
                    ThinkingContent(thinking="anthropic", signature="EqQBCkgIAR"),
                    TextContent(text="Looking."),
                    ToolCall(id="call_1", name="look", arguments={"at": "sky"}),
                ],
            ),
            ToolResultMessage(
                tool_call_id="call_1",
                tool_name="look",
                content=[ImageContent(data="REVG", mime_type="image/jpeg")],
            ),
        ],
    )
    options = SimpleStreamOptions(api_key=API_KEY, reasoning="high", max_tokens=99, temperature=0.5)
    model = model_for(sse_server, reasoning=True)
    await drain(OpenAIResponsesProvider().stream_simple(model, context, options))
    body = sse_server.requests[0].json()
    assert body == {
        "model": "gpt-test",
        "stream": True,
        "store": False,
        "temperature": 0.5,
        "max_output_tokens": 99,
        "include": ["reasoning.encrypted_content"],
        "reasoning": {"effort": "high", "summary": "auto"},
        "tool_choice": "auto",
        "tools": [
            {
                "type": "function",
                "name": "look",
                "description": "Look.",
                "parameters": {"type": "object"},
            }
        ],
        "input": [
            {"role": "developer", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "see"},
                    {"type": "input_image", "image_url": "data:image/png;base64,QUJD"},
                ],
            },
            reasoning,
            {"role": "assistant", "content": "Looking."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "look",
                "arguments": '{"at": "sky"}',
            },
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": "(see the attached image)",
            },
            {
                "role": "user",
                "content": [{"type": "input_image", "image_url": "data:image/jpeg;base64,REVG"}],
            },
        ],
    }


async def test_a_non_reasoning_model_gets_a_system_message_and_no_reasoning_fields(
    sse_server: SSEServer,
) -> None:
    sse_server.respond(sse_response([text("ok"), COMPLETED]))
    context = Context(system_prompt="Be brief.", messages=[UserMessage(content="hi")])
    options = SimpleStreamOptions(api_key=API_KEY, reasoning="low")
    await drain(OpenAIResponsesProvider().stream_simple(model_for(sse_server), context, options))
    body = sse_server.requests[0].json()
    assert body["input"][0] == {"role": "system", "content": "Be brief."}
    assert "reasoning" not in body and "include" not in body


async def test_interleaved_parallel_calls_keep_their_own_arguments(sse_server: SSEServer) -> None:
    def added(index: int, call_id: str) -> str:
        item = {"type": "function_call", "call_id": call_id, "name": "f", "arguments": ""}
        return sse_event(
            {"type": "response.output_item.added", "output_index": index, "item": item}
        )

    def args(index: int, delta: str) -> str:
        event = {"type": "response.function_call_arguments.delta", "output_index": index}
        return sse_event({**event, "delta": delta})

    def done(index: int) -> str:
        item = {"type": "function_call"}
        return sse_event({"type": "response.output_item.done", "output_index": index, "item": item})

    sse_server.respond(
        sse_response(
            [
                added(0, "c0"),
                added(1, "c1"),
                args(1, '{"n":'),
                args(0, '{"n":'),
                args(0, "0}"),
                args(1, "1}"),
                done(1),
                done(0),
                COMPLETED,
            ]
        )
    )
    message = await call(sse_server, model_for(sse_server))
    assert message.stop_reason == "toolUse"
    assert message.content == [
        ToolCall(id="c0", name="f", arguments={"n": 0}),
        ToolCall(id="c1", name="f", arguments={"n": 1}),
    ]


async def test_a_call_announced_only_when_done_is_still_a_call(sse_server: SSEServer) -> None:
    item = {"type": "function_call", "call_id": "c7", "name": "f", "arguments": '{"n":7}'}
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    sse_server.respond(sse_response([sse_event(done), COMPLETED]))
    message = await call(sse_server, model_for(sse_server))
    assert message.stop_reason == "toolUse"
    assert message.content == [ToolCall(id="c7", name="f", arguments={"n": 7})]
