"""The 27 real OpenAI Responses and Gemini streams, served byte for byte on loopback, read right.

Each body in `openai-responses/` and `google-generative-ai/` of the real streams folder (taken
unchanged from public VCR cassettes and fixtures, each described by its `<name>.json`) is served with
its recorded status and content type, in both framings (chunked, and a body that ends when the
connection closes), cut at byte boundaries chosen per stream. The expected answer (blocks,
signatures, call ids, stop reason, usage, or the vendor's error text) is computed here from the raw
SSE by a fold of our own that shares no code with the providers or the accumulator. The call is
recorded, the answer compared, then replayed from the file with sockets refused; finally every row
of the file is scanned for the secrets the answer holds (two streams carry a `password` argument).

The folder is third-party data, read from `$OPENPROGRAM_REAL_SSE_DIR` (see `tests/real_sse.py`).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import Context, Model, StreamOptions, UserMessage
from openprogram.providers.http.google_generative_ai import GoogleGenerativeAIProvider
from openprogram.providers.http.openai_responses import OpenAIResponsesProvider
from openprogram.providers.recording import RecordingProvider, remove_secret_values
from openprogram.providers.stream import drain
from openprogram.providers.types import AssistantMessage
from openprogram.recordings.secret_scan import scan_file
from tests.providers.test_real_streams import _replay_offline, cuts, secrets_of, sse_data
from tests.real_sse import FOLDER, require_folder
from tests.sse_server import ScriptedResponse, SSEServer

APIS = ("openai-responses", "google-generative-ai")
STREAMS = [
    (api, path.stem)
    for api in APIS
    if (FOLDER / api).is_dir()
    for path in sorted((FOLDER / api).glob("*.sse"))
]
CONTEXT = Context(messages=[UserMessage(content="hi", timestamp=1)])
API_KEY = "sk-real-stream-test-key"


def test_the_new_api_streams_are_there_when_required() -> None:
    require_folder()
    assert len([s for s in STREAMS if s[0] == "openai-responses"]) == 13
    assert len([s for s in STREAMS if s[0] == "google-generative-ai"]) == 14


# ---- the reference folds: raw SSE text to the expected answer, sharing nothing with the library ----


def expected_responses(body: str) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    by_key: dict[tuple[int, int], dict[str, Any]] = {}
    summary_parts: dict[int, int] = {}
    end: str | None = None
    usage: dict[str, Any] = {}
    calls = 0
    kept: list[dict[str, Any]] = []  # what our types cannot hold: other items, annotations
    for name, data in sse_data(body):
        if data.strip() == "[DONE]":
            break
        event = json.loads(data)
        kind = event.get("type") or name
        at = event.get("output_index", 0)
        if kind == "error":
            error = event.get("error") or event
            return {"error": error["message"]}
        if kind == "response.failed":
            return {"error": event["response"]["error"]["message"]}
        if kind in ("response.completed", "response.incomplete"):
            end, usage = kind, event["response"].get("usage") or {}
            break
        if kind == "response.output_item.added":
            item = event["item"]
            if item["type"] == "reasoning":
                entry = {"kind": "thinking", "text": "", "sig": None}
            elif item["type"] == "function_call":
                entry = {
                    "kind": "toolCall",
                    "id": item["call_id"],
                    "name": item["name"],
                    "args": "",
                }
                calls += 1
            else:
                continue
            by_key[(at, 0)] = entry
            blocks.append(entry)
        elif kind == "response.output_item.done":
            item = event["item"]
            if item["type"] == "message":
                kept += [a for c in item["content"] for a in c.get("annotations") or []]
            elif item["type"] not in ("reasoning", "function_call"):
                kept.append(item)
            if item["type"] == "reasoning":
                by_key[(at, 0)]["sig"] = item
            elif item["type"] == "function_call" and not by_key[(at, 0)]["args"]:
                by_key[(at, 0)]["args"] = item.get("arguments") or ""
        elif kind == "response.reasoning_summary_part.added":
            summary_parts[at] = summary_parts.get(at, 0) + 1
            if summary_parts[at] > 1 and by_key[(at, 0)]["text"]:
                by_key[(at, 0)]["text"] += "\n\n"
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            by_key[(at, 0)]["text"] += event["delta"]
        elif kind == "response.function_call_arguments.delta":
            by_key[(at, 0)]["args"] += event["delta"]
        elif kind in ("response.output_text.delta", "response.refusal.delta") and event["delta"]:
            key = (at, event.get("content_index", 0))
            if key not in by_key:
                refusal = kind == "response.refusal.delta"
                by_key[key] = {"kind": "refusal" if refusal else "text", "text": ""}
                blocks.append(by_key[key])
            by_key[key]["text"] += event["delta"]
    if end is None:
        return {"error": "ended before response.completed"}
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens") or 0
    stop = "length" if end == "response.incomplete" else "toolUse" if calls else "stop"
    return {
        "blocks": [_final(b) for b in blocks],
        "stop": stop,
        "usage": (
            usage["input_tokens"] - cached,
            usage["output_tokens"],
            cached,
            (usage.get("output_tokens_details") or {}).get("reasoning_tokens"),
        ),
        "kept": kept,
    }


def _set_path(args: dict[str, Any], path: str, piece: dict[str, Any]) -> None:
    key = path.removeprefix("$.")
    assert "." not in key and "[" not in key, path  # the streams hold top-level paths only
    if "stringValue" in piece:
        args[key] = args.get(key, "") + piece["stringValue"]
    else:
        args[key] = next(v for k, v in piece.items() if k.endswith("Value"))


def expected_gemini(body: str) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    open_block: dict[str, Any] | None = None
    streaming: dict[str, Any] | None = None
    finish, usage, calls = None, None, 0
    kept: list[dict[str, Any]] = []  # parts and candidate metadata our types cannot hold
    if not sse_data(body):  # an error status with one JSON object under an SSE content type
        return {"error": json.loads(body)["error"]["message"]}
    for _, data in sse_data(body):
        chunk = json.loads(data)
        if "error" in chunk:
            return {"error": chunk["error"]["message"]}
        meta = chunk.get("usageMetadata") or {}
        if "totalTokenCount" in meta:
            usage = meta
        if (chunk.get("promptFeedback") or {}).get("blockReason"):
            return {"error": chunk["promptFeedback"]["blockReason"]}
        candidate = (chunk.get("candidates") or [{}])[0]
        for part in (candidate.get("content") or {}).get("parts") or []:
            sig = part.get("thoughtSignature")
            if "functionCall" in part:
                call, open_block = part["functionCall"], None
                if streaming is not None and "name" not in call:
                    for piece in call.get("partialArgs") or []:
                        _set_path(streaming["args"], piece["jsonPath"], piece)
                    if not call.get("willContinue"):
                        streaming = None
                    continue
                entry = {"kind": "toolCall", "name": call["name"], "args": call.get("args") or {}}
                entry.update(sig=sig, id=call.get("id"))
                blocks.append(entry)
                calls += 1
                streaming = entry if call.get("willContinue") else None
            elif "text" in part:
                kind = "thinking" if part.get("thought") else "text"
                same = open_block is not None and open_block["kind"] == kind
                if not part["text"] and not sig:
                    continue
                if same and not part["text"] and open_block and open_block["sig"] is None:
                    open_block["sig"] = sig
                    continue
                if not same or (sig and open_block and open_block["sig"]):
                    open_block = {"kind": kind, "text": "", "sig": None}
                    blocks.append(open_block)
                assert open_block is not None
                open_block["text"] += part["text"]
                open_block["sig"] = sig or open_block["sig"]
            elif set(part) - {"thoughtSignature", "thought"}:
                kept.append(part)
        kept += [
            {k: candidate[k]} for k in ("groundingMetadata", "citationMetadata") if candidate.get(k)
        ]
        finish = candidate.get("finishReason") or finish
    if finish not in ("STOP", "MAX_TOKENS"):
        return {"error": finish or "ended before a finishReason"}
    assert usage is not None
    prompt = usage.get("promptTokenCount", 0) + usage.get("toolUsePromptTokenCount", 0)
    cached = usage.get("cachedContentTokenCount", 0)
    output = usage.get("candidatesTokenCount", 0) + usage.get("thoughtsTokenCount", 0)
    stop = "length" if finish == "MAX_TOKENS" else "toolUse" if calls else "stop"
    return {
        "blocks": [_final(b) for b in blocks],
        "stop": stop,
        "usage": (prompt - cached, output, cached, usage.get("thoughtsTokenCount")),
        "kept": kept,
    }


def _final(block: dict[str, Any]) -> tuple[Any, ...]:
    if block["kind"] == "toolCall":
        args = block["args"]
        if isinstance(args, str):
            args = json.loads(args) if args else {}
        return ("toolCall", block.get("id"), block["name"], args, block.get("sig"))
    if block["kind"] == "refusal":
        return ("refusal", block["text"])
    return (block["kind"], block["text"], block.get("sig"))


def answer_of(message: AssistantMessage, api: str) -> dict[str, Any]:
    """Our message in the reference's terms (signatures parsed where the vendor's are items)."""
    blocks: list[tuple[Any, ...]] = []
    for block in message.content:
        if block.type == "text" and block.refusal:
            blocks.append(("refusal", block.text))
        elif block.type == "text":
            blocks.append(("text", block.text, block.signature))
        elif block.type == "thinking":
            sig = block.signature
            parsed = json.loads(sig) if sig and api == "openai-responses" else sig
            blocks.append(("thinking", block.thinking, parsed))
        else:
            # Gemini calls without a vendor id get one of ours; only a vendor id is expected back.
            vendor_id = block.id if "#" not in block.id else None
            blocks.append(("toolCall", vendor_id, block.name, block.arguments, block.signature))
    usage = message.usage
    return {
        "blocks": blocks,
        "stop": message.stop_reason,
        "usage": (usage.input, usage.output, usage.cache_read, usage.reasoning),
        "kept": message.vendor_items or [],
    }


KEPT_KINDS = {
    "openai_responses_web_search_annotations": [
        "web_search_call",
        "web_search_call",
        "url_citation",
    ],
    "openai_responses_web_search_cached": ["web_search_call"],
    "gemini_code_execution": ["executableCode", "codeExecutionResult"],
    "gemini_web_search_grounding": ["groundingMetadata"],
}


@pytest.mark.parametrize(("api", "name"), [s for s in STREAMS if s[1] in KEPT_KINDS])
def test_what_the_types_cannot_hold_is_kept_from_the_streams_that_carry_it(
    api: str, name: str
) -> None:
    fold = expected_responses if api == "openai-responses" else expected_gemini
    kept = fold((FOLDER / api / f"{name}.sse").read_text(encoding="utf-8"))["kept"]
    kinds = [item.get("type") or next(k for k in item if k != "thoughtSignature") for item in kept]
    assert kinds == KEPT_KINDS[name]  # the run below checks the message holds exactly these


# ---- the run: live over loopback, recorded, replayed offline, scanned ----


def provider_for(api: str) -> OpenAIResponsesProvider | GoogleGenerativeAIProvider:
    return OpenAIResponsesProvider() if api == "openai-responses" else GoogleGenerativeAIProvider()


@pytest.mark.parametrize("framing", ["chunked", "close"])
@pytest.mark.parametrize(("api", "name"), STREAMS)
def test_a_real_new_api_stream_is_read_recorded_and_replayed_right(
    api: str, name: str, framing: str, tmp_path: Path
) -> None:
    meta = json.loads((FOLDER / api / f"{name}.json").read_text())
    body = (FOLDER / api / f"{name}.sse").read_bytes()
    assert meta["api"] == api
    fold = expected_responses if api == "openai-responses" else expected_gemini
    expected = fold(body.decode("utf-8"))
    path = tmp_path / "recording.jsonl"

    async def run() -> tuple[AssistantMessage, AssistantMessage]:
        with SSEServer() as server:
            server.respond(
                ScriptedResponse(
                    status=meta.get("response_status") or 200,
                    headers={
                        "Content-Type": meta.get("response_content_type") or "text/event-stream"
                    },
                    chunks=list(cuts(body, f"{name}/{framing}")),
                    framing="close" if framing == "close" else "chunked",
                )
            )
            model = Model(
                id=meta.get("model") or "m",
                api=api,
                provider=meta["vendor"],
                base_url=server.url + ("/v1" if api == "openai-responses" else ""),
            )
            recorder = RecordingProvider(provider_for(api), path)
            try:
                live = await drain(recorder.stream(model, CONTEXT, StreamOptions(api_key=API_KEY)))
            finally:
                recorder.sink.close()
            assert len(server.requests) == 1
        return live, await _replay_offline(path, model)

    live, replayed = asyncio.run(run())
    if "error" in expected:
        assert live.stop_reason == "error"
        assert expected["error"] in (live.error_message or "")
    else:
        assert answer_of(live, api) == expected
    assert remove_secret_values(replayed.model_dump(mode="json")) == remove_secret_values(
        live.model_dump(mode="json")
    )
    text = path.read_text(encoding="utf-8")
    secrets = secrets_of(live)
    if "password" in meta["contains"]:
        assert secrets  # the scan has something to look for
    assert [secret for secret in secrets if secret in text] == []
    # A recording we wrote is clean by construction: `recordings scan` agrees (ids, signatures
    # and encrypted reasoning are not mistaken for keys).
    assert [finding.describe() for finding in scan_file(path).findings] == []
