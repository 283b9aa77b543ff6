"""Record real agent sessions for the prompt-cache report: an `anthropic-messages` client talking
to a loopback server (tests/sse_server.py) through the recorder, which writes a real file.

The server reports usage as Anthropic does for a session with a cache breakpoint on the last
message: what an earlier request already sent (the longest prefix this fake vendor has seen, in
characters of the request body) is `cache_read_input_tokens`, the rest `cache_creation_input_tokens`,
and 3 tokens of plain input. Tokens are characters / 4, a stand-in for a tokenizer: the report
reads the vendor's numbers and never counts tokens itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openprogram.providers import Context, UserMessage
from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.types import AssistantMessage, Model, StreamOptions
from tests.sse_server import ScriptedResponse, SSEServer, sse_event, sse_response

PLAIN_INPUT = 3


def _event(data: dict[str, Any]) -> str:
    return sse_event(data, event=data["type"])


def _answer_stream(text: str, read: int, written: int) -> list[str]:
    usage = {
        "input_tokens": PLAIN_INPUT,
        "output_tokens": 1,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": written,
    }
    start = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    return [
        _event({"type": "message_start", "message": {**start, "model": "m", "usage": usage}}),
        _event({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}),
        _event(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            }
        ),
        _event({"type": "content_block_stop", "index": 0}),
        _event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 12},
            }
        ),
        _event({"type": "message_stop"}),
    ]


def _tokens(body: bytes) -> int:
    return len(body) // 4


def _shared(a: bytes, b: bytes) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class CachingVendor(SSEServer):
    """A loopback `anthropic-messages` vendor with a prompt cache: each answer's usage says how
    much of its request body an earlier request of the session already sent."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[bytes] = []

    def next_response(self) -> ScriptedResponse:
        body = self.requests[-1].body
        read = max((_shared(body, earlier) for earlier in self.bodies), default=0)
        self.bodies.append(body)
        total = _tokens(body)
        cached = min(_tokens(body[:read]), total - PLAIN_INPUT)
        written = total - PLAIN_INPUT - cached
        return sse_response(_answer_stream(f"Step {len(self.bodies)} done.", cached, written))


MODEL_ID = "claude-sonnet-4-5"


def record_session(
    path: Path,
    calls: int = 20,
    *,
    system_prompt: Callable[[int], str] = lambda _: "You are a careful assistant. " * 20,
    before_call: Callable[[int, list[Any]], None] = lambda _call, _messages: None,
    model_id: str = MODEL_ID,
) -> Path:
    """Record `calls` turns of one conversation into `path`: each call sends every earlier
    message, the answer and a new user message; `before_call(n, messages)` may edit the list
    before call n is sent."""

    async def run(vendor: CachingVendor) -> None:
        model = Model(
            id=model_id,
            api="anthropic-messages",
            provider="anthropic",
            base_url=vendor.url,
            max_tokens=1024,
        )
        recorder = RecordingProvider(AnthropicMessagesProvider(), path)
        messages: list[Any] = [UserMessage(content="Plan the billing migration. " * 12)]
        try:
            for n in range(calls):
                before_call(n, messages)
                context = Context(system_prompt=system_prompt(n), messages=list(messages))
                answer: AssistantMessage | None = None
                async for event in recorder.stream(model, context, StreamOptions(api_key="k")):
                    if event.type == "done":
                        answer = event.message
                assert answer is not None, f"call {n} had no answer"
                messages += [answer, UserMessage(content=f"Next step {n + 1}, please. " * 6)]
        finally:
            recorder.sink.close()

    with CachingVendor() as vendor:
        asyncio.run(run(vendor))
    return path
