"""Messages sent again (`sent_again`): any change made in place is seen.

The recorder reuses the stored form of a message whose dump is the same as last time's; replay
skips the leading messages that are the very objects of the last call, holding the very values
(`UnchangedMessages`). These tests make every kind of in-place edit an
agent can make between calls and check that the file holds each request as sent (the same as a
dump of the whole request at that moment), that replaying the same session is green, and that a
replay whose session edits a message differently fails on that call and field.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from openprogram.providers import Context, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.check_protocol import AbsorbedRow, ReportRow
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.recorder import request_payload
from openprogram.providers.recording.replayer import ReplayProvider
from openprogram.providers.recording.rules import IgnoreRule, MatchingRules
from openprogram.providers.recording.sent_again import UnchangedMessages
from openprogram.providers.replay import ReplayMismatch
from openprogram.providers.types import (
    AssistantMessage,
    DoneEvent,
    Message,
    StartEvent,
    TextContent,
    ToolCall,
    ToolResultMessage,
)
from tests.helpers import SCRIPTED_MODEL


def answer(call: int) -> AssistantMessage:
    return AssistantMessage(
        content=[
            TextContent(text=f"step {call}"),
            ToolCall(id=f"c{call}", name="read", arguments={"path": f"f{call}.py", "n": 1}),
        ],
        api=SCRIPTED_MODEL.api,
        provider=SCRIPTED_MODEL.provider,
        model=SCRIPTED_MODEL.id,
        stop_reason="toolUse",
        timestamp=1,
    )


class Answers:
    """Answers call k with a start and a done event carrying `answer(k)`."""

    requires_credentials = False

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, model: Any, context: Any, options: Any = None) -> AsyncIterator[Any]:
        call, self.calls = self.calls, self.calls + 1
        yield StartEvent(
            partial=AssistantMessage(api="scripted", provider="scripted", model="m", timestamp=1)
        )
        yield DoneEvent(reason="toolUse", message=answer(call))

    stream_simple = stream


def result(call: int) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=f"c{call}",
        tool_name="read",
        content=[TextContent(text=f"contents of f{call}.py")],
        timestamp=1,
    )


def _assistant(messages: list[Message], place: int) -> AssistantMessage | None:
    found = [m for m in messages[:place] if isinstance(m, AssistantMessage)]
    return found[-1] if found else None


def _result(messages: list[Message], place: int) -> ToolResultMessage | None:
    found = [m for m in messages[:place] if isinstance(m, ToolResultMessage)]
    return found[-1] if found else None


def edit(messages: list[Message], kind: str, place: int) -> None:
    """One in-place edit of the conversation, of `kind`, on a message before `place`."""
    said, tool = _assistant(messages, place), _result(messages, place)
    if kind == "text" and tool is not None:
        block = tool.content[0]
        assert isinstance(block, TextContent)
        block.text = "[cleared]"
    elif kind == "block appended" and tool is not None:
        tool.content.append(TextContent(text="more"))
    elif kind == "block replaced" and tool is not None:
        tool.content[0] = TextContent(text="replaced")
    elif kind == "argument" and said is not None:
        call = said.content[1]
        assert isinstance(call, ToolCall)
        call.arguments["path"] = "other.py"
    elif kind == "1 becomes True" and said is not None:
        call = said.content[1]
        assert isinstance(call, ToolCall)
        call.arguments["n"] = True  # equal to 1 in Python, `true` in JSON
    elif kind == "usage" and said is not None:
        said.usage.input += 7
    elif kind == "field" and tool is not None:
        tool.is_error = True
    elif kind == "copy" and place:
        messages[place - 1] = messages[place - 1].model_copy(deep=True)
    elif kind == "removed" and len(messages) > 2:
        del messages[1]
    elif kind == "appended":
        messages.append(UserMessage(content="and also", timestamp=1))


EDITS = [
    "text",
    "block appended",
    "block replaced",
    "argument",
    "1 becomes True",
    "usage",
    "field",
    "copy",
    "removed",
    "appended",
]


def run(provider: Any, plan: list[tuple[str, int]], seen: Callable[[Context], None]) -> None:
    """An agent session: before call k, the edit `plan[k]`; every call's context to `seen`."""

    async def go() -> None:
        messages: list[Message] = [UserMessage(content="go", timestamp=1)]
        for call, (kind, place) in enumerate(plan):
            edit(messages, kind, min(place, len(messages)))
            context = Context(system_prompt="s", messages=list(messages))
            seen(context)
            final = None
            async for event in provider.stream(SCRIPTED_MODEL, context, None):
                if isinstance(event, DoneEvent):
                    final = event.message
            assert final is not None
            messages.extend([final, result(call)])

    asyncio.run(go())


def exactly(request: dict[str, Any]) -> str:
    """The request as JSON with sorted keys: `1`, `1.0` and `true` stay apart (unlike `==`)."""
    return json.dumps(request, sort_keys=True)


plans = st.lists(st.tuples(st.sampled_from(["none", *EDITS]), st.integers(0, 40)), max_size=12)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plan=plans)
@example(plan=[("none", 0), ("none", 0), ("1 becomes True", 3), ("none", 0)])
@example(plan=[("none", 0), ("none", 0), ("text", 3), ("block appended", 3), ("usage", 9)])
def test_every_edit_made_in_place_is_recorded_and_replayed_as_sent(
    tmp_path_factory: pytest.TempPathFactory, plan: list[tuple[str, int]]
) -> None:
    path = tmp_path_factory.mktemp("edits") / "session.jsonl"
    recorder = RecordingProvider(Answers(), path)
    sent: list[dict[str, Any]] = []
    run(recorder, plan, lambda context: sent.append(request_payload(SCRIPTED_MODEL, context, None)))
    recorder.sink.close()
    stored = [exactly(call.request_payload()) for call in read_recording(path).calls]
    assert stored == [exactly(request) for request in sent]

    replay = ReplayProvider(path)
    run(replay, plan, lambda context: None)
    replay.assert_consumed()


@pytest.mark.parametrize("kind", [kind for kind in EDITS if kind not in ("copy",)])
def test_a_replay_that_edits_a_message_in_place_differently_fails_on_that_call(
    tmp_path: Path, kind: str
) -> None:
    """Recorded without the edit; replayed with it before call 4 (messages 0–6 sent three times
    already, unchanged): the mismatch names call 4, in `context.messages`."""
    path = tmp_path / "session.jsonl"
    recorder = RecordingProvider(Answers(), path)
    run(recorder, [("none", 0)] * 6, lambda context: None)
    recorder.sink.close()
    replay = ReplayProvider(path)
    with pytest.raises(ReplayMismatch) as raised:
        run(replay, [("none", 0)] * 4 + [(kind, 7)] + [("none", 0)], lambda context: None)
    report = raised.value.report
    assert report.call_index == 4
    assert report.field_path is not None and report.field_path.startswith("context.messages")


def test_differences_a_rule_absorbs_are_reported_on_every_call(tmp_path: Path) -> None:
    """A message that differs only where a rule ignores is never taken as settled: each call
    reports its absorbed difference again."""
    path = tmp_path / "session.jsonl"
    recorder = RecordingProvider(Answers(), path)
    run(recorder, [("none", 0)] * 5, lambda context: None)
    recorder.sink.close()
    rows: list[ReportRow] = []
    replay = ReplayProvider(
        path,
        rules=MatchingRules(ignore=(IgnoreRule(path="context.messages[1].usage.input"),)),
        on_report=rows.append,
    )
    run(replay, [("none", 0), ("none", 0), ("usage", 2), ("none", 0), ("none", 0)], lambda c: None)
    replay.assert_consumed()
    absorbed = [row.absorbed.call_index for row in rows if isinstance(row, AbsorbedRow)]
    assert absorbed == [2, 3, 4]


@pytest.mark.parametrize("kind", EDITS)
def test_the_count_stops_at_the_first_message_edited(kind: str) -> None:
    messages: list[Message] = [UserMessage(content="go", timestamp=1)]
    for call in range(4):
        messages += [answer(call), result(call)]
    unchanged = UnchangedMessages()
    unchanged.remember(messages, 0)
    unchanged.remember(messages, unchanged.count(messages))  # followed from the second call
    assert unchanged.count(messages) == len(messages)
    edited = list(messages)
    edit(edited, kind, 6)
    first = next(
        (n for n, (a, b) in enumerate(zip(messages, edited, strict=False)) if a is not b),
        min(len(messages), len(edited)),
    )
    if kind in ("copy", "removed", "appended"):
        assert unchanged.count(edited) == first  # a new object, or none, at that place
    else:
        edited_place = 5 if kind in ("usage", "argument", "1 becomes True") else 4
        assert unchanged.count(edited) == edited_place
