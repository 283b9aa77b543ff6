"""A deterministic provider that plays scripted responses: for examples, demos and tests.

It needs no credentials and opens no socket. Each call plays one response, a list of steps
(`text`, `thinking`, `tool_call`); a responder function may pick the response from the context.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from openprogram.providers.accumulator import MessageAccumulator
from openprogram.providers.api_provider import ApiProvider
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultMessage,
    Usage,
    UserMessage,
)


class TextStep(BaseModel):
    """Answer with `text`, streamed word by word."""

    text: str


class ThinkingStep(BaseModel):
    """Think `thinking`, streamed word by word."""

    thinking: str


class ToolCallStep(BaseModel):
    """Call tool `name` with `arguments`; the arguments JSON is streamed in small pieces."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None


ScriptStep = TextStep | ThinkingStep | ToolCallStep
ScriptedResponse = Sequence[ScriptStep]
Responder = Callable[[Context, int], ScriptedResponse]
"""Given the context and the provider's call number (from 0), return the response to play."""


def _pieces(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text) or [""]


def echo_responder(context: Context, call_number: int) -> ScriptedResponse:
    """The built-in script: call the `echo` tool with the user's text, then answer with its result.

    With no `echo` tool offered it answers "ok: <user text>" directly.
    """
    last = context.messages[-1] if context.messages else None
    if isinstance(last, ToolResultMessage):
        text = "".join(b.text for b in last.content if isinstance(b, TextContent))
        return [ThinkingStep(thinking="The tool answered; report it."), TextStep(text=text)]
    said = ""
    if isinstance(last, UserMessage):
        said = (
            last.content
            if isinstance(last.content, str)
            else " ".join(b.text for b in last.content if isinstance(b, TextContent))
        )
    if any(tool.name == "echo" for tool in context.tools or []):
        return [
            ThinkingStep(thinking="I should use the echo tool."),
            ToolCallStep(name="echo", arguments={"text": said}),
        ]
    return [TextStep(text=f"ok: {said}")]


class ScriptedProvider(ApiProvider):
    """Plays `responses` in order (one per call), or asks `responder` for each call's response.

    `stream_simple` is `stream`: a script has no use for a reasoning effort.
    """

    requires_credentials = False

    def __init__(
        self,
        responses: Sequence[ScriptedResponse] | None = None,
        *,
        responder: Responder | None = None,
    ) -> None:
        if (responses is None) == (responder is None):
            raise ValueError("give exactly one of responses or responder")
        self._responses = list(responses or [])
        self._responder = responder
        self.call_count = 0

    def _next_response(self, context: Context) -> ScriptedResponse:
        number = self.call_count
        self.call_count += 1
        if self._responder is not None:
            return self._responder(context, number)
        if number >= len(self._responses):
            raise IndexError(
                f"scripted provider has {len(self._responses)} responses; call {number} has none"
            )
        return self._responses[number]

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Play the next response as a stream of events ending in `done`."""
        response = self._next_response(context)
        partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        accumulator = MessageAccumulator()
        events = _events_for(partial, response, self.call_count - 1)
        for event in events:
            accumulator.apply(event)
            yield event
        message = accumulator.message
        assert message is not None
        uses_tool = any(isinstance(block, ToolCall) for block in message.content)
        reason: Literal["stop", "toolUse"] = "toolUse" if uses_tool else "stop"
        message.stop_reason = reason
        message.usage = _usage_for(context, message)
        yield DoneEvent(reason=reason, message=message)


def _events_for(
    partial: AssistantMessage, response: ScriptedResponse, call_number: int
) -> list[AssistantMessageEvent]:
    """Every event of one response except the final `done`."""
    events: list[AssistantMessageEvent] = [StartEvent(partial=partial)]
    for index, step in enumerate(response):
        if isinstance(step, TextStep):
            events.append(TextStartEvent(content_index=index))
            events += [TextDeltaEvent(content_index=index, delta=p) for p in _pieces(step.text)]
            events.append(TextEndEvent(content_index=index, content=step.text))
        elif isinstance(step, ThinkingStep):
            events.append(ThinkingStartEvent(content_index=index))
            events += [
                ThinkingDeltaEvent(content_index=index, delta=p) for p in _pieces(step.thinking)
            ]
            events.append(ThinkingEndEvent(content_index=index, content=step.thinking))
        else:
            call_id = step.id or f"call_{call_number}_{index}"
            arguments = json.dumps(step.arguments, sort_keys=True)
            events.append(ToolCallStartEvent(content_index=index, id=call_id, name=step.name))
            events += [
                ToolCallDeltaEvent(content_index=index, delta=arguments[i : i + 8])
                for i in range(0, len(arguments), 8)
            ]
            tool_call = ToolCall(id=call_id, name=step.name, arguments=step.arguments)
            events.append(ToolCallEndEvent(content_index=index, tool_call=tool_call))
    return events


def _usage_for(context: Context, message: AssistantMessage) -> Usage:
    # Deterministic, roughly word-sized counts so demos show plausible usage.
    prompt = context.model_dump_json(exclude={"messages": {"__all__": {"timestamp"}}})
    answer = message.model_dump_json(include={"content"})
    input_tokens, output_tokens = len(prompt.split()), len(answer.split())
    return Usage(
        input=input_tokens, output=output_tokens, total_tokens=input_tokens + output_tokens
    )
