"""No step of redaction or of the secret scan recurses with its input's length: every entry point
returns on 100 KB of each repetitive shape (`a=a=…` once nested one level per `=`), and on values
nested as deep as a program can build them, while a user's program records."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openprogram.providers import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.recorder import describe_error
from openprogram.providers.recording.redaction import (
    SECRET_PLACEHOLDER,
    remove_secret_argv,
    remove_secret_text,
    remove_secret_values,
    secret_kinds,
)
from openprogram.providers.stream import drain
from openprogram.recordings.secret_scan import scan_file
from tests.providers.test_unfinished_block_redaction import CutShortProvider, Kind, Outcome

SHAPES = ["a=", "[", '{"', "\\\\", "Bearer "]
MODEL = Model(id="m", api="scripted", provider="scripted", headers={"X-Note": "n"})


def repeated(shape: str) -> str:
    """100 KB of `shape` again and again."""
    return shape * (100_000 // len(shape))


@pytest.mark.parametrize("shape", SHAPES)
def test_every_text_entry_point_returns_on_100_kb_of_a_repetitive_shape(shape: str) -> None:
    text = repeated(shape)
    assert remove_secret_text(text) == text  # none of the shapes holds a secret
    assert secret_kinds(text) == []
    assert remove_secret_argv(["agent", text, "--token", text]) == [
        "agent",
        text,
        "--token",
        SECRET_PLACEHOLDER,
    ]
    assert remove_secret_values({"note": text, text: [text, (text,)]}) == {
        "note": text,
        text: [text, (text,)],
    }
    assert describe_error(RuntimeError(text)).startswith("RuntimeError: ")


def test_a_secret_after_100_kb_of_assignments_is_still_removed() -> None:
    text = repeated("a=") + "&password=hunter2-deep"
    assert remove_secret_text(text) == repeated("a=") + f"&password={SECRET_PLACEHOLDER}"


def test_a_value_nested_deeper_than_the_interpreter_recurses_is_redacted() -> None:
    deep: list[object] = [{"password": "hunter2-deep", "note": "sk-proj-a1B2c3D4e5F6g7H8i9J0"}]
    for _level in range(100_000):
        deep = [deep]
    redacted = remove_secret_values({"arguments": {"tree": deep}})
    inner = redacted["arguments"]["tree"]
    for _level in range(100_000):
        (inner,) = inner
    assert inner == [{"password": SECRET_PLACEHOLDER, "note": SECRET_PLACEHOLDER}]


JSON_VALUES = st.recursive(
    st.none() | st.integers() | st.text(alphabet="abc", max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["content", "messages", "x"]), inner, max_size=3)
    ),
    max_leaves=10,
)


async def _record(path: Path, text: str, kind: Kind, outcome: Outcome) -> None:
    """One call whose request holds `text` in every kind of field, streaming `text` as a block."""
    context = Context(
        system_prompt=text,
        messages=[
            UserMessage(content=text, timestamp=1),
            AssistantMessage(
                api="scripted", provider="scripted", model="m", timestamp=2,
                content=[ToolCall(id="c1", name="read", arguments={"note": text, text: 1})],
            ),
            ToolResultMessage(
                tool_call_id="c1", tool_name="read", timestamp=3,
                content=[TextContent(text=text)],
            ),
        ],
    )  # fmt: skip
    options = StreamOptions(metadata={"note": text, text: 1})
    provider = CutShortProvider(kind, [text[:50_000], text[50_000:]], outcome)
    recorder = RecordingProvider(provider, path)
    try:
        await drain(recorder.stream(MODEL, context, options))
    finally:
        recorder.sink.close()


@pytest.mark.parametrize("outcome", ["length", "error"])
@pytest.mark.parametrize("kind", ["text", "thinking", "tool"])
@pytest.mark.parametrize("shape", SHAPES)
def test_recording_and_scanning_return_on_100_kb_of_a_repetitive_shape(
    tmp_path: Path, shape: str, kind: Kind, outcome: Outcome
) -> None:
    """The request (every field, keys too), the streamed block cut short and the file's scan."""
    path = tmp_path / "big.jsonl"
    asyncio.run(_record(path, repeated(shape), kind, outcome))
    (call,) = read_recording(path).calls
    assert call.outcome == "complete"
    assert scan_file(path).findings == []


@pytest.mark.parametrize("shape", SHAPES)
def test_the_scan_returns_on_a_hand_made_file_of_a_repetitive_shape(
    tmp_path: Path, shape: str
) -> None:
    text = repeated(shape)
    path = tmp_path / "hostile.jsonl"
    rows = [
        {"type": "header", "note": text, text: text},
        {"type": "event", "call_index": 0, "event": {"type": "toolcall_delta",
                                                      "content_index": 0, "delta": text}},
        {"type": "event", "call_index": 0, "event": {"type": "text_delta",
                                                      "content_index": 1, "delta": text}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + text + "\n")
    result = scan_file(path)
    assert result.findings == []
    assert result.unreadable is not None and result.unreadable.startswith("line 4: not readable")


def test_a_value_nested_deeper_than_the_interpreter_recurses_is_scrubbed() -> None:
    """The user's scrub rules walk a request as redaction does: with a stack (`scrub_value`
    recursed once per level and raised `RecursionError` in the program being recorded)."""
    from openprogram.providers.recording.rules import ScrubRule, scrub_value

    rule = ScrubRule.model_validate({"path": "**", "regex": "jane@example.com", "replace": "<e>"})
    deep: list[object] = [{"note": "mail jane@example.com", "n": 1}]
    for _level in range(100_000):
        deep = [deep]
    scrubbed = scrub_value({"tree": deep}, [rule])
    inner = scrubbed["tree"]
    for _level in range(100_000):
        (inner,) = inner
    assert inner == [{"note": "mail <e>", "n": 1}]


@given(
    value=JSON_VALUES,
    path=st.lists(st.sampled_from(["context", "messages", 0, 1, "content"]), max_size=3),
)
def test_scrubbing_with_a_stack_rewrites_what_a_recursion_would(value: object, path: list) -> None:
    from openprogram.providers.recording.rules import ScrubRule, scrub_value

    rules = [
        ScrubRule.model_validate({"path": "**.content", "regex": "a", "replace": "A"}),
        ScrubRule.model_validate({"path": "context.messages[*]", "regex": "b", "replace": "B"}),
    ]

    def recursive(item: object, at: tuple) -> object:
        if isinstance(item, dict):
            return {key: recursive(inner, (*at, key)) for key, inner in item.items()}
        if isinstance(item, list):
            return [recursive(inner, (*at, i)) for i, inner in enumerate(item)]
        if isinstance(item, str):
            for rule in rules:
                if rule.pattern.matches(at):
                    item = rule.rewrite(item)
        return item

    assert scrub_value(value, rules, tuple(path)) == recursive(value, tuple(path))


@given(
    pattern=st.lists(
        st.sampled_from(["**", "*", "[*]", "context", "messages", "[0]", "content"]),
        min_size=1,
        max_size=5,
    ),
    path=st.lists(st.sampled_from(["context", "messages", 0, 1, "content"]), max_size=6),
)
def test_patterns_match_as_the_recursive_definition_did(pattern: list, path: list) -> None:
    """Field patterns are matched by an automaton, not a recursion per key (a path 100,000 deep
    is matched without `RecursionError`); it decides exactly what the recursion did."""
    from openprogram.providers.recording.field_patterns import parse_field_pattern

    text = ".".join(pattern).replace(".[", "[")
    if text.startswith("["):
        text = "**" + text
    compiled = parse_field_pattern(text)
    tokens = compiled.tokens

    def exactly(at: int, rest: tuple) -> bool:
        if at == len(tokens):
            return not rest
        token = tokens[at]
        if token.kind == "any_depth":
            return any(exactly(at + 1, rest[skip:]) for skip in range(len(rest) + 1))
        if not rest:
            return False
        value = rest[0]
        step = {
            "key": isinstance(value, str) and value == token.value,
            "index": isinstance(value, int) and value == token.value,
            "any_key": isinstance(value, str),
            "any_index": isinstance(value, int),
        }[token.kind]
        return step and exactly(at + 1, rest[1:])

    whole = tuple(path)
    assert compiled.names_exactly(whole) == exactly(0, whole)
    assert compiled.matches(whole) == any(exactly(0, whole[:end]) for end in range(len(whole) + 1))
