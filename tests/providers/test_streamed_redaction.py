"""No row of a recording holds a secret that the whole assembled value would have had removed,
however the stream split it; and the recorded deltas still fold to the recorded answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openprogram.providers import (
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
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UserMessage,
)
from openprogram.providers.accumulator import assemble_message
from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.rules import MatchingRules, ScrubRule
from openprogram.providers.replay import ReplayMismatch, ReplayProvider
from openprogram.providers.stream import drain
from tests.real_sse import require_folder
from tests.sse_server import SSEServer, sse_response

MODEL = Model(id="m", api="scripted", provider="scripted")
CONTEXT = Context(messages=[UserMessage(content="go", timestamp=1)])


class PiecesProvider:
    """Streams one text block, or one tool call, in exactly the pieces given (the vendor's cut)."""

    requires_credentials = False

    def __init__(self, pieces: list[str], *, tool: bool = False) -> None:
        self.pieces, self.tool = pieces, tool

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        whole = "".join(self.pieces)
        partial = AssistantMessage(api="scripted", provider="scripted", model="m", timestamp=1)
        yield StartEvent(partial=partial)
        if self.tool:
            yield ToolCallStartEvent(content_index=0, id="call_1", name="login")
            for piece in self.pieces:
                yield ToolCallDeltaEvent(content_index=0, delta=piece)
            call = ToolCall(id="call_1", name="login", arguments=json.loads(whole))
            yield ToolCallEndEvent(content_index=0, tool_call=call)
            content: list[TextContent | ToolCall] = [call]
            reason = "toolUse"
        else:
            yield TextStartEvent(content_index=0)
            for piece in self.pieces:
                yield TextDeltaEvent(content_index=0, delta=piece)
            yield TextEndEvent(content_index=0, content=whole)
            content, reason = [TextContent(text=whole)], "stop"
        message = partial.model_copy(update={"content": content, "stop_reason": reason})
        yield DoneEvent(reason=reason, message=message)

    stream_simple = stream


async def record(
    path: Path, provider: PiecesProvider | OpenAICompletionsProvider, model: Model = MODEL
) -> AssistantMessage:
    recorder = RecordingProvider(provider, path)
    try:
        return await drain(recorder.stream(model, CONTEXT))
    finally:
        recorder.sink.close()


def assert_replay_folds_to_the_recorded_answer(path: Path) -> None:
    """The recorded deltas fold (with the one accumulator) to the recorded end rows and `done`."""
    (call,) = read_recording(path).calls
    done = call.events[-1]
    assert isinstance(done, DoneEvent)
    folded = assemble_message(call.events[:-1])
    assert folded is not None
    assert [b.model_dump() for b in folded.content] == [
        b.model_dump() for b in done.message.content
    ]


KEY = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789"
TOKEN = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMTIzNDU2"


@pytest.mark.parametrize("secret", [KEY, TOKEN])
async def test_a_key_split_across_two_text_deltas_is_never_in_the_file(
    tmp_path: Path, secret: str
) -> None:
    cut = len(secret) // 2
    pieces = [f"use {secret[:cut]}", f"{secret[cut:]} to log in"]
    path = tmp_path / "split.jsonl"
    live = await record(path, PiecesProvider(pieces))
    assert secret in live.content[0].text  # type: ignore[union-attr]  # the caller sees it all
    data = path.read_text()
    assert secret not in data and secret[:cut] not in data and secret[cut:] not in data
    assert "[secret removed]" in data
    assert_replay_folds_to_the_recorded_answer(path)


async def test_text_without_a_secret_keeps_its_deltas_as_they_came(tmp_path: Path) -> None:
    pieces = ["The key ", "point is ", "tokens."]
    path = tmp_path / "plain.jsonl"
    await record(path, PiecesProvider(pieces))
    (call,) = read_recording(path).calls
    assert [e.delta for e in call.events if isinstance(e, TextDeltaEvent)] == pieces


async def test_a_piece_that_only_looks_like_a_key_alone_is_kept_and_still_folds(
    tmp_path: Path,
) -> None:
    """`ma` + `sk-proj-…`: the whole word `mask-proj-…` is no key (a key starts a word), but its
    second piece alone starts with `sk-proj-`. The whole is what is judged: redacting the piece
    alone wrote `ma[secret removed]` as deltas beside `mask-proj-…` in the end row and `done`."""
    pieces = ["the ma", KEY]
    whole = "".join(pieces)
    path = tmp_path / "word.jsonl"
    await record(path, PiecesProvider(pieces))
    (call,) = read_recording(path).calls
    assert [e.delta for e in call.events if isinstance(e, TextDeltaEvent)] == pieces
    assert whole in path.read_text()  # not a key: kept, as the end row keeps it
    assert_replay_folds_to_the_recorded_answer(path)


async def test_a_password_argument_streamed_in_pieces_is_never_in_the_file(tmp_path: Path) -> None:
    pieces = ['{"pa', "sswor", 'd": "m', "ello", 'n"}']
    path = tmp_path / "tool.jsonl"
    await record(path, PiecesProvider(pieces, tool=True))
    assert "mellon" not in path.read_text() and "ello" not in path.read_text()
    assert_replay_folds_to_the_recorded_answer(path)


async def test_the_real_parallel_tool_calls_with_passwords_leave_no_piece_in_the_file(
    tmp_path: Path,
) -> None:
    body = (require_folder() / "openai_parallel_tools_secret_arg.sse").read_bytes()
    path = tmp_path / "real.jsonl"
    with SSEServer() as server:
        server.respond(sse_response([body[i : i + 97] for i in range(0, len(body), 97)]))
        model = Model(
            id="gpt-4o", api="openai-completions", provider="openai", base_url=server.url + "/v1"
        )
        live = await record(path, OpenAICompletionsProvider(), model)
    passwords = [b.arguments["password"] for b in live.content if isinstance(b, ToolCall)]
    assert passwords == ["mellon", "radiance"]  # the caller gets the real answer
    data = path.read_text()
    for secret in ("mellon", "radiance", "ello", "adia"):
        assert secret not in data, secret
    assert_replay_folds_to_the_recorded_answer(path)
    replayed = await drain(ReplayProvider(path).stream(model, CONTEXT))
    assert [b.arguments for b in replayed.content if isinstance(b, ToolCall)] == [
        {"password": "[secret removed]"},
        {"password": "[secret removed]"},
    ]


SECRETS = st.sampled_from([KEY, TOKEN, "sk-ant-api03-" + "x9" * 20])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    before=st.text(alphabet="abc ,.\n", max_size=30),
    after=st.text(alphabet="abc ,.\n", max_size=30),
    secret=SECRETS,
    cuts=st.lists(st.integers(min_value=1, max_value=120), max_size=6),
    as_tool=st.booleans(),
)
def test_any_secret_split_anywhere_never_reaches_the_file(
    tmp_path_factory: pytest.TempPathFactory,
    before: str,
    after: str,
    secret: str,
    cuts: list[int],
    as_tool: bool,
) -> None:
    value = f"{before} {secret} {after}"
    whole = json.dumps({"note": value}) if as_tool else value
    points = sorted({c for c in cuts if c < len(whole)})
    pieces = [whole[a:b] for a, b in zip([0, *points], [*points, len(whole)], strict=True)]
    path = tmp_path_factory.mktemp("prop") / "r.jsonl"
    asyncio.run(record(path, PiecesProvider(pieces, tool=as_tool)))
    data = path.read_text()
    # not the secret, nor any 8 characters of it (the surrounding text cannot make those)
    assert [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in data] == []
    assert_replay_folds_to_the_recorded_answer(path)


EMAIL = ScrubRule(path="**", regex=r"[\w.+-]+@[\w-]+\.[\w.]+", replace="<email>")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cuts=st.lists(st.integers(min_value=1, max_value=60), max_size=5), as_tool=st.booleans())
def test_a_scrub_rule_removes_a_value_split_across_deltas(
    tmp_path_factory: pytest.TempPathFactory, cuts: list[int], as_tool: bool
) -> None:
    value = "write to ana.perez+work@example.org today"
    whole = json.dumps({"note": value}) if as_tool else value
    points = sorted({c for c in cuts if c < len(whole)})
    pieces = [whole[a:b] for a, b in zip([0, *points], [*points, len(whole)], strict=True)]
    path = tmp_path_factory.mktemp("scrub") / "r.jsonl"
    recorder = RecordingProvider(
        PiecesProvider(pieces, tool=as_tool), path, rules=MatchingRules(scrub=(EMAIL,))
    )
    asyncio.run(drain(recorder.stream(MODEL, CONTEXT)))
    recorder.sink.close()
    data = path.read_text()
    assert "example.org" not in data and "ana.perez" not in data and "<email>" in data
    assert_replay_folds_to_the_recorded_answer(path)


async def test_a_scrubbed_request_still_replays_against_the_real_value(tmp_path: Path) -> None:
    rules = MatchingRules(scrub=(EMAIL,))
    context = Context(messages=[UserMessage(content="mail bo@example.com", timestamp=1)])
    path = tmp_path / "r.jsonl"
    recorder = RecordingProvider(PiecesProvider(["ok"]), path, rules=rules)
    await drain(recorder.stream(MODEL, context))
    recorder.sink.close()
    assert "bo@example.com" not in path.read_text()
    replayed = await drain(ReplayProvider(path, rules=rules).stream(MODEL, context))
    assert replayed.content[0].text == "ok"  # type: ignore[union-attr]
    with pytest.raises(ReplayMismatch):  # without the rule, the scrubbed value differs
        await drain(ReplayProvider(path).stream(MODEL, context))
