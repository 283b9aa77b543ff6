"""The pytest plugin end to end (pytester): record, replay offline, and fail precisely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openprogram.providers.recording.reader import read_recording
from tests.plugin.inner_project import InnerProject, file_mode
from tests.sse_server import SSEServer, sse_event, sse_response

MISMATCH_AT_PROMPT = "replay mismatch at call 0, field context.messages[0].content:"


def record(inner: InnerProject) -> dict[str, bytes]:
    """Record both echo tests once; returns their files' bytes."""
    inner.run("--openprogram-record=once").assert_outcomes(passed=2)
    files = [inner.recording("test_loop"), inner.recording("test_loop_sync")]
    return {path.name: path.read_bytes() for path in files}


def test_once_records_then_a_default_run_replays_offline(inner: InnerProject) -> None:
    recorded = record(inner)
    for name, data in recorded.items():
        path = inner.recording(name.removesuffix(".jsonl"))
        assert file_mode(path) == 0o600
        rows = [json.loads(line) for line in data.splitlines()]
        assert rows[0]["type"] == "header" and rows[0]["recorded_by"] == "openprogram pytest plugin"
        assert [row["call_index"] for row in rows if row["type"] == "request"] == [0, 1]
    assert inner.leftovers() == []

    network = inner.guard_network()
    result = inner.run()  # default mode none: replay only
    result.assert_outcomes(passed=2)
    assert network.read_text() == ""
    # Replay never writes: the files are byte for byte what was recorded.
    assert {name: inner.recording(name[:-6]).read_bytes() for name in recorded} == recorded


def test_a_changed_prompt_fails_with_call_field_values_path_and_tui_command(
    inner: InnerProject,
) -> None:
    record(inner)
    result = inner.run("test_inner_echo.py::test_loop", INNER_PROMPT="bye")
    result.assert_outcomes(failed=1)
    path = "recordings/test_inner_echo/test_loop.jsonl"
    result.stdout.fnmatch_lines(
        [
            "*- openprogram replay mismatch -*",
            # first, one line that reads as a CI annotation: where, which call and field, values
            "test_inner_echo.py:*: call 0, field context.messages[[]0].content: "
            "recorded 'hi', incoming 'bye'",
            MISMATCH_AT_PROMPT,
            "recorded 'hi', incoming 'bye'",
            "",
            f"recording: {path}",
            "open it in the TUI at the mismatching field:",
            f"    openprogram-tui {path} --call 0 --field 'context.messages[0].content'",
            "if the change is intended and the answers still fit, accept it (offline):",
            "    pytest --openprogram-record=accept test_inner_echo.py::test_loop",
            "if the change is intended, record it again:",
            "    pytest --openprogram-record=rewrite test_inner_echo.py::test_loop",
        ],
        consecutive=True,
    )
    # The traceback shows the test's own lines, not the library's internals.
    shown = result.stdout.str()
    for internal in ("openprogram/providers/stream.py", "recording/replayer.py", "agent/loop.py"):
        assert internal not in shown, internal
    # The failure is the mismatch itself, not a second error at teardown about unconsumed calls.
    assert "unconsumed" not in result.stdout.str()


def test_fewer_calls_than_recorded_fail_teardown_as_unconsumed(inner: InnerProject) -> None:
    record(inner)
    result = inner.run(INNER_CALLS="1")
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_loop*",
            "openprogram: 1 recorded call unconsumed",
            "replay mismatch at call 1:",
            "recorded 2 calls, the run made 1: call 1 never requested",
            "",
            "recording: recordings/test_inner_echo/test_loop.jsonl",
            "open it in the TUI at the first call the run never made:",
            "    openprogram-tui recordings/test_inner_echo/test_loop.jsonl --call 1",
        ],
        consecutive=True,
    )


def test_more_calls_than_recorded_fail_naming_the_recorded_count(inner: InnerProject) -> None:
    inner.run("--openprogram-record=once", INNER_CALLS="1").assert_outcomes(passed=2)
    result = inner.run("test_inner_echo.py::test_loop_sync")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "replay mismatch at call 1:",
            "the recording has 1 call; the run made call 1 (more calls than were recorded)",
            "",
            "recording: recordings/test_inner_echo/test_loop_sync.jsonl",
            "open it in the TUI (the run made more calls than it holds):",
            "    openprogram-tui recordings/test_inner_echo/test_loop_sync.jsonl",
        ],
        consecutive=True,
    )


def test_a_mismatch_the_code_swallows_still_fails_the_test(inner: InnerProject) -> None:
    record(inner)
    inner.pytester.makepyfile(
        test_inner_swallow="""
        import pytest
        from openprogram.providers.replay import ReplayMismatch
        import test_inner_echo

        @pytest.mark.openprogram_recording("recordings/test_inner_echo/test_loop.jsonl")
        async def test_swallow(monkeypatch):
            monkeypatch.setenv("INNER_PROMPT", "bye")
            try:
                await test_inner_echo.converse()
            except ReplayMismatch:
                pass  # code under test that hides errors
        """
    )
    result = inner.run("test_inner_swallow.py")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "openprogram: replay reported a mismatch that the test caught and ignored",
            MISMATCH_AT_PROMPT,
            "recorded 'hi', incoming 'bye'",
        ],
        consecutive=True,
    )


def test_a_missing_recording_fails_with_the_command_that_records_it(
    inner: InnerProject,
) -> None:
    result = inner.run("test_inner_echo.py::test_loop")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_loop*",
            "no recording for this test at recordings/test_inner_echo/test_loop.jsonl "
            "(record mode none: replay only)",
            "record it once (this makes real provider calls and may need their API keys):",
            "    pytest --openprogram-record=once test_inner_echo.py::test_loop",
        ],
        consecutive=True,
    )
    assert "During handling" not in result.stdout.str()
    assert not (inner.path / "recordings").exists()


def test_a_corrupt_recording_fails_with_the_reader_error_and_is_left_alone(
    inner: InnerProject,
) -> None:
    record(inner)
    path = inner.recording("test_loop")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a truncated file
    for mode in ("none", "once"):  # `once` does not silently re-record a broken file
        result = inner.run("test_inner_echo.py::test_loop", f"--openprogram-record={mode}")
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(
            [
                "cannot replay recordings/test_inner_echo/test_loop.jsonl: recording file *",
                "record it again (makes real provider calls):",
                "    pytest --openprogram-record=rewrite test_inner_echo.py::test_loop",
            ],
            consecutive=True,
        )
    assert path.read_bytes() == data[: len(data) // 2]


def chat_stream(text: str) -> list[str]:
    """An OpenAI chat-completions stream answering `text`."""

    def chunk(delta: dict[str, str] | None = None, finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
        return sse_event({"id": "c1", "object": "chat.completion.chunk", "choices": [choice]})

    return [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": text}),
        chunk(finish="stop"),
        "data: [DONE]\n\n",
    ]


def test_recording_wraps_the_real_http_provider_and_replay_never_opens_a_socket(
    inner: InnerProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.pytester.makepyfile(
        test_inner_http="""
        import os
        from openprogram.providers import Context, Model, UserMessage, complete

        async def test_http(openprogram_recording):
            model = Model(id="gpt-test", api="openai-completions", provider="openai",
                          base_url=os.environ["INNER_BASE_URL"])
            answer = await complete(model, Context(messages=[UserMessage(content="hello")]))
            assert answer.content[0].text == "hello from the server"
        """
    )
    secret = "sk-plugin-test-secret-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with SSEServer() as server:
        server.respond(sse_response(chat_stream("hello from the server")))
        monkeypatch.setenv("INNER_BASE_URL", server.url + "/v1")
        inner.run("test_inner_http.py", "--openprogram-record=once").assert_outcomes(passed=1)
        assert len(server.requests) == 1
        assert server.requests[0].headers["authorization"] == f"Bearer {secret}"

        network = inner.guard_network()
        inner.run("test_inner_http.py").assert_outcomes(passed=1)
        assert network.read_text() == ""
        assert len(server.requests) == 1  # replay did not reach the server
    recording = inner.recording("test_http", module="test_inner_http")
    assert secret not in recording.read_text()


def test_the_marker_names_a_file_and_works_on_classes_and_parameters(
    inner: InnerProject,
) -> None:
    inner.pytester.makepyfile(
        test_inner_paths="""
        from pathlib import Path
        import pytest

        HERE = Path(__file__).parent

        @pytest.mark.openprogram_recording("shared_name")
        def test_named(openprogram_recording):
            assert openprogram_recording.path == HERE / "recordings/test_inner_paths/shared_name.jsonl"

        @pytest.mark.openprogram_recording("fixtures/custom.jsonl")
        def test_path(openprogram_recording):
            assert openprogram_recording.path == HERE / "fixtures/custom.jsonl"

        @pytest.mark.openprogram_recording
        class TestGroup:
            def test_method(self, openprogram_recording):
                assert openprogram_recording.path.name == "TestGroup.test_method.jsonl"

        @pytest.mark.parametrize("word", ["a", "a b", "a_b"])
        def test_param(openprogram_recording, word):
            assert openprogram_recording.path.parent == HERE / "recordings/test_inner_paths"
        """
    )
    inner.run("test_inner_paths.py", "--openprogram-record=once").assert_outcomes(passed=6)
    names = sorted(p.name for p in (inner.path / "recordings/test_inner_paths").iterdir())
    param = [name for name in names if name.startswith("test_param")]
    assert len(param) == 3  # "a b" and "a_b" do not collide
    assert "test_param[a].jsonl" in param and "test_param[a_b].jsonl" in param
    assert (inner.path / "fixtures/custom.jsonl").is_file()
    # The same names are found again: a default run replays all six (zero calls each).
    inner.run("test_inner_paths.py").assert_outcomes(passed=6)


def test_a_marker_with_two_arguments_is_a_clear_error(inner: InnerProject) -> None:
    inner.pytester.makepyfile(
        test_inner_bad_marker="""
        import pytest

        @pytest.mark.openprogram_recording("a", "b")
        def test_bad():
            pass
        """
    )
    result = inner.run("test_inner_bad_marker.py")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*takes one name or path*"])


def test_partial_files_live_next_to_the_target_while_recording(inner: InnerProject) -> None:
    inner.pytester.makepyfile(
        test_inner_partial="""
        import os, stat
        import pytest

        def test_partial(openprogram_recording):
            target = openprogram_recording.path
            partials = list(target.parent.glob(f".{target.name}.*.partial"))
            assert len(partials) == 1 and not target.exists()
            assert stat.S_IMODE(os.stat(partials[0]).st_mode) == 0o600
        """
    )
    inner.run("test_inner_partial.py", "--openprogram-record=once").assert_outcomes(passed=1)
    assert inner.leftovers() == []
    assert Path(inner.recording("test_partial", module="test_inner_partial")).is_file()


def answer_rows(data: bytes) -> list[bytes]:
    return [line for line in data.splitlines() if b'"type":"event"' in line or b"call_end" in line]


def test_accept_keeps_the_answers_and_takes_the_changed_requests_offline(
    inner: InnerProject,
) -> None:
    recorded = record(inner)
    network = inner.guard_network()
    inner.run("--openprogram-record=accept", INNER_PROMPT="bye").assert_outcomes(passed=2)
    assert network.read_text() == ""
    for name, data in recorded.items():
        now = inner.recording(name.removesuffix(".jsonl")).read_bytes()
        assert now != data and answer_rows(now) == answer_rows(data)
        assert file_mode(inner.recording(name.removesuffix(".jsonl"))) == 0o600
    assert inner.leftovers() == []
    inner.run(INNER_PROMPT="bye").assert_outcomes(passed=2)  # the new version replays green


@pytest.mark.parametrize(
    ("env", "outcome"),
    [({"INNER_CALLS": "1"}, {"passed": 2, "errors": 2}), ({"INNER_FAIL": "1"}, {"failed": 2})],
)
def test_accept_that_needs_a_live_answer_or_fails_keeps_the_old_file(
    inner: InnerProject, env: dict[str, str], outcome: dict[str, int]
) -> None:
    recorded = record(inner)
    result = inner.run("--openprogram-record=accept", INNER_PROMPT="bye", **env)
    result.assert_outcomes(**outcome)
    if "INNER_CALLS" in env:
        result.stdout.fnmatch_lines(["openprogram: not accepted", "replay mismatch at call 1:"])
    assert {name: inner.recording(name[:-6]).read_bytes() for name in recorded} == recorded
    assert inner.leftovers() == []


def test_rerecord_copies_what_matches_and_records_the_rest_from_the_provider(
    inner: InnerProject,
) -> None:
    recorded = record(inner)
    inner.run("--openprogram-record=resume").assert_outcomes(passed=2)
    # Nothing differed: every call replayed and copied as recorded (the same bytes).
    assert {name: inner.recording(name[:-6]).read_bytes() for name in recorded} == recorded

    inner.run("--openprogram-record=resume", INNER_PROMPT="bye").assert_outcomes(passed=2)
    for name in recorded:
        now = inner.recording(name.removesuffix(".jsonl")).read_bytes()
        assert b'"content":"bye"' in now and now != recorded[name]
    assert inner.leftovers() == []
    inner.run(INNER_PROMPT="bye").assert_outcomes(passed=2)  # replays green


def test_rerecord_and_accept_put_a_new_version_in_place_saying_what_produced_it(
    inner: InnerProject,
) -> None:
    recorded = record(inner)
    inner.run("--openprogram-record=rerecord", INNER_PROMPT="bye").assert_outcomes(passed=2)
    for name in recorded:
        header = read_recording(inner.recording(name.removesuffix(".jsonl"))).header
        produced_by = (header.model_extra or {})["produced_by"]
        assert (produced_by["how"], produced_by["from_call"]) == ("rerecord", 0)
        assert "--openprogram-record=rewrite" in produced_by["command"]
    assert inner.leftovers() == []
    inner.run("--openprogram-record=accept", INNER_PROMPT="hi").assert_outcomes(passed=2)
    for name in recorded:
        header = read_recording(inner.recording(name.removesuffix(".jsonl"))).header
        assert (header.model_extra or {})["produced_by"]["how"] == "accept"
    assert inner.leftovers() == []


def test_rerecord_on_a_failing_test_keeps_the_old_file(inner: InnerProject) -> None:
    recorded = record(inner)
    result = inner.run("--openprogram-record=resume", INNER_PROMPT="bye", INNER_FAIL="1")
    result.assert_outcomes(failed=2)
    assert {name: inner.recording(name[:-6]).read_bytes() for name in recorded} == recorded
    assert inner.leftovers() == []
