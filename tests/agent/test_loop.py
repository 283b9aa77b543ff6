from __future__ import annotations

from pathlib import Path

import pytest

from openprogram.agent import (
    AgentAnswerBrokeError,
    AgentTool,
    AgentTurnLimitError,
    echo_tool,
    run_agent_loop,
)
from openprogram.providers import (
    Context,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    register_api_provider,
)
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.replayer import ReplayProvider
from openprogram.providers.recording.stream_faults import StreamFault
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import (
    ScriptedProvider,
    TextStep,
    ToolCallStep,
    echo_responder,
)
from tests.helpers import SCRIPTED_MODEL, run_echo_agent


async def test_echo_loop_makes_a_tool_call_then_answers_with_its_result() -> None:
    run = await run_echo_agent("hi")
    assert run.call_count == 2
    first, tool_result, _final = run.context.messages[1:]
    assert first.role == "assistant" and first.stop_reason == "toolUse"
    assert next(b for b in first.content if isinstance(b, ToolCall)).arguments == {"text": "hi"}
    assert isinstance(tool_result, ToolResultMessage) and not tool_result.is_error
    assert tool_result.content == [TextContent(text="echo:hi")]
    assert run.final_message.stop_reason == "stop"
    assert [b.text for b in run.final_message.content if isinstance(b, TextContent)] == ["echo:hi"]


async def test_the_given_context_is_not_modified() -> None:
    context = Context(messages=[UserMessage(content="hi")])
    await run_agent_loop(SCRIPTED_MODEL, context, [])
    assert len(context.messages) == 1


async def test_a_failing_tool_becomes_an_error_result_and_the_loop_goes_on() -> None:
    def broken(text: str) -> str:
        raise ValueError("disk on fire")

    tool = AgentTool(name="echo", description="", function=broken)
    run = await run_agent_loop(SCRIPTED_MODEL, Context(messages=[UserMessage(content="x")]), [tool])
    result = run.context.messages[2]
    assert isinstance(result, ToolResultMessage) and result.is_error
    assert result.content == [TextContent(text="ValueError: disk on fire")]
    assert run.call_count == 2


async def test_an_unknown_tool_is_reported_to_the_model_not_raised() -> None:
    register_api_provider(
        "scripted",
        ScriptedProvider([[ToolCallStep(name="nope", arguments={})], [TextStep(text="ok")]]),
    )
    run = await run_agent_loop(SCRIPTED_MODEL, Context(messages=[UserMessage(content="x")]), [])
    result = run.context.messages[2]
    assert isinstance(result, ToolResultMessage) and result.is_error
    assert "unknown tool 'nope'" in result.content[0].text  # type: ignore[union-attr]


async def test_the_number_of_turns_is_bounded() -> None:
    looping = ScriptedProvider(
        responder=lambda context, n: [ToolCallStep(name="echo", arguments={"text": str(n)})]
    )
    register_api_provider("scripted", looping)
    tool = AgentTool(name="echo", description="", function=lambda text: text)
    with pytest.raises(AgentTurnLimitError, match="after 3 model calls"):
        await run_agent_loop(
            SCRIPTED_MODEL, Context(messages=[UserMessage(content="x")]), [tool], max_turns=3
        )
    assert looping.call_count == 3


async def test_an_answer_cut_mid_tool_call_raises_and_never_runs_the_tool(tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    sink = RecordingSink(path)
    register_api_provider(
        "scripted", RecordingProvider(ScriptedProvider(responder=echo_responder), sink)
    )
    await run_echo_agent("hi")
    sink.close()
    events = read_recording(path).calls[0].events
    mid = [e.type for e in events].index("toolcall_delta")  # after the first piece of arguments

    ran: list[str] = []
    tool = echo_tool(lambda text: ran.append(text) or f"echo:{text}")
    for kind in ("cut", "error"):
        register_api_provider(
            "scripted", ReplayProvider(path, fault=StreamFault(kind=kind, event=mid))
        )
        context = Context(system_prompt="You echo.", messages=[UserMessage(content="hi")])
        with pytest.raises(AgentAnswerBrokeError) as broke:
            await run_agent_loop(SCRIPTED_MODEL, context, [tool])
        assert broke.value.turn == 0 and broke.value.partial.stop_reason == "error"
        assert [b.type for b in broke.value.partial.content][-1] == "toolCall"
    assert ran == []
