"""Record a real agent loop through the public boundary, then replay it offline."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from openprogram.providers import register_api_provider
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.replay import ReplayMismatch, ReplayProvider
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from tests.helpers import run_echo_agent
from tests.recording_files import write_recording


async def record_echo(path: Path, said: str = "hi") -> str:
    register_api_provider(
        "scripted", RecordingProvider(ScriptedProvider(responder=echo_responder), path)
    )
    run = await run_echo_agent(said)
    return run.final_message.content[-1].text  # type: ignore[union-attr]


async def test_record_then_replay_gives_the_same_answer_without_any_socket(
    tmp_path: Path, sockets_blocked: list[object]
) -> None:
    path = tmp_path / "echo.jsonl"
    recorded_answer = await record_echo(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    replay = ReplayProvider(path)
    register_api_provider("scripted", replay)
    run = await run_echo_agent("hi")
    assert run.final_message.content[-1].text == recorded_answer == "echo:hi"  # type: ignore[union-attr]
    assert replay.call_count == 2
    replay.assert_consumed()
    assert sockets_blocked == []


async def test_a_changed_tool_result_names_call_1_and_the_exact_field(tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    await record_echo(path)
    replay = ReplayProvider(path)
    register_api_provider("scripted", replay)
    with pytest.raises(ReplayMismatch) as caught:
        await run_echo_agent("hi", prefix="echo:b")  # the tool now answers echo:bhi
    mismatch = caught.value
    assert mismatch.call_index == 1
    assert mismatch.field_path == "context.messages[2].content[0].text"
    assert mismatch.report.path_tokens == ["context", "messages", 2, "content", 0, "text"]
    assert (mismatch.recorded, mismatch.incoming) == ("echo:hi", "echo:bhi")
    assert str(mismatch) == (
        "replay mismatch at call 1, field context.messages[2].content[0].text:\n"
        "recorded 'echo:hi', incoming 'echo:bhi'"
    )
    assert replay.call_count == 1, "a mismatch does not consume the recorded call"


async def test_echo_bye_mismatches_at_call_1_on_the_tool_result_text(tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    await record_echo(path)
    register_api_provider("scripted", ReplayProvider(path))

    from openprogram.agent import echo_tool, run_agent_loop
    from openprogram.providers import Context, UserMessage
    from tests.helpers import SCRIPTED_MODEL

    changed = echo_tool(lambda text: "echo:bye")
    context = Context(system_prompt="You echo.", messages=[UserMessage(content="hi")])
    with pytest.raises(ReplayMismatch) as caught:
        await run_agent_loop(SCRIPTED_MODEL, context, [changed])
    assert str(caught.value) == (
        "replay mismatch at call 1, field context.messages[2].content[0].text:\n"
        "recorded 'echo:hi', incoming 'echo:bye'"
    )


async def test_recorded_rows_are_sorted_compact_and_grouped_by_call(tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    await record_echo(path)
    lines = path.read_bytes().splitlines()
    rows = [json.loads(line) for line in lines]
    assert rows[0] == {"format_version": 2, "type": "header"}
    for line, row in zip(lines, rows, strict=True):
        assert line.decode() == json.dumps(
            row, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
    kinds = [row["type"] for row in rows]
    assert kinds.count("request") == 2 and kinds.count("call_end") == 2
    recording = read_recording(path)
    assert [call.outcome for call in recording.calls] == ["complete", "complete"]
    assert [len(c.events) for c in recording.calls] == [
        row["event_count"] for row in rows if row["type"] == "call_end"
    ]


async def test_running_past_the_end_names_how_many_calls_were_recorded(tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    await record_echo(path)
    register_api_provider("scripted", ReplayProvider(path))
    await run_echo_agent("hi")
    with pytest.raises(ReplayMismatch) as caught:
        await run_echo_agent("hi")
    # The seed's field path: the call index itself is past the end (issue #27, item 15).
    assert (caught.value.kind, caught.value.field_path) == ("extra_call", "call_index")
    assert caught.value.call_index == 2
    assert str(caught.value) == (
        "replay mismatch at call 2:\n"
        "the recording has 2 calls; the run made call 2 (more calls than were recorded)"
    )
    assert caught.value.report.path_tokens == []


async def test_assert_consumed_names_the_calls_never_requested(tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    await record_echo(path)
    replay = ReplayProvider(path)
    with pytest.raises(ReplayMismatch) as caught:
        replay.assert_consumed()
    assert (caught.value.kind, caught.value.field_path) == ("unconsumed", None)
    assert "calls 0–1 never requested" in str(caught.value)


def test_assert_consumed_counts_one_recorded_call_in_the_singular(tmp_path: Path) -> None:
    replay = ReplayProvider(write_recording(tmp_path / "one.jsonl", ["hi"]))
    with pytest.raises(ReplayMismatch) as caught:
        replay.assert_consumed()
    assert "recorded 1 call, the run made 0: call 0 never requested" in str(caught.value)


async def test_replay_never_needs_credentials_and_ignores_timestamps(tmp_path: Path) -> None:
    path = tmp_path / "echo.jsonl"
    await record_echo(path)
    assert ReplayProvider(path).requires_credentials is False
    # a second run has new timestamps everywhere, yet matches
    register_api_provider("scripted", ReplayProvider(path))
    run = await run_echo_agent("hi")
    assert run.call_count == 2
