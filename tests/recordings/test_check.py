"""`record -- COMMAND` and `check`, through the real CLI in fresh processes, with sockets refused."""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from pathlib import Path

import pytest

from openprogram.providers.recording.reader import read_recording
from openprogram.providers.replay import MismatchReport
from openprogram.recordings.check import CheckProgress, run_check
from tests.recording_files import REPO_ROOT, run_cli

ECHO = ["examples/echo_agent.py"]


@pytest.fixture
def guarded(offline_children: Path) -> Path:
    """Children refuse the network; the log of attempts must stay empty."""
    return offline_children


def cli(home: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli(home, *args, PYTHONPATH=os.environ["PYTHONPATH"])
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
def echo_recording(openprogram_home: Path, guarded: Path) -> Path:
    code, out, err = cli(
        openprogram_home, "record", "--name", "echo", "--", sys.executable, *ECHO, "hi"
    )
    assert code == 0, err
    assert out.strip() == "echo:hi"
    assert "recorded 2 calls" in err
    return openprogram_home / "recordings" / "echo.jsonl"


def test_a_one_shot_recording_stores_how_to_rerun_it_and_leaves_the_config_alone(
    echo_recording: Path, openprogram_home: Path
) -> None:
    header = read_recording(echo_recording).header.model_extra or {}
    assert header["entry"] == {"argv": [sys.executable, *ECHO, "hi"], "cwd": str(REPO_ROOT)}
    assert header["recording_id"] == "echo"
    assert not (openprogram_home / "config.json").exists()
    assert [p.name for p in (openprogram_home / "recordings").iterdir()] == ["echo.jsonl"]


def test_check_of_an_unchanged_program_is_ok(
    echo_recording: Path, openprogram_home: Path, guarded: Path
) -> None:
    code, out, _ = cli(openprogram_home, "check", "echo")
    assert code == 0
    assert out.startswith("ok ")
    assert "2/2 consumed" in out
    assert guarded.read_text() == ""


def test_a_changed_program_is_a_mismatch_at_call_1_with_stable_json(
    echo_recording: Path, openprogram_home: Path, guarded: Path
) -> None:
    code, out, _ = cli(
        openprogram_home, "check", "echo", "--json", "--", sys.executable, *ECHO, "bye"
    )
    assert code == 1
    result = json.loads(out)
    assert set(result) == {
        "status", "recording", "argv", "cwd", "calls_recorded", "calls_consumed",
        "never_requested", "duration_seconds", "exit_code", "mismatch", "error", "stderr_tail",
        "stdout_tail",
        "problem", "rules", "absorbed", "accepted",
    }  # fmt: skip
    assert result["status"] == "mismatch"
    mismatch = result["mismatch"]
    assert set(mismatch) == set(MismatchReport.model_fields)  # the documented shape, no more
    assert mismatch["kind"] == "request"
    assert mismatch["call_index"] == 1 and mismatch["event_index"] is None
    assert mismatch["field_path"] == "context.messages[2].content[0].text"
    assert mismatch["path_tokens"] == ["context", "messages", 2, "content", 0, "text"]
    assert (mismatch["recorded"], mismatch["incoming"]) == ("echo:hi", "echo:bye")
    recorded, incoming = mismatch["recorded_request"], mismatch["incoming_request"]
    assert set(recorded) == set(incoming) == {"model", "context", "options"}
    assert recorded["context"]["messages"][2]["content"][0]["text"] == "echo:hi"
    assert incoming["context"]["messages"][2]["content"][0]["text"] == "echo:bye"
    assert guarded.read_text() == ""

    code, text, _ = cli(openprogram_home, "check", "echo", "--", sys.executable, *ECHO, "bye")
    assert code == 1
    assert "replay mismatch at call 1, field context.messages[2].content[0].text:\n" in text
    assert "recorded 'echo:hi', incoming 'echo:bye'" in text


SWALLOWS = textwrap.dedent(
    """
    import asyncio, sys
    sys.argv = ["echo_agent.py", "bye"]
    sys.path.insert(0, "examples")
    import echo_agent
    try:
        asyncio.run(echo_agent.main("bye"))
    except Exception as exc:
        print("swallowed", type(exc).__name__)
    sys.exit(0)
    """
)


def test_a_program_that_swallows_the_mismatch_and_exits_0_is_still_a_mismatch(
    echo_recording: Path, openprogram_home: Path, guarded: Path
) -> None:
    code, out, _ = cli(
        openprogram_home, "check", "echo", "--json", "--", sys.executable, "-c", SWALLOWS
    )
    result = json.loads(out)
    assert (code, result["status"], result["exit_code"]) == (1, "mismatch", 0)
    assert result["mismatch"]["field_path"] == "context.messages[2].content[0].text"


TWICE = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, "examples")
    import echo_agent
    asyncio.run(echo_agent.main(None))
    asyncio.run(echo_agent.main(None))
    """
)


def test_a_call_past_the_end_names_the_call_index_field_and_the_recorded_count(
    echo_recording: Path, openprogram_home: Path, guarded: Path
) -> None:
    """Issue #27 item 15: the seed's field path `call_index` (it was null), the kind kept."""
    code, out, _ = cli(
        openprogram_home, "check", "echo", "--json", "--", sys.executable, "-c", TWICE
    )
    result = json.loads(out)
    assert (code, result["status"]) == (1, "mismatch")
    mismatch = result["mismatch"]
    assert (mismatch["kind"], mismatch["call_index"]) == ("extra_call", 2)
    assert (mismatch["field_path"], mismatch["path_tokens"]) == ("call_index", [])
    assert mismatch["message"] == (
        "replay mismatch at call 2:\n"
        "the recording has 2 calls; the run made call 2 (more calls than were recorded)"
    )
    assert guarded.read_text() == ""


def test_a_program_that_stops_early_is_incomplete(echo_recording: Path, guarded: Path) -> None:
    # the echo agent's first call, made by hand, then the program ends
    first_call_only = textwrap.dedent(
        """
        import asyncio, sys
        sys.path.insert(0, "examples")
        import echo_agent
        from openprogram.agent import loop

        async def one_turn(model, context, tools, options=None, **kwargs):
            return await loop.run_agent_loop(model, context, tools, options, max_turns=1)

        echo_agent.run_agent_loop = one_turn
        try:
            asyncio.run(echo_agent.main(None))
        except loop.AgentTurnLimitError:
            pass
        """
    )
    seen: list[CheckProgress] = []
    result = run_check(
        str(echo_recording),
        [sys.executable, "-c", first_call_only],
        cwd=str(REPO_ROOT),
        on_progress=seen.append,
    )
    assert result.status == "incomplete", result
    assert (result.calls_consumed, result.calls_recorded, result.never_requested) == (1, 2, [1])
    assert seen[-1] == CheckProgress(calls_consumed=1, calls_recorded=2)
    assert guarded.read_text() == ""


def test_a_hanging_program_is_an_error_after_the_timeout(
    echo_recording: Path, openprogram_home: Path
) -> None:
    code, out, _ = cli(
        openprogram_home, "check", "echo", "--json", "--timeout", "1", "--",
        sys.executable, "-c", "import time, sys; print('waiting', file=sys.stderr, flush=True); time.sleep(60)",
    )  # fmt: skip
    result = json.loads(out)
    assert (code, result["status"], result["error"]) == (1, "error", "timed out after 1 s")
    assert result["stderr_tail"] == ["waiting"]


def test_a_failing_program_is_an_error_with_its_exit_code_and_stderr_tail(
    echo_recording: Path, openprogram_home: Path
) -> None:
    code, out, _ = cli(
        openprogram_home, "check", "echo", "--json", "--",
        sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)",
    )  # fmt: skip
    result = json.loads(out)
    assert (code, result["status"], result["exit_code"]) == (1, "error", 3)
    assert result["error"] == "the program exited with code 3"
    assert result["stderr_tail"] == ["boom"]


def test_check_without_a_stored_or_given_command_is_a_usage_error(
    openprogram_home: Path, guarded: Path
) -> None:
    code, _, _ = cli(openprogram_home, "record", "--name", "plain")
    assert code == 0
    code, _, err = cli(openprogram_home, "check", "plain")
    assert code == 2
    assert "no recorded command to run;" in err and err.count("\n") == 1


def test_a_failed_command_drops_its_recording_unless_kept_and_passes_its_exit_code(
    openprogram_home: Path, guarded: Path
) -> None:
    failing = [sys.executable, "-c", "import sys; sys.exit(7)"]
    code, _, err = cli(openprogram_home, "record", "--name", "failed", "--", *failing)
    assert code == 7 and "dropped" in err
    assert not (openprogram_home / "recordings" / "failed.jsonl").exists()
    code, _, _ = cli(openprogram_home, "record", "--name", "kept", "--keep-failed", "--", *failing)
    assert code == 7
    assert (openprogram_home / "recordings" / "kept.jsonl").exists()
    leftovers = [p.name for p in openprogram_home.iterdir() if p.name.startswith(".record-")]
    assert leftovers == []


def test_secrets_in_the_command_line_are_redacted_in_the_header(
    openprogram_home: Path, guarded: Path
) -> None:
    key = "sk-proj-" + "a1b2c3d4" * 4
    code, _, err = cli(
        openprogram_home,
        "record",
        "--name",
        "s",
        "--",
        sys.executable,
        "-c",
        "pass",
        f"--api-key={key}",
    )
    assert code == 0, err
    path = openprogram_home / "recordings" / "s.jsonl"
    assert key not in path.read_text()
    entry = (read_recording(path).header.model_extra or {})["entry"]
    assert entry["argv"][-1] == "--api-key=[secret removed]"


@pytest.mark.parametrize("ms", [10**15, 10**400])
def test_a_paced_check_of_an_event_past_the_bound_is_refused_at_once(
    echo_recording: Path, openprogram_home: Path, ms: int
) -> None:
    """Before the bounds the child slept ~31,000 years (10^15) or raised OverflowError (10^400)."""
    lines = echo_recording.read_bytes().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.endswith(b'"type":"event"}\n'))
    lines[first] = re.sub(rb'"ms":\d+', b'"ms":%d' % ms, lines[first])
    echo_recording.write_bytes(b"".join(lines))
    code, out, _ = cli(openprogram_home, "check", "echo", "--json", "--pace", "1")
    result = json.loads(out)
    assert (code, result["status"]) == (1, "error")
    assert f"at line {first + 1} for call 0: event row field ms: Input" in result["error"]


def test_check_help_states_the_timeout_of_a_paced_check(openprogram_home: Path) -> None:
    shown = run_cli(openprogram_home, "check", "--help")
    assert shown.returncode == 0
    assert "default: no limit, or 600 with --pace" in " ".join(shown.stdout.split())


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_a_timeout_that_is_not_a_positive_number_is_refused(
    openprogram_home: Path, value: str
) -> None:
    refused = run_cli(openprogram_home, "check", "echo", "--timeout", value, "--", "true")
    assert refused.returncode == 2
    assert f"--timeout: expected a positive number, got {value!r}" in refused.stderr
