"""What a rerun keeps of the program's output: the last lines of stdout as well as of stderr."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from openprogram.recordings.check import OUTPUT_LINE_CHARS, OUTPUT_TAIL_LINES, run_check
from tests.recording_files import REPO_ROOT, run_cli

ECHO = ["examples/echo_agent.py"]

# The echo agent's first call, then the program prints a test runner's verdict and ends.
FEWER_CALLS = textwrap.dedent(
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
    for n in range(30):
        print(f"collected line {n}")
    print("FAILED tests/test_agent.py::test_answer - AssertionError: one turn only")
    """
)


@pytest.fixture
def echo_recording(openprogram_home: Path, offline_children: Path) -> Path:
    done = run_cli(
        openprogram_home,
        "record", "--name", "echo", "--", sys.executable, *ECHO, "hi",
        PYTHONPATH=os.environ["PYTHONPATH"],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return openprogram_home / "recordings" / "echo.jsonl"


def test_a_program_that_makes_fewer_calls_shows_its_stdout_tail(
    echo_recording: Path, offline_children: Path
) -> None:
    result = run_check(str(echo_recording), [sys.executable, "-c", FEWER_CALLS], cwd=str(REPO_ROOT))

    assert result.status == "incomplete", result
    assert len(result.stdout_tail) == OUTPUT_TAIL_LINES
    assert result.stdout_tail[-1] == (
        "FAILED tests/test_agent.py::test_answer - AssertionError: one turn only"
    )
    assert result.stdout_tail[0] == "collected line 11"  # the last 20 lines, in order
    assert offline_children.read_text() == ""


def test_check_prints_the_stdout_tail_of_an_error_and_json_has_it(
    echo_recording: Path, openprogram_home: Path
) -> None:
    failing = "print('3 passed, 1 failed'); import sys; sys.stderr.write('boom\\n'); sys.exit(1)"
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]}
    text = run_cli(openprogram_home, "check", "echo", "--", sys.executable, "-c", failing, **env)
    assert text.returncode == 1
    lines = text.stdout.splitlines()
    at = lines.index("stdout (last 1 line):")
    assert lines[at : at + 4] == ["stdout (last 1 line):", "  | 3 passed, 1 failed",
                                  "stderr (last 1 line):", "  | boom"]  # fmt: skip

    done = run_cli(
        openprogram_home, "check", "echo", "--json", "--", sys.executable, "-c", failing, **env
    )
    result = json.loads(done.stdout)
    assert (result["stdout_tail"], result["stderr_tail"]) == (["3 passed, 1 failed"], ["boom"])


def test_an_incomplete_check_prints_the_stdout_tail(
    echo_recording: Path, openprogram_home: Path
) -> None:
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]}
    done = run_cli(
        openprogram_home, "check", "echo", "--", sys.executable, "-c", FEWER_CALLS, **env
    )
    assert done.returncode == 1 and done.stdout.startswith("incomplete")
    assert "  | FAILED tests/test_agent.py::test_answer - AssertionError: one turn only" in (
        done.stdout.splitlines()
    )


def test_output_is_read_to_its_end_and_kept_bounded(echo_recording: Path) -> None:
    # 5 MB without a newline, then many lines: the child must never block on a full pipe.
    flood = textwrap.dedent(
        """
        import sys
        sys.stdout.write("x" * 5_000_000 + "\\n")
        sys.stdout.write("".join(f"line {n}\\n" for n in range(100_000)))
        sys.stdout.write("é" * 3_000)
        """
    )
    result = run_check(str(echo_recording), [sys.executable, "-c", flood], cwd=str(REPO_ROOT))

    assert (result.status, result.exit_code) == ("incomplete", 0)
    assert result.stdout_tail[-2] == "line 99999"
    assert result.stdout_tail[-1] == "é" * OUTPUT_LINE_CHARS + "…"
    assert len(result.stdout_tail) == OUTPUT_TAIL_LINES


def test_the_output_tails_shown_and_stored_hold_no_secret(echo_recording: Path) -> None:
    key = "sk-proj-" + "Ab1" * 12  # made by the program, so the command line does not hold it
    leak = (
        "import sys; key = 'sk-proj-' + 'Ab1' * 12; print('using', key); "
        "print('Authorization: Bearer', key, file=sys.stderr)"
    )
    result = run_check(str(echo_recording), [sys.executable, "-c", leak], cwd=str(REPO_ROOT))
    shown = "\n".join([*result.stdout_tail, *result.stderr_tail])
    assert "[secret removed]" in shown and key not in shown
    assert key not in json.dumps(result.json_value())
