"""Every real vendor stream in `../shared/real_sse/`, served byte for byte on loopback, read right.

Each of the 46 response bodies (OpenAI, OpenAI-compatible, Anthropic; taken unchanged from public
VCR cassettes, each described by its `<name>.json`) is served in both framings (chunked, and a body
that ends when the connection closes), cut at byte boundaries chosen per stream. The expected
answer is computed here from the raw SSE by a small fold of our own that shares no code with the
providers or the accumulator. The call is recorded, the answer compared, then replayed from the
file with sockets refused; finally every row of the file is scanned for the secrets the answer holds.

The folder is third-party data and is not part of the repository: it is read from
`$OPENPROGRAM_REAL_SSE_DIR` (default `../shared/real_sse` beside the checkout). Without it these
tests are skipped, naming the folder; `.ci/run` sets `OPENPROGRAM_REAL_SSE_REQUIRED=1`, which turns
a missing folder into a failure.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import random
import socket
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import Context, Model, StreamOptions, UserMessage
from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
from openprogram.providers.recording import RecordingProvider, remove_secret_values
from openprogram.providers.replay import ReplayProvider
from openprogram.providers.stream import drain
from openprogram.providers.types import AssistantMessage
from openprogram.recordings.secret_scan import scan_file
from tests.real_sse import FOLDER, require_folder
from tests.sse_server import SSEServer, sse_response

NAMES = sorted(p.stem for p in FOLDER.glob("*.sse")) if FOLDER.is_dir() else []
CONTEXT = Context(messages=[UserMessage(content="hi", timestamp=1)])


def test_the_real_streams_folder_is_there_when_required() -> None:
    require_folder()
    assert len(NAMES) >= 46


# ---- the reference fold: raw SSE text to the expected answer, sharing nothing with the library ----


def sse_data(body: str) -> list[tuple[str | None, str]]:
    """(event name, data) of every SSE event in `body`."""
    events: list[tuple[str | None, str]] = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        if data:
            events.append((name, "\n".join(data)))
    return events


def expected_openai(body: str) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    tools: dict[int, dict[str, Any]] = {}
    finish, done = None, False
    for _, data in sse_data(body):
        if data.strip() == "[DONE]":
            done = True
            break
        chunk = json.loads(data)
        if chunk.get("error"):
            return {"error": True}
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            for kind, key in (
                ("thinking", "reasoning_content"),
                ("thinking", "reasoning"),
                ("text", "content"),
                ("refusal", "refusal"),
            ):
                piece = delta.get(key)
                if isinstance(piece, str) and piece:
                    if blocks and blocks[-1]["kind"] == kind:
                        blocks[-1]["text"] += piece
                    else:
                        blocks.append({"kind": kind, "text": piece})
            for call in delta.get("tool_calls") or []:
                entry = tools.get(call["index"])
                if entry is None:
                    entry = tools[call["index"]] = {"kind": "toolCall", "args": "", "name": ""}
                    blocks.append(entry)
                function = call.get("function") or {}
                entry["name"] = entry["name"] or function.get("name") or ""
                entry["args"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    if finish == "content_filter" or (finish is None and not done):
        return {"error": True}
    reason = {"length": "length", "tool_calls": "toolUse"}.get(finish or "stop", "stop")
    if reason == "stop" and tools:
        reason = "toolUse"
    return {"blocks": [_final(b) for b in blocks], "stop": reason}


def expected_anthropic(body: str) -> dict[str, Any]:
    blocks: dict[int, dict[str, Any]] = {}
    stop, finished = None, False
    for name, data in sse_data(body):
        payload = json.loads(data)
        kind = payload.get("type") or name
        if kind == "error":
            return {"error": True}
        if kind == "content_block_start":
            block = payload["content_block"]
            if block["type"] in ("text", "thinking"):
                blocks[payload["index"]] = {
                    "kind": block["type"],
                    "text": block.get(block["type"]) or "",
                }
            elif block["type"] == "redacted_thinking":
                blocks[payload["index"]] = {"kind": "redacted", "text": block["data"]}
            elif block["type"] == "tool_use":
                given = block.get("input") or {}
                blocks[payload["index"]] = {
                    "kind": "toolCall",
                    "name": block["name"],
                    "args": json.dumps(given) if given else "",
                }
        elif kind == "content_block_delta" and payload["index"] in blocks:
            delta, target = payload["delta"], blocks[payload["index"]]
            for key in ("text", "thinking", "partial_json"):
                if isinstance(delta.get(key), str):
                    target["args" if key == "partial_json" else "text"] += delta[key]
        elif kind == "message_delta":
            stop = (payload.get("delta") or {}).get("stop_reason") or stop
        elif kind == "message_stop":
            finished = True
    if not finished or stop == "refusal":
        return {"error": True}
    reason = {
        "max_tokens": "length",
        "model_context_window_exceeded": "length",
        "tool_use": "toolUse",
        "pause_turn": "pauseTurn",
    }.get(stop or "end_turn", "stop")
    return {"blocks": [_final(blocks[i]) for i in sorted(blocks)], "stop": reason}


def _final(block: dict[str, Any]) -> tuple[Any, ...]:
    if block["kind"] == "toolCall":
        return ("toolCall", block["name"], json.loads(block["args"]) if block["args"] else {})
    return (block["kind"], block["text"])


def answer_of(message: AssistantMessage) -> dict[str, Any]:
    """Our message in the reference's terms."""
    if message.stop_reason in ("error", "aborted"):
        return {"error": True}
    blocks: list[tuple[Any, ...]] = []
    for block in message.content:
        if block.type == "text":
            blocks.append(("refusal" if block.refusal else "text", block.text))
        elif block.type == "thinking":
            blocks.append(
                ("redacted", block.signature) if block.redacted else ("thinking", block.thinking)
            )
        elif block.type == "toolCall":
            blocks.append(("toolCall", block.name, block.arguments))
    return {"blocks": blocks, "stop": message.stop_reason}


# ---- the run: live over loopback, recorded, replayed offline, scanned ----


def cuts(body: bytes, seed: str) -> list[bytes]:
    """`body` cut into pieces of 1 to 300 bytes at boundaries chosen by `seed` (UTF-8 included)."""
    rng, pieces, at = random.Random(seed), [], 0
    while at < len(body):
        size = rng.choice((1, 2, 3, 7, 64, 300))
        pieces.append(body[at : at + size])
        at += size
    return pieces


def secrets_of(message: AssistantMessage) -> list[str]:
    """The parts of the answer's values that redaction would remove (each at least 4 characters)."""
    found: list[str] = []

    def walk(raw: Any, clean: Any) -> None:
        if isinstance(raw, dict):
            for key in raw:
                walk(raw[key], clean[key])
        elif isinstance(raw, list):
            for a, b in zip(raw, clean, strict=True):
                walk(a, b)
        elif isinstance(raw, str) and raw != clean:
            matcher = difflib.SequenceMatcher(None, raw, str(clean), autojunk=False)
            for op, i1, i2, _, _ in matcher.get_opcodes():
                if op in ("replace", "delete") and i2 - i1 >= 4:
                    found.append(raw[i1:i2])

    dump = message.model_dump(mode="json")
    walk(dump, remove_secret_values(dump))
    return found


async def _replay_offline(path: Path, model: Model) -> AssistantMessage:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay opened a socket")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket, "create_connection", refuse)
        return await drain(ReplayProvider(path).stream(model, CONTEXT, StreamOptions(api_key="k")))


@pytest.mark.parametrize("framing", ["chunked", "close"])
@pytest.mark.parametrize("name", NAMES)
def test_a_real_stream_is_read_recorded_and_replayed_right(
    name: str, framing: str, tmp_path: Path
) -> None:
    meta = json.loads((FOLDER / f"{name}.json").read_text())
    body = (FOLDER / f"{name}.sse").read_bytes()
    api = meta["api"]
    expected = (expected_openai if api == "openai-completions" else expected_anthropic)(
        body.decode("utf-8")
    )
    path = tmp_path / "recording.jsonl"

    async def run() -> tuple[AssistantMessage, AssistantMessage]:
        with SSEServer() as server:
            server.respond(sse_response(cuts(body, f"{name}/{framing}"), framing=framing))
            model = Model(
                id=meta.get("model") or "m",
                api=api,
                provider=meta["vendor"],
                base_url=server.url + ("/v1" if api == "openai-completions" else ""),
            )
            provider = (
                OpenAICompletionsProvider()
                if api == "openai-completions"
                else AnthropicMessagesProvider()
            )
            recorder = RecordingProvider(provider, path)
            try:
                live = await drain(recorder.stream(model, CONTEXT, StreamOptions(api_key="k")))
            finally:
                recorder.sink.close()
        return live, await _replay_offline(path, model)

    live, replayed = asyncio.run(run())
    assert answer_of(live) == expected
    if api == "openai-completions" and "error" not in expected:  # as the last usage says
        usages = [json.loads(d)["usage"] for _, d in sse_data(body.decode()) if '"usage":{' in d]
        details = (usages[-1].get("completion_tokens_details") or {}) if usages else {}
        assert live.usage.reasoning == details.get("reasoning_tokens")
    assert remove_secret_values(replayed.model_dump(mode="json")) == remove_secret_values(
        live.model_dump(mode="json")
    )
    text = path.read_text(encoding="utf-8")
    assert [secret for secret in secrets_of(live) if secret in text] == []
    # A recording we wrote is clean by construction: `recordings scan` agrees (ids, signatures
    # and encrypted reasoning are not mistaken for keys).
    assert [finding.describe() for finding in scan_file(path).findings] == []
