"""The recorder writes the same bytes whatever it remembers from the call before.

The recorder keeps the stored form of the previous call's messages so that a call costs what it
adds; these tests pin that the file is byte for byte the one a recorder remembering nothing writes
(each call's request dumped, redacted and scrubbed whole), and the bytes of one fixed session.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from openprogram.providers import Context, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.recorder import request_payload
from openprogram.providers.recording.rules import MatchingRules, ScrubRule, scrub_value
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    Message,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    Tool,
    ToolCall,
    ToolResultMessage,
)
from tests.helpers import SCRIPTED_MODEL

KEY = "sk-proj-" + "Q1w2E3r4" * 6
RULES = MatchingRules(
    scrub=(
        ScrubRule(path="**", regex=r"customer-\d+", replace="customer-N"),
        ScrubRule(
            path="context.messages[2].content[*].text", regex=r"contents", replace="CONTENTS"
        ),
    )
)


def answer(call: int) -> AssistantMessage:
    return AssistantMessage(
        content=[
            TextContent(text=f"step {call}"),
            ToolCall(id=f"c{call}", name="read", arguments={"path": f"f{call}.py"}),
        ],
        api=SCRIPTED_MODEL.api,
        provider=SCRIPTED_MODEL.provider,
        model=SCRIPTED_MODEL.id,
        stop_reason="toolUse",
        timestamp=1,
    )


class FixedProvider:
    """Answers call k with five fixed events ending in `answer(k)`."""

    requires_credentials = False

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, model: Any, context: Any, options: Any = None) -> AsyncIterator[Any]:
        call, self.calls = self.calls, self.calls + 1
        partial = AssistantMessage(
            api=model.api, provider=model.provider, model=model.id, timestamp=1
        )
        events: list[AssistantMessageEvent] = [
            StartEvent(partial=partial),
            TextStartEvent(content_index=0),
            TextDeltaEvent(content_index=0, delta=f"step {call}"),
            TextEndEvent(content_index=0, content=f"step {call}"),
            DoneEvent(reason="toolUse", message=answer(call)),
        ]
        for event in events:
            yield event

    stream_simple = stream


def result(call: int, text: str) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=f"c{call}",
        tool_name="read",
        content=[TextContent(text=text)],
        timestamp=1,
    )


def fixed_clock() -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: next(ticks) * 0.01


def run_session(path: Path, *, one_recorder: bool) -> list[dict[str, Any]]:
    """A 24-call agent session with every way a conversation changes between calls, through one
    recorder or a new recorder per call (which remembers nothing); returns each call's request
    stored whole (dumped, redacted and scrubbed)."""
    sink = RecordingSink(path, clock=fixed_clock())
    provider = FixedProvider()
    recorder = RecordingProvider(provider, sink, rules=RULES)
    sent: list[dict[str, Any]] = []

    async def run() -> None:
        nonlocal recorder
        messages: list[Message] = [UserMessage(content="fix alpha for customer-12", timestamp=1)]
        system, options = "Be brief.", None
        tools = [Tool(name="read", description="read a file")]
        for call in range(24):
            step = call % 8
            if step == 1:
                messages.append(UserMessage(content=f"use {KEY} alpha", timestamp=1))
            elif step == 2:  # the same object, a field changed in place
                messages[1].timestamp += 1
            elif step == 3:  # an equal message, a new object
                messages[2] = messages[2].model_copy()
            elif step == 4:  # the conversation rebuilt from its dumps: equal, all new objects
                messages = [type(m).model_validate(m.model_dump()) for m in messages]
            elif step == 5:
                del messages[3]
            elif step == 6:
                system = f"Be brief ({call})."
            elif step == 7:
                options = StreamOptions(temperature=call / 10)
            context = Context(system_prompt=system, messages=list(messages), tools=tools)
            if not one_recorder:
                recorder = RecordingProvider(provider, sink, rules=RULES)
            sent.append(scrub_value(request_payload(SCRIPTED_MODEL, context, options), RULES.scrub))
            final = None
            async for event in recorder.stream(SCRIPTED_MODEL, context, options):
                if isinstance(event, DoneEvent):
                    final = event.message
            assert final is not None
            messages += [final, result(call, f"contents of f{call}.py for customer-{call}")]

    asyncio.run(run())
    sink.close()
    return sent


def test_the_recorder_writes_what_a_recorder_remembering_nothing_writes(tmp_path: Path) -> None:
    one = tmp_path / "one recorder.jsonl"
    fresh = tmp_path / "a recorder per call.jsonl"
    sent = run_session(one, one_recorder=True)
    assert run_session(fresh, one_recorder=False) == sent
    assert one.read_bytes() == fresh.read_bytes()
    assert [call.request_payload() for call in read_recording(one).calls] == sent
    assert KEY not in one.read_text() and "customer-12" not in one.read_text()


SESSION_SHA256 = "530d7670d9553c64aee691f3eae441d9517266ee746e2db66b0e5222ac8ac254"


def test_the_bytes_of_a_fixed_session_are_pinned(tmp_path: Path) -> None:
    """Recording format 2's bytes for one session, pinned (taken before the recorder kept the
    previous call's stored messages): a change here is a change of what users' files hold."""
    path = tmp_path / "r.jsonl"
    run_session(path, one_recorder=True)
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SESSION_SHA256, len(data)


def test_a_message_edited_in_place_is_recorded_as_it_was_sent(tmp_path: Path) -> None:
    """Agents trim their context in place (an old tool result cleared, a block appended): the file
    holds each request as it was sent, whatever the recorder remembers of the call before."""
    path = tmp_path / "edited.jsonl"
    sink = RecordingSink(path, clock=fixed_clock())
    recorder = RecordingProvider(FixedProvider(), sink)
    messages: list[Message] = [UserMessage(content="go", timestamp=1)]

    async def run() -> None:
        for call in range(4):
            if call == 2:
                block = messages[2].content[0]
                assert isinstance(block, TextContent)
                block.text = "[cleared]"  # the first tool result, cleared in place
            if call == 3:
                tool_result = messages[2]
                assert isinstance(tool_result, ToolResultMessage)
                tool_result.content.append(TextContent(text="appended"))  # its list, grown
            context = Context(system_prompt="s", messages=list(messages))
            final = None
            async for event in recorder.stream(SCRIPTED_MODEL, context, None):
                if isinstance(event, DoneEvent):
                    final = event.message
            assert final is not None
            messages.extend([final, result(call, f"contents of f{call}.py")])

    asyncio.run(run())
    sink.close()
    sent = [call.request.context["messages"] for call in read_recording(path).calls]
    assert sent[1][2]["content"] == [{"type": "text", "text": "contents of f0.py"}]
    assert sent[2][2]["content"] == [{"type": "text", "text": "[cleared]"}]
    assert sent[3][2]["content"] == [
        {"type": "text", "text": "[cleared]"},
        {"type": "text", "text": "appended"},
    ]
