"""A reasoning signature survives recording byte for byte: the next turn sends it back as the vendor
sent it, whether the earlier turn was live or replayed from the file (rerecord re-sends it live).

Every real stream in the real streams folder that carries one (Anthropic `signature` and
`redacted_thinking` data, OpenAI Responses `encrypted_content`, Gemini `thoughtSignature`) is served
on loopback and recorded through the real provider; the call is replayed from the file, and the
next turn, built on the replayed answer, goes to the loopback server through the real provider.
The signatures are read from the raw SSE here (no provider code) and looked for among the strings
of the request body the server received.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import Context, Model, StreamOptions, UserMessage
from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
from openprogram.providers.http.google_generative_ai import GoogleGenerativeAIProvider
from openprogram.providers.http.openai_responses import OpenAIResponsesProvider
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.replayer import ReplayProvider
from openprogram.providers.stream import drain
from tests.providers.test_real_streams import sse_data
from tests.real_sse import FOLDER, require_folder
from tests.sse_server import ScriptedResponse, SSEServer

CONTEXT = Context(messages=[UserMessage(content="hi", timestamp=1)])


def test_the_streams_with_signatures_are_there() -> None:
    require_folder()
    apis = {json.loads((FOLDER / f"{name}.json").read_text())["api"] for name in STREAMS}
    assert apis == {"anthropic-messages", "openai-responses", "google-generative-ai"}
    assert len(STREAMS) >= 19


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += item.values()
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            yield item


def vendor_signatures(body: str) -> list[str]:
    """Every signature the raw stream carries, as the vendor sent it."""
    anthropic: dict[int, str] = {}
    found: list[str] = []
    for _event, data in sse_data(body):
        try:
            payload = json.loads(data)
        except ValueError:
            continue
        if not isinstance(payload, dict):
            continue
        delta, block = payload.get("delta"), payload.get("content_block")
        if isinstance(delta, dict) and delta.get("type") == "signature_delta":
            index = payload["index"]
            anthropic[index] = anthropic.get(index, "") + delta["signature"]
        elif isinstance(block, dict) and block.get("type") == "redacted_thinking":
            found.append(block["data"])
        item = payload.get("item")
        if payload.get("type") == "response.output_item.done" and item.get("encrypted_content"):
            found.append(item["encrypted_content"])
        for candidate in payload.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                # Parts our types cannot hold (code execution) go nowhere, nor their signatures:
                # see `test_real_streams_new_apis` (what the types cannot hold).
                if part.get("thoughtSignature") and not set(part) & _PARTS_NOT_HELD:
                    found.append(part["thoughtSignature"])
    return [*anthropic.values(), *found]


_PARTS_NOT_HELD = {"executableCode", "codeExecutionResult"}
STREAMS = sorted(
    path.relative_to(FOLDER).with_suffix("").as_posix()
    for path in (FOLDER.rglob("*.sse") if FOLDER.is_dir() else [])
    if vendor_signatures(path.read_text(encoding="utf-8"))
)


def provider_for(api: str) -> ApiProvider:
    if api == "anthropic-messages":
        return AnthropicMessagesProvider()
    if api == "openai-responses":
        return OpenAIResponsesProvider()
    return GoogleGenerativeAIProvider()


@pytest.mark.parametrize("name", STREAMS)
def test_the_next_turn_sends_every_signature_back_as_the_vendor_sent_it(
    name: str, tmp_path: Path
) -> None:
    meta = json.loads((FOLDER / f"{name}.json").read_text())
    body = (FOLDER / f"{name}.sse").read_bytes()
    signatures = vendor_signatures(body.decode("utf-8"))
    assert signatures, "the stream carries a signature"
    path = tmp_path / "recording.jsonl"
    api = meta["api"]

    async def run() -> Any:
        with SSEServer() as server:
            for _turn in range(2):
                server.respond(
                    ScriptedResponse(headers={"Content-Type": "text/event-stream"}, chunks=[body])
                )
            model = Model(
                id=meta.get("model") or "m",
                api=api,
                provider=meta["vendor"],
                base_url=server.url + ("/v1" if api == "openai-responses" else ""),
            )
            options = StreamOptions(api_key="k")
            recorder = RecordingProvider(provider_for(api), path)
            try:
                await drain(recorder.stream(model, CONTEXT, options))
            finally:
                recorder.sink.close()
            # The earlier turn as rerecord has it: answered from the file.
            replayed = await drain(ReplayProvider(path).stream(model, CONTEXT, options))
            next_turn = Context(
                messages=[
                    *CONTEXT.messages,
                    replayed,
                    UserMessage(content="and then?", timestamp=2),
                ]
            )
            await drain(provider_for(api).stream(model, next_turn, options))
            assert len(server.requests) == 2
            return server.requests[1].json()

    sent = set(_strings(asyncio.run(run())))
    missing = [signature[:24] for signature in signatures if signature not in sent]
    assert missing == []
