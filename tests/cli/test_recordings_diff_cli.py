"""`openprogram recordings diff` and `show --textconv`, run as a user runs them (subprocesses, git)."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path

from openprogram.cli.output import Output
from openprogram.cli.recordings_diff import print_diff
from openprogram.providers import Context, Model, StreamOptions, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.rules import MatchingRules
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.stream import drain
from openprogram.recordings.diff import diff_recordings
from tests.recording_files import REPO_ROOT, run_cli, subprocess_env

ECHO = [sys.executable, "examples/echo_agent.py"]


def recorded(home: Path, name: str, said: str) -> Path:
    assert run_cli(home, "record", "--name", name, "--", *ECHO, said).returncode == 0
    return home / "recordings" / f"{name}.jsonl"


def test_diff_exits_like_diff_and_names_the_changed_field(openprogram_home: Path) -> None:
    recorded(openprogram_home, "hi", "hi")
    recorded(openprogram_home, "bye", "bye")
    same = run_cli(openprogram_home, "diff", "hi", "hi", "--stat")
    assert same.returncode == 0 and "2 same · 0 request changed" in same.stdout
    changed = run_cli(openprogram_home, "diff", "hi", "bye")
    assert changed.returncode == 1
    assert "context.messages[2].content[0].text: 'echo:hi' → 'echo:bye'" in changed.stdout
    assert "answer text: '[-echo:hi-]{+echo:bye+}'" in changed.stdout
    missing = run_cli(openprogram_home, "diff", "hi", "nope")
    assert missing.returncode == 2 and "file not found" in missing.stderr


def test_a_field_path_in_the_diff_is_one_escaped_bounded_line(tmp_path: Path) -> None:
    """A key with a terminal escape and a newline, 5,000 characters long, prints as one cut line."""
    model = Model(id="m", api="scripted", provider="scripted")
    context = Context(system_prompt="s", messages=[UserMessage(content="hi", timestamp=1)])

    def record(name: str, metadata: dict[str, object]) -> Path:
        path = tmp_path / name
        recorder = RecordingProvider(ScriptedProvider([[TextStep(text="ok")]]), path)
        asyncio.run(drain(recorder.stream(model, context, StreamOptions(metadata=metadata))))
        recorder.sink.close()
        return path

    key = "\x1b[2J\n" + "k" * 5000
    a, b = record("a.jsonl", {key: 1}), record("b.jsonl", {key: 2})
    stdout = io.StringIO()
    print_diff(
        diff_recordings(read_recording(a), read_recording(b), MatchingRules()), Output(stdout)
    )
    line = next(line for line in stdout.getvalue().splitlines() if "metadata" in line)
    assert line.startswith('  options.metadata["\\x1b[2J\\nkkk')
    assert line.endswith(" characters): 1 → 2") and len(line) < 250
    assert "\x1b" not in stdout.getvalue()


def test_diff_json_is_stable(openprogram_home: Path) -> None:
    recorded(openprogram_home, "hi", "hi")
    recorded(openprogram_home, "bye", "bye")
    done = run_cli(openprogram_home, "diff", "hi", "bye", "--json")
    result = json.loads(done.stdout)
    assert set(result) == {"a", "b", "aligned_by", "rules", "identical", "summary", "calls"}
    assert set(result["summary"]) == {
        "same", "request_changed", "answer_changed", "only_a", "only_b", "tokens_a", "tokens_b",
        "session_a", "session_b", "price_table", "cache",
    }  # fmt: skip
    call = result["calls"][1]
    assert set(call) == {
        "a", "b", "status", "request", "answer", "usage_a", "usage_b",
        "tokens_delta", "cost_a_usd", "cost_b_usd", "cost_delta_usd",
        "duration_a_ms", "duration_b_ms", "duration_delta_ms",
        "first_token_a_ms", "first_token_b_ms", "first_token_delta_ms",
    }  # fmt: skip
    assert call["status"] == "both_changed" and call["request"][0]["b"] == "echo:bye"
    assert ["insert", "echo:bye"] in call["answer"]["text"]
    # Tokens by kind per side and B − A; the scripted model has no price: no cost, never a guess.
    assert call["tokens_delta"] == {
        "input": call["usage_b"]["input"] - call["usage_a"]["input"],
        "output": call["usage_b"]["output"] - call["usage_a"]["output"],
        "cache_read": 0, "cache_write": 0, "reasoning": None,
    }  # fmt: skip
    assert (call["cost_a_usd"], call["cost_b_usd"], call["cost_delta_usd"]) == (None, None, None)
    # Times as recorded (format 2): B − A where both sides have them.
    assert call["duration_a_ms"] >= 0 and call["duration_b_ms"] >= 0
    assert call["duration_delta_ms"] == call["duration_b_ms"] - call["duration_a_ms"]
    assert call["first_token_delta_ms"] == call["first_token_b_ms"] - call["first_token_a_ms"]
    session = result["summary"]["session_a"]
    assert session["calls"] == 2 and session["cost_usd"] is None
    assert session["between_calls_ms"] == session["wall_ms"] - session["model_ms"]
    assert session["unpriced_calls"] == 2
    assert session["tokens"]["input"] == result["summary"]["tokens_a"]["input"]


EXPECTED_TRANSCRIPT = """\
# openprogram recording · format 2 · 2 calls

## call 0 · scripted/echo-1 · complete
system> Call the echo tool with the user's words, then tell the user its result.
user> hi
thinking< I should use the echo tool.
tool call< echo {"text": "hi"}
stop< toolUse · tokens 23 in / 6 out

## call 1 · scripted/echo-1 · complete
tool echo> echo:hi
thinking< The tool answered; report it.
assistant< echo:hi
stop< stop · tokens 28 in / 5 out
"""


def test_textconv_prints_a_stable_transcript(openprogram_home: Path) -> None:
    path = recorded(openprogram_home, "hi", "hi")
    done = run_cli(openprogram_home, "show", "--textconv", str(path))
    assert done.returncode == 0 and done.stdout == EXPECTED_TRANSCRIPT


def test_git_diff_shows_what_the_model_now_says(openprogram_home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**subprocess_env(openprogram_home), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout

    git("init", "-q")
    git("config", "user.email", "t@example.invalid")
    git("config", "user.name", "t")
    (repo / ".gitattributes").write_text("*.jsonl diff=openprogram\n")
    command = f"{sys.executable} -m openprogram recordings show --textconv"
    git("config", "diff.openprogram.textconv", command)
    target = repo / "session.jsonl"
    target.write_bytes(recorded(openprogram_home, "hi", "hi").read_bytes())
    git("add", ".")
    git("commit", "-qm", "record")
    target.write_bytes(recorded(openprogram_home, "bye", "bye").read_bytes())
    env["PYTHONPATH"] = str(REPO_ROOT)
    shown = git("diff")
    assert "-assistant< echo:hi" in shown and "+assistant< echo:bye" in shown
    assert "-tool echo> echo:hi" in shown and "+tool echo> echo:bye" in shown
