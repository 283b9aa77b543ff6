"""A two-turn agent loop on each new api: a real tool-call stream, then the tool result sent back.

The first answer is a real vendor stream from the real streams folder, served on loopback through the
built-in provider the registry finds for `model.api`; the second request is then checked the way the
vendor checks it: reasoning items (OpenAI) and thought signatures (Gemini) back exactly as they came,
each tool result naming the call it answers, in the order the calls were made.
"""

from __future__ import annotations

import json
from typing import Any

from openprogram.agent import AgentTool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.types import SimpleStreamOptions, TextContent
from tests.real_sse import require_folder
from tests.sse_server import SSEServer, sse_event, sse_response

OPTIONS = SimpleStreamOptions(api_key="sk-loop-test-key", reasoning="low")


def sse_items(body: str) -> list[dict[str, Any]]:
    """The JSON payload of every `data:` line in `body`."""
    return [
        json.loads(line[5:])
        for line in body.replace("\r\n", "\n").split("\n")
        if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]


def tool(name: str, argument: str, answer: str) -> AgentTool:
    return AgentTool(
        name=name,
        description=f"The {name} tool.",
        parameters={"type": "object", "properties": {argument: {"type": "string"}}},
        function=lambda **kwargs: f"{answer}:{kwargs[argument]}",
    )


async def test_openai_responses_sends_reasoning_and_the_call_output_back(
    sse_server: SSEServer,
) -> None:
    real = (
        require_folder() / "openai-responses" / "openai_responses_text_then_tool.sse"
    ).read_text()
    finished = {
        item["output_index"]: item["item"]
        for item in sse_items(real)
        if item["type"] == "response.output_item.done"
    }
    second = [
        sse_event(
            {"type": "response.output_text.delta", "output_index": 0, "delta": "Potatoville"}
        ),
        sse_event(
            {
                "type": "response.completed",
                "response": {"usage": {"input_tokens": 90, "output_tokens": 3}},
            }
        ),
    ]
    sse_server.respond(sse_response([real]), sse_response(second))
    model = Model(
        id="gpt-5",
        api="openai-responses",
        provider="openai",
        base_url=sse_server.url,
        reasoning=True,
    )
    context = Context(system_prompt="Use the tools.", messages=[UserMessage(content="PotatoLand?")])

    run = await run_agent_loop(model, context, [tool("get_capital", "country", "capital")], OPTIONS)

    assert run.call_count == 2
    assert run.final_message.content == [TextContent(text="Potatoville")]
    first, again = (request.json() for request in sse_server.requests)
    assert sse_server.requests[1].headers["authorization"] == "Bearer sk-loop-test-key"
    for body in (first, again):
        assert body["store"] is False and body["stream"] is True
        assert body["include"] == ["reasoning.encrypted_content"]
        assert body["reasoning"] == {"effort": "low", "summary": "auto"}
        assert body["tools"][0]["name"] == "get_capital" and body["tools"][0]["type"] == "function"
    reasoning, call = finished[0], finished[2]
    assert again["input"] == [
        {"role": "developer", "content": "Use the tools."},
        {"role": "user", "content": "PotatoLand?"},
        reasoning,  # the whole item, encrypted content included, before the output it led to
        {"role": "assistant", "content": finished[1]["content"][0]["text"]},
        {
            "type": "function_call",
            "call_id": call["call_id"],
            "name": "get_capital",
            "arguments": json.dumps({"country": "PotatoLand"}),
        },
        {
            "type": "function_call_output",
            "call_id": call["call_id"],
            "output": "capital:PotatoLand",
        },
    ]
    assert reasoning["encrypted_content"]


async def test_gemini_sends_thought_signatures_and_the_responses_back(
    sse_server: SSEServer,
) -> None:
    folder = require_folder() / "google-generative-ai"
    real = (folder / "gemini_parallel_function_calls.sse").read_text()
    parts = [p for chunk in sse_items(real) for p in chunk["candidates"][0]["content"]["parts"]]
    second = sse_event(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": "Both opened."}]},
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 80,
                "candidatesTokenCount": 3,
                "totalTokenCount": 83,
            },
        }
    )
    sse_server.respond(sse_response([real]), sse_response([second]))
    model = Model(
        id="gemini-3-pro-preview",
        api="google-generative-ai",
        provider="google",
        base_url=sse_server.url,
        reasoning=True,
    )
    context = Context(system_prompt="Use the tools.", messages=[UserMessage(content="Open both.")])

    secret = tool("secret_retrieval_tool", "password", "opened")
    run = await run_agent_loop(model, context, [secret], OPTIONS)

    assert run.call_count == 2
    assert run.final_message.content == [TextContent(text="Both opened.")]
    assert sse_server.requests[1].path == (
        "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    )
    assert sse_server.requests[1].headers["x-goog-api-key"] == "sk-loop-test-key"
    again = sse_server.requests[1].json()
    assert again["systemInstruction"] == {"parts": [{"text": "Use the tools."}]}
    assert again["generationConfig"]["thinkingConfig"] == {
        "includeThoughts": True,
        "thinkingBudget": 2048,
    }
    assert again["tools"][0]["functionDeclarations"][0]["name"] == "secret_retrieval_tool"
    user, answer, results = again["contents"]
    assert user == {"role": "user", "parts": [{"text": "Open both."}]}
    assert answer["role"] == "model"
    # Gemini checks the signature on the first call of the step: it must come back unchanged.
    assert [p.get("thoughtSignature") for p in answer["parts"]] == [
        p.get("thoughtSignature") for p in parts
    ]
    assert parts[0]["thoughtSignature"] and "thoughtSignature" not in parts[1]
    assert [p["functionCall"]["args"] for p in answer["parts"]] == [
        p["functionCall"]["args"] for p in parts
    ]
    # Both responses in the one user turn, in call order, each naming its call.
    assert results["role"] == "user"
    assert [r["functionResponse"] for r in results["parts"]] == [
        {
            "name": "secret_retrieval_tool",
            "id": call["functionCall"]["id"],
            "response": {"output": f"opened:{p['functionCall']['args']['password']}"},
        }
        for call, p in zip(answer["parts"], parts, strict=True)
    ]
