"""The `google-generative-ai` provider against a real HTTP server on loopback: request mapping, the
chunk shapes the real streams do not cover, and errors."""

from __future__ import annotations

from typing import Any

import pytest

from openprogram.providers.http.google_generative_ai import (
    GoogleGenerativeAIProvider,
    generate_url,
    set_json_path,
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

API_KEY = "AIzaSy-test-gemini-key-123456"


def model_for(server: SSEServer, **fields: Any) -> Model:
    return Model(
        id="gemini-test",
        api="google-generative-ai",
        provider="google",
        base_url=server.url,
        **fields,
    )


def chunk(
    *parts: dict[str, Any], finish: str | None = None, usage: dict[str, Any] | None = None
) -> str:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate]}
    if usage:
        body["usageMetadata"] = usage
    return sse_event(body)


async def call(server: SSEServer, context: Context | None = None) -> AssistantMessage:
    context = context or Context(messages=[UserMessage(content="hi")])
    provider = GoogleGenerativeAIProvider()
    return await drain(provider.stream(model_for(server), context, StreamOptions(api_key=API_KEY)))


async def test_usage_is_cumulative_and_the_last_count_wins(sse_server: SSEServer) -> None:
    early = {"trafficType": "ON_DEMAND"}  # Vertex's early chunks hold no counts
    last = {
        "promptTokenCount": 50,
        "cachedContentTokenCount": 30,
        "candidatesTokenCount": 7,
        "thoughtsTokenCount": 5,
        "totalTokenCount": 62,
    }
    sse_server.respond(
        sse_response(
            [
                chunk({"text": "Hel"}, usage={"promptTokenCount": 50, "totalTokenCount": 51}),
                chunk({"text": "lo"}, usage=early),
                chunk({"text": ""}, finish="STOP", usage=last),
            ]
        )
    )
    message = await call(sse_server)
    assert message.content == [TextContent(text="Hello")]
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (20, 30, 12)
    assert message.usage.total_tokens == 62
    request = sse_server.requests[0]
    assert request.path == "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == API_KEY


@pytest.mark.parametrize("reason", ["SAFETY", "PROHIBITED_CONTENT", "RECITATION"])
async def test_a_blocked_answer_is_an_error_naming_the_reason(
    sse_server: SSEServer, reason: str
) -> None:
    sse_server.respond(sse_response([chunk({"text": "Once"}, finish=reason)]))
    message = await call(sse_server)
    assert message.stop_reason == "error"
    assert f"({reason})" in (message.error_message or "")


async def test_an_error_chunk_and_a_cut_stream_are_errors(sse_server: SSEServer) -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    sse_server.respond(sse_response([sse_event(error)]), sse_response([chunk({"text": "cut"})]))
    first = await call(sse_server)
    second = await call(sse_server)
    assert "The model is overloaded. (UNAVAILABLE)" in (first.error_message or "")
    assert "ended before a finishReason" in (second.error_message or "")
    assert second.content == [TextContent(text="cut")]


async def test_signatures_stay_on_their_blocks(sse_server: SSEServer) -> None:
    sse_server.respond(
        sse_response(
            [
                chunk({"text": "plan", "thought": True}),
                chunk({"text": " more", "thought": True, "thoughtSignature": "T1"}),
                chunk({"text": "Answer", "thoughtSignature": "S1"}),
                chunk({"text": " two", "thoughtSignature": "S2"}),  # a second signature: new block
                chunk({"functionCall": {"name": "f", "args": {"a": 1}, "id": "v1"}}),
                chunk({"text": "", "thoughtSignature": "S3"}),  # signs nothing open: its own block
                chunk({"functionCall": {"name": "g", "id": "v2"}}),
                chunk({"text": "Then"}),
                chunk({"thoughtSignature": "S4"}, finish="STOP"),  # no text key at all
            ]
        )
    )
    message = await call(sse_server)
    assert message.content == [
        ThinkingContent(thinking="plan more", signature="T1"),
        TextContent(text="Answer", signature="S1"),
        TextContent(text=" two", signature="S2"),
        ToolCall(id="v1", name="f", arguments={"a": 1}),
        TextContent(text="", signature="S3"),
        ToolCall(id="v2", name="g"),
        TextContent(text="Then", signature="S4"),
    ]
    assert message.stop_reason == "toolUse"


def test_streamed_argument_paths_build_nested_values() -> None:
    args: dict[str, Any] = {}
    set_json_path(args, "$.where.city", "San ", True)
    set_json_path(args, "$.where.city", "Jose", True)
    set_json_path(args, "$.days[1]", 3, False)
    set_json_path(args, "$.metric", True, False)
    assert args == {"where": {"city": "San Jose"}, "days": [None, 3], "metric": True}


def test_a_key_in_the_base_url_query_is_kept() -> None:
    model = Model(
        id="models/gemini-x",
        api="google-generative-ai",
        provider="google",
        base_url="https://proxy.example/v1?key=K",
    )
    assert generate_url(model) == (
        "https://proxy.example/v1/models/gemini-x:streamGenerateContent?alt=sse&key=K"
    )


async def test_request_maps_the_whole_context(sse_server: SSEServer) -> None:
    sse_server.respond(sse_response([chunk({"text": "ok"}, finish="STOP")]))
    context = Context(
        system_prompt="Be brief.",
        tools=[Tool(name="look", description="Look.", parameters={"type": "object"})],
        messages=[
            UserMessage(
                content=[TextContent(text="see"), ImageContent(data="QUJD", mime_type="image/png")]
            ),
            AssistantMessage(
                api="google-generative-ai",
                provider="google",
                model="gemini-test",
                content=[
                    ThinkingContent(thinking="summary only"),  # unsigned: for reading, not sent
                    ThinkingContent(thinking="signed", signature="T"),
                    TextContent(text="Looking."),
                    ToolCall(id="look#0", name="look", arguments={"at": "sky"}, signature="S"),
                    ToolCall(id="look#1", name="look", arguments={"at": "sea"}),
                ],
            ),
            ToolResultMessage(
                tool_call_id="look#0", tool_name="look", content=[TextContent(text="blue")]
            ),
            ToolResultMessage(
                tool_call_id="look#1",
                tool_name="look",
                content=[TextContent(text="wet")],
                is_error=True,
            ),
            AssistantMessage(  # another vendor's signature is not Gemini's to check
                api="anthropic-messages",
                provider="anthropic",
                model="claude",
                content=[TextContent(text="Done.", signature="EqQB")],
            ),
        ],
    )
    options = SimpleStreamOptions(
        api_key=API_KEY, reasoning="medium", max_tokens=99, temperature=0.5
    )
    model = model_for(sse_server, reasoning=True)
    await drain(GoogleGenerativeAIProvider().stream_simple(model, context, options))
    assert sse_server.requests[0].json() == {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "look", "description": "Look.", "parameters": {"type": "object"}}
                ]
            }
        ],
        "generationConfig": {
            "maxOutputTokens": 99,
            "temperature": 0.5,
            "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 8192},
        },
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "see"},
                    {"inlineData": {"mimeType": "image/png", "data": "QUJD"}},
                ],
            },
            {
                "role": "model",
                "parts": [
                    {"text": "signed", "thought": True, "thoughtSignature": "T"},
                    {"text": "Looking."},
                    {
                        "functionCall": {"name": "look", "args": {"at": "sky"}, "id": "look#0"},
                        "thoughtSignature": "S",
                    },
                    {"functionCall": {"name": "look", "args": {"at": "sea"}, "id": "look#1"}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "look",
                            "id": "look#0",
                            "response": {"output": "blue"},
                        }
                    },
                    {
                        "functionResponse": {
                            "name": "look",
                            "id": "look#1",
                            "response": {"error": "wet"},
                        }
                    },
                ],
            },
            {"role": "model", "parts": [{"text": "Done."}]},
        ],
    }
