"""`examples/echo_agent.py` runs on the new apis: `openai-responses:MODEL` and `google:MODEL`.

The example is loaded from its file and pointed at a loopback server (OPENPROGRAM_EXAMPLE_BASE_URL)
that answers as the vendor would: first a call of the `echo` tool, then the text it returned.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.sse_server import SSEServer, sse_event, sse_response

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "echo_agent.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("echo_agent_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def responses_turns() -> list[list[str]]:
    call = {"type": "function_call", "call_id": "call_9", "name": "echo", "arguments": ""}
    done = {"type": "response.completed", "response": {"usage": {}}}
    return [
        [
            sse_event({"type": "response.output_item.added", "output_index": 0, "item": call}),
            sse_event(
                {
                    "type": "response.function_call_arguments.delta",
                    "output_index": 0,
                    "delta": '{"text":"hi"}',
                }
            ),
            sse_event({"type": "response.output_item.done", "output_index": 0, "item": call}),
            sse_event(done),
        ],
        [
            sse_event(
                {"type": "response.output_text.delta", "output_index": 0, "delta": "echo:hi"}
            ),
            sse_event(done),
        ],
    ]


def gemini_turns() -> list[list[str]]:
    def chunk(part: dict[str, object]) -> str:
        content = {"role": "model", "parts": [part]}
        return sse_event({"candidates": [{"content": content, "finishReason": "STOP"}]})

    call = {"functionCall": {"name": "echo", "args": {"text": "hi"}}, "thoughtSignature": "c2ln"}
    return [[chunk(call)], [chunk({"text": "echo:hi"})]]


@pytest.mark.parametrize(
    ("choice", "key_variable", "turns"),
    [
        ("openai-responses:gpt-5-mini", "OPENAI_API_KEY", responses_turns()),
        ("google:gemini-2.5-flash", "GOOGLE_API_KEY", gemini_turns()),
    ],
)
async def test_the_echo_example_runs_on_the_new_apis(
    choice: str,
    key_variable: str,
    turns: list[list[str]],
    sse_server: SSEServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENPROGRAM_EXAMPLE_MODEL", choice)
    monkeypatch.setenv("OPENPROGRAM_EXAMPLE_BASE_URL", sse_server.url)
    monkeypatch.setenv(key_variable, "sk-example-key")
    sse_server.respond(*(sse_response(turn) for turn in turns))

    assert await load_example().main(None) == 0

    assert capsys.readouterr().out == "echo:hi\n"
    assert len(sse_server.requests) == 2
    assert "sk-example-key" in str(sse_server.requests[1].headers)
    sent_back = sse_server.requests[1].body.decode()
    assert "echo:hi" in sent_back  # the tool's result went back to the model
