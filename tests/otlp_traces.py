"""Big OTLP/JSON traces of the shape users have: an agent session whose every inference span
carries the whole conversation so far (the conventions' `gen_ai.input.messages`), so a few
hundred calls of 4 KB tool results make 100 MB. Written span by span, never held whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BASE_NS = 1_796_000_000_000_000_000


def _attribute(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def agent_span(number: int, conversation: list[dict[str, Any]]) -> dict[str, Any]:
    """Inference span `number`: the conversation so far in, a call of the `read` tool out."""
    call = {"type": "tool_call", "id": f"call_{number}", "name": "read", "arguments": {"n": number}}
    output = [{"role": "assistant", "parts": [call], "finish_reason": "tool_call"}]
    start = BASE_NS + number * 1_000_000_000
    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": f"{number + 1:016x}",
        "name": "chat gpt-4o-mini",
        "kind": 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 400_000_000),
        "attributes": [
            _attribute("gen_ai.operation.name", "chat"),
            _attribute("gen_ai.provider.name", "openai"),
            _attribute("gen_ai.request.model", "gpt-4o-mini"),
            _attribute("gen_ai.usage.input_tokens", 100 + number),
            _attribute("gen_ai.usage.output_tokens", 7),
            _attribute("gen_ai.input.messages", json.dumps(conversation)),
            _attribute("gen_ai.output.messages", json.dumps(output)),
        ],
    }


def write_agent_trace(path: Path, calls: int, result_bytes: int) -> Path:
    """An OTLP/JSON trace of `calls` inference spans, each tool result `result_bytes` long."""
    conversation: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"type": "text", "content": "read every file"}]}
    ]
    with path.open("w", encoding="utf-8") as out:
        out.write('{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[')
        for number in range(calls):
            if number:
                out.write(",")
            out.write(json.dumps(agent_span(number, conversation)))
            call = {"type": "tool_call", "id": f"call_{number}", "name": "read"}
            conversation.append(
                {"role": "assistant", "parts": [{**call, "arguments": {"n": number}}]}
            )
            line = f"file {number}: " + "lorem ipsum dolor sit amet " * (result_bytes // 27 + 1)
            response = {"type": "tool_call_response", "id": f"call_{number}"}
            conversation.append(
                {"role": "tool", "parts": [{**response, "response": line[:result_bytes]}]}
            )
        out.write("]}]}]}\n")
    return path
