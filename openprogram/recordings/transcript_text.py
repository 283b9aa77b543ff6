"""A recording as a stable, readable transcript: one block per call (for `git diff` textconv).

The same recording always prints the same text: no timestamps, no paths, no sizes; only what the
calls asked (model, the last message) and what they answered (text, thinking, tool calls, stop
reason, tokens), so a re-recorded test shows in review as what the model now says.
"""

from __future__ import annotations

import json
import os
from typing import Any

from openprogram.providers.recording.reader import RecordedCall, verify_recording
from openprogram.recordings.diff import Answer
from openprogram.text import plural


def _one_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "image":
                parts.append("[image]")
    return "\n".join(parts)


def _quoted(prefix: str, text: str) -> list[str]:
    lines = text.splitlines() or [""]
    return [f"{prefix}{lines[0]}", *(f"{' ' * len(prefix)}{line}" for line in lines[1:])]


def transcript_text(path: str | os.PathLike[str]) -> str:
    """The transcript of the recording at `path` as text (validated as strictly as replay reads
    it; each call's block is written as the call is read, and only the text is kept)."""
    blocks: dict[int, list[str]] = {}

    def block(call: RecordedCall) -> None:
        blocks[call.call_index] = _call_block(call)

    scan = verify_recording(path, each=block)
    assert scan.header is not None
    version = scan.header.format_version
    out = [f"# openprogram recording · format {version} · {plural(len(blocks), 'call')}"]
    for index in sorted(blocks):
        out += blocks[index]
    return "\n".join(out) + "\n"


def _call_block(call: RecordedCall) -> list[str]:
    model = call.model
    out = [
        "",
        f"## call {call.call_index} · {model.get('provider')}/{model.get('id')} · {call.outcome}",
    ]
    context = call.request.context  # built once per call, in order: the chain's memo
    messages = context.get("messages") or []
    if call.call_index == 0 and context.get("system_prompt"):
        out += _quoted("system> ", str(context["system_prompt"]))
    if messages:
        last = messages[-1]
        role = last.get("role", "?")
        if role == "toolResult":
            out += _quoted(f"tool {last.get('tool_name')}> ", _one_text(last.get("content")))
        else:
            out += _quoted(f"{role}> ", _one_text(last.get("content")))
    answer = Answer.of(call)
    if answer.thinking:
        out += _quoted("thinking< ", answer.thinking)
    if answer.text:
        out += _quoted("assistant< ", answer.text)
    for name, arguments in answer.tool_calls:
        out.append(f"tool call< {name} {json.dumps(arguments, sort_keys=True, ensure_ascii=False)}")
    if answer.error:
        out += _quoted("error< ", answer.error)
    usage = answer.usage
    out.append(f"stop< {answer.stop_reason} · tokens {usage.input} in / {usage.output} out")
    return out
