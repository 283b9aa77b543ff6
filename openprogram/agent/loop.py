"""The agent loop: call the model, run the tools it asks for, send the results back, repeat."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from openprogram.agent.tools import AgentTool, run_tool
from openprogram.errors import OpenProgramError
from openprogram.providers.stream import drain, stream_simple
from openprogram.providers.types import (
    AssistantMessage,
    Context,
    Model,
    SimpleStreamOptions,
    ToolCall,
)

DEFAULT_MAX_TURNS = 16


class AgentTurnLimitError(OpenProgramError, RuntimeError):
    """The model kept asking for tools past `max_turns` calls."""

    def __init__(self, max_turns: int) -> None:
        self.max_turns = max_turns
        super().__init__(f"agent loop stopped after {max_turns} model calls without a final answer")


class AgentAnswerBrokeError(OpenProgramError, RuntimeError):
    """The model's answer did not finish: its stream ended in an error (a dropped connection, a
    vendor error, a timeout) or was aborted. `partial` holds what arrived; no tool of it ran."""

    def __init__(self, partial: AssistantMessage, turn: int) -> None:
        self.partial = partial
        self.turn = turn
        reason = partial.error_message or partial.stop_reason
        super().__init__(f"the model's answer to call {turn} did not finish: {reason}")


@dataclass
class AgentRun:
    """The outcome of one loop: the whole conversation, the last answer and how many calls it took."""

    context: Context
    final_message: AssistantMessage
    call_count: int


async def run_agent_loop(
    model: Model,
    context: Context,
    tools: Sequence[AgentTool] = (),
    options: SimpleStreamOptions | None = None,
    *,
    max_turns: int = DEFAULT_MAX_TURNS,
    on_message: Callable[[AssistantMessage], None] | None = None,
) -> AgentRun:
    """Run `model` until it stops asking for tools; the given `context` is not modified.

    Each turn is one `stream_simple` call; every tool call of a `toolUse` answer runs in order and its
    `ToolResultMessage` is appended before the next call. An answer whose stream broke (stop
    reason `error` or `aborted`) raises `AgentAnswerBrokeError`: it is never the run's final
    answer, and no tool call of it runs (a call cut mid-arguments would run with half of them).
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    by_name = {tool.name: tool for tool in tools}
    conversation = context.model_copy(deep=True)
    if tools:
        conversation.tools = [tool.definition() for tool in tools]
    for turn in range(max_turns):
        message = await drain(stream_simple(model, conversation, options))
        conversation.messages.append(message)
        if on_message is not None:
            on_message(message)
        if message.stop_reason in ("error", "aborted"):
            raise AgentAnswerBrokeError(message, turn)
        calls = [block for block in message.content if isinstance(block, ToolCall)]
        if message.stop_reason != "toolUse" or not calls:
            return AgentRun(conversation, message, turn + 1)
        for call in calls:
            conversation.messages.append(await run_tool(by_name, call))
    raise AgentTurnLimitError(max_turns)
