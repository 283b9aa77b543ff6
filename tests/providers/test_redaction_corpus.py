"""The redaction corpus: every secret shape a user reported reaching a file, placed in each kind of
field a recording holds and split across streamed pieces at every position, never reaches the file;
and ordinary prose, code and JSON come through unchanged."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from openprogram.providers import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    ErrorEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.redaction import (
    KEY_SHAPES,
    SECRET_PLACEHOLDER,
    TEXT_RULES,
    remove_secret_argv,
    remove_secret_text,
    remove_secret_values,
)
from openprogram.providers.stream import drain
from tests.providers.test_streamed_redaction import (
    PiecesProvider,
    assert_replay_folds_to_the_recorded_answer,
    record,
)

V = "Hunter2Xq9"  # the secret value in the shapes below: distinctive, so any piece of it is found
CORPUS: list[str] = [
    # header lines (a curl line, a log, an HTTP dump)
    f"X-Api-Key: {V}",
    f'curl -H "x-api-key: {V}" https://api.example.com',
    f"Cookie: sid={V}; theme=dark",
    f"Authorization: token {V}0",
    f"Authorization: Bot {V}0",
    f"Ocp-Apim-Subscription-Key: {V}",
    # YAML / INI assignments
    f"password: {V}",
    f"aws_secret_access_key = {V}",
    f'db_password = "{V}"',
    # URL secrets
    f"https://bucket.s3.amazonaws.com/x?X-Amz-Signature={V}&X-Amz-Date=1",
    f"https://db.example.com/login?pwd={V}",
    f"redis://:{V}@cache.internal:6379/0",
    f"https://hooks.slack.com/services/T01ABC/B02DEF/{V}",
    # vendor key shapes
    f"sk_live_{V}abcdefghij",
    f"rk_live_{V}abcdefghij",
    f"hf_{V}abcdefghijklmnopqrstuv",
    f"glpat-{V}abcdefghijk",
    f"npm_{V}abcdefghijklmnopqrstuvwxyz0",
    f"gsk_{V}abcdefghijklmnopqrstuvwxyz0123456789",
    f"xai-{V}abcdefghijklmnopqrstuvwx",
    f"xapp-1-A0{V}-1234567890-abcdef0123",
]
FIELD_NAMES = [
    "Ocp-Apim-Subscription-Key",
    "X-Subscription-Key",
    "X-Amz-Signature",
    "pwd",
    "pass",
    "sessionid",
    "signature",
]
MODEL = Model(id="m", api="scripted", provider="scripted")


def leaked(text: str) -> list[str]:
    """The pieces of the secret (6 characters or more) that stand in `text`."""
    return [V[i : i + 6] for i in range(len(V) - 5) if V[i : i + 6] in text]


def test_every_rule_in_the_tables_removes_its_own_example() -> None:
    for shape in (*KEY_SHAPES, *TEXT_RULES):
        redacted = remove_secret_text(f"see {shape.example} here")
        assert SECRET_PLACEHOLDER in redacted, shape.name
        assert (shape.secret or shape.example) not in redacted, (shape.name, redacted)


@pytest.mark.parametrize("text", CORPUS)
def test_each_shape_is_removed_from_free_text(text: str) -> None:
    for around in (text, f"the tool said: {text}\nthen it stopped", json.dumps({"output": text})):
        assert leaked(remove_secret_text(around)) == [], around


@pytest.mark.parametrize("name", FIELD_NAMES)
def test_each_field_name_loses_its_value_in_headers_and_tool_arguments(name: str) -> None:
    request = {
        "model": {"headers": {name: V}},
        "options": {"headers": {name: V}},
        "context": {"messages": [{"role": "assistant", "content": [
            {"type": "toolCall", "id": "c", "name": "login", "arguments": {name: V}}
        ]}]},
    }  # fmt: skip
    assert leaked(json.dumps(remove_secret_values(request))) == []
    assert leaked(remove_secret_text(json.dumps({name: V}))) == []  # arguments as a string


def test_a_reasoning_signature_is_kept_for_the_next_turn() -> None:
    block = {"type": "thinking", "thinking": "hm", "signature": "EqQBCkgIARABGAIiQL"}
    assert remove_secret_values(block) == block


def test_a_command_line_loses_the_value_after_an_option_naming_a_secret() -> None:
    argv = ["tool", "--api-key", V, "--password", V + "2", "-u", f"jane:{V}3", "--name", "ok"]
    redacted = remove_secret_argv(argv)
    assert redacted == [
        "tool", "--api-key", SECRET_PLACEHOLDER, "--password", SECRET_PLACEHOLDER,
        "-u", f"jane:{SECRET_PLACEHOLDER}", "--name", "ok",
    ]  # fmt: skip


class ErrorProvider:
    """Fails with a vendor error text holding the secret."""

    requires_credentials = False

    def __init__(self, message: str) -> None:
        self.message = message

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        partial = AssistantMessage(api="scripted", provider="scripted", model="m", timestamp=1)
        yield StartEvent(partial=partial)
        failed = partial.model_copy(update={"stop_reason": "error", "error_message": self.message})
        yield ErrorEvent(reason="error", error=failed)

    stream_simple = stream


async def _record_request_fields(path: Path, text: str) -> None:
    context = Context(
        system_prompt=f"Rules: {text}",
        messages=[
            UserMessage(content=f"my config is {text}", timestamp=1),
            AssistantMessage(
                api="scripted", provider="scripted", model="m", timestamp=2,
                content=[ToolCall(id="c1", name="read", arguments={"path": "a", "note": text})],
            ),
            ToolResultMessage(
                tool_call_id="c1", tool_name="read", timestamp=3,
                content=[TextContent(text=f"file says:\n{text}\n")],
            ),
        ],
    )  # fmt: skip
    recorder = RecordingProvider(PiecesProvider(["fine"]), path)
    try:
        await drain(recorder.stream(MODEL, context))
    finally:
        recorder.sink.close()


async def _record_error(path: Path, text: str) -> None:
    recorder = RecordingProvider(ErrorProvider(f"401 Unauthorized: {text}"), path)
    try:
        await drain(recorder.stream(MODEL, Context(messages=[UserMessage(content="go")])))
    finally:
        recorder.sink.close()


@pytest.mark.parametrize("text", CORPUS)
def test_no_shape_reaches_the_file_from_any_field_however_it_is_streamed(
    tmp_path: Path, text: str
) -> None:
    asyncio.run(_record_request_fields(tmp_path / "request.jsonl", text))
    assert leaked((tmp_path / "request.jsonl").read_text()) == [], "request fields"
    asyncio.run(_record_error(tmp_path / "error.jsonl", text))
    assert leaked((tmp_path / "error.jsonl").read_text()) == [], "vendor error text"
    answer = f"Here it is:\n{text}\nKeep it safe."
    arguments = json.dumps({"note": text})
    for cut in range(1, len(answer)):  # an answer split in two at every position
        path = tmp_path / f"answer-{cut}.jsonl"
        asyncio.run(record(path, PiecesProvider([answer[:cut], answer[cut:]])))
        assert leaked(path.read_text()) == [], (cut, "answer")
    for cut in range(1, len(arguments)):  # tool arguments split in two at every position
        path = tmp_path / f"args-{cut}.jsonl"
        asyncio.run(record(path, PiecesProvider([arguments[:cut], arguments[cut:]], tool=True)))
        assert leaked(path.read_text()) == [], (cut, "tool arguments")


ORDINARY: list[str] = [
    "The key point is that tokens are cheap.",
    "Password: must be at least 12 characters long.",
    "Set the token budget to 4000 and retry.",
    "Bearer of bad news, I'm afraid.",
    "The basic idea: keep it simple.",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "password = getpass.getpass()",
    "token_count = len(tokens)",
    "max_tokens: 1024",
    "timeout: 30",
    "retries = 3",
    '{"max_tokens": 100, "temperature": 0.2, "stream": true}',
    '{"role": "user", "content": "hello"}',
    '{"input_tokens": 12, "cache_read_tokens": 0}',
    "Authorization is required for this endpoint.",
    "See https://example.com/docs?page=2&lang=en for details.",
    "def login(user: str, password: str) -> Session:",
    "if signature_is_valid(payload):",
    "The cookie banner appears on the first visit.",
    "Session ended at 10:30; see you tomorrow.",
    "ratio 3:2, port 8080, host example.com:443",
    "Use `openprogram recordings check echo` to rerun it.",
    "SELECT id, name FROM users WHERE active = 1;",
    "git commit -m 'fix: the token counter'",
    "The function returns a pass/fail result.",
    "export PATH=$HOME/.local/bin:$PATH",
    "x = {'a': 1, 'b': [1, 2, 3]}",
    "class TokenCounter:\n    max_tokens: int = 100",
    "The model said: done.",
    "Error 404: not found",
    "cookie: str | None = None  # the cookie stays",
]


def test_ordinary_prose_code_and_json_come_through_unchanged() -> None:
    changed = [text for text in ORDINARY if remove_secret_text(text) != text]
    assert changed == []
    assert len(ORDINARY) == 31


async def _record_secret_keys(path: Path, secret: str) -> None:
    """`secret` as a JSON object key in the four places a request or an answer holds one: the
    streamed tool arguments, tool arguments in the context, `options.metadata`, `model.headers`."""
    arguments = json.dumps({secret: "v", "path": "a"})
    context = Context(
        messages=[
            UserMessage(content="go", timestamp=1),
            AssistantMessage(
                api="scripted", provider="scripted", model="m", timestamp=2,
                content=[ToolCall(id="c1", name="read", arguments={secret: 1, "n": {secret: 2}})],
            ),
        ],
    )  # fmt: skip
    model = MODEL.model_copy(update={"headers": {secret: "h", "X-Other": "o"}})
    options = StreamOptions(metadata={secret: "m", "run": "r"})
    recorder = RecordingProvider(PiecesProvider([arguments[:9], arguments[9:]], tool=True), path)
    try:
        await drain(recorder.stream(model, context, options))
    finally:
        recorder.sink.close()


@pytest.mark.parametrize("secret", CORPUS)
def test_a_secret_used_as_a_key_reaches_no_file_and_the_objects_keep_every_entry(
    tmp_path: Path, secret: str
) -> None:
    path = tmp_path / "keys.jsonl"
    asyncio.run(_record_secret_keys(path, secret))
    assert leaked(path.read_text(encoding="utf-8")) == []
    assert_replay_folds_to_the_recorded_answer(path)
    request = json.loads(path.read_text(encoding="utf-8").splitlines()[1])
    assert len(request["model"]["headers"]) == 2
    assert len(request["options"]["metadata"]) == 2
    (call,) = request["context"]["messages"][1]["content"]
    assert len(call["arguments"]) == 2 and len(call["arguments"]["n"]) == 1


def test_keys_that_redact_alike_stay_distinct() -> None:
    value = {f"sk-proj-a1B2c3D4e5F6g7H8i9J{n}": n for n in range(3)} | {SECRET_PLACEHOLDER: 9}
    assert remove_secret_values(value) == {
        f"{SECRET_PLACEHOLDER} (2)": 0,
        f"{SECRET_PLACEHOLDER} (3)": 1,
        f"{SECRET_PLACEHOLDER} (4)": 2,
        SECRET_PLACEHOLDER: 9,
    }
    assert remove_secret_values({"token=hunter2-k": 1}) == {f"token={SECRET_PLACEHOLDER}": 1}
