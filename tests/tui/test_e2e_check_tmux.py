"""The real `openprogram-tui` in tmux: rerun a recording against a changed command, find the path,
and go from a mismatch to ok by adding rules with `z`."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from openprogram.recordings import record_command
from tests.tui.test_e2e_tmux import Terminal, tui_command, tui_line

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tmux_available() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")


def test_r_reruns_against_a_changed_command_and_shows_the_differing_path(
    openprogram_home: Path, tmux_available: None
) -> None:
    made = record_command(
        [sys.executable, "examples/echo_agent.py", "hi"], name="echo", cwd=str(REPO)
    )
    assert made.exit_code == 0 and made.path is not None
    terminal = Terminal("optui-rerun")
    assert terminal.start(tui_line(openprogram_home, made.path), cwd=REPO)
    try:
        terminal.wait_for("echo.jsonl", "scripted/echo-1")
        terminal.keys("r")
        terminal.wait_for("enter runs")
        terminal.keys("C-u")
        terminal.wait_for("python my_agent.py --flag")  # the cleared field shows its placeholder
        terminal.tmux(
            "send-keys", "-t", terminal.name, "-l", f"{sys.executable} examples/echo_agent.py bye"
        )
        terminal.keys("Enter")
        screen = terminal.wait_for(
            "call 1 › context › messages[2] › content[0] › text", "'echo:bye'"
        )
        assert "'echo:hi'" in screen
        assert "mismatch" in screen
        terminal.keys("C-q")
    finally:
        terminal.close()


def test_z_turns_a_next_day_mismatch_into_ok_in_two_rules(
    openprogram_home: Path, tmux_available: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "dated"
    project.mkdir()
    shutil.copy(REPO / "examples" / "dated_agent" / "agent.py", project / "agent.py")
    monkeypatch.setenv("OPENPROGRAM_EXAMPLE_TODAY", "2026-12-01")
    made = record_command([sys.executable, "agent.py"], name="dated", cwd=str(project))
    assert made.exit_code == 0 and made.path is not None
    line = tui_line(openprogram_home, "--check", made.path, OPENPROGRAM_EXAMPLE_TODAY="2026-12-02")
    terminal = Terminal("optui-rules")
    assert terminal.start(line, cwd=project)
    try:
        terminal.wait_for("call 0 › context › system_prompt", "2026-12-02")
        terminal.keys("z")
        terminal.wait_for("normalize context.system_prompt iso-datetime", "will not count")
        terminal.keys("Enter")  # into the recording's header; the rerun runs again
        terminal.wait_for("call 1 › context › messages[2] › content[0] › text", "(≈ iso-datetime)")
        terminal.keys("z")
        terminal.wait_for("tmp-path", "will not count")
        terminal.wait_for("Goes into the header of dated.jsonl")
        terminal.keys("C-t")  # save into the project instead
        terminal.wait_for("Goes into pyproject.toml")  # shown relative to where the TUI runs
        terminal.keys("Enter")
        terminal.wait_for("✓ ok")
        terminal.keys("C-q")
    finally:
        terminal.close()
    assert "tmp-path" in (project / "pyproject.toml").read_text()
    assert b'"rules":{"normalize":' in Path(made.path).read_bytes().split(b"\n", 1)[0]


SESSION_AGENT = """\
import asyncio, os, sys, uuid
from openprogram.agent import AgentTool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

NOTE = AgentTool(name="echo", description="Note it.", parameters={"type": "object"},
                 function=lambda text="": "noted")

async def main() -> int:
    today = os.environ["OPENPROGRAM_EXAMPLE_TODAY"]
    model = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
    prompt = f"Session {uuid.uuid4()} on {today}. Note what the user says."
    context = Context(system_prompt=prompt, messages=[UserMessage(content="buy milk")])
    await run_agent_loop(model, context, [NOTE])
    return 0

sys.exit(asyncio.run(main()))
"""


def test_a_date_and_a_uuid_in_the_prompt_go_green_in_two_keys_with_presets(
    openprogram_home: Path, tmux_available: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Day two: the prompt holds today's date and a fresh UUID; z offers both presets, enter saves
    # them and runs again, and the header holds presets, never the values seen.
    project = tmp_path / "session"
    project.mkdir()
    (project / "agent.py").write_text(SESSION_AGENT)
    monkeypatch.setenv("OPENPROGRAM_EXAMPLE_TODAY", "2026-12-03")
    made = record_command([sys.executable, "agent.py"], name="session", cwd=str(project))
    assert made.exit_code == 0 and made.path is not None
    line = tui_line(openprogram_home, "--check", made.path, OPENPROGRAM_EXAMPLE_TODAY="2026-12-04")
    terminal = Terminal("optui-day-two")
    assert terminal.start(line, cwd=project)
    try:
        terminal.wait_for("call 0 › context › system_prompt", "mismatch")
        terminal.keys("z")  # key 1
        terminal.wait_for("iso-datetime, uuid", "will not count")
        terminal.keys("Enter")  # key 2: saved into the header, and the check runs again
        terminal.wait_for("✓ ok")
        terminal.keys("C-q")
    finally:
        terminal.close()
    header = Path(made.path).read_bytes().split(b"\n", 1)[0].decode()
    assert '"preset":"iso-datetime"' in header and '"preset":"uuid"' in header
    assert "2026-12-0" not in header.split('"rules"', 1)[1]  # no literal of a value seen


def test_openprogram_tui_diff_as_a_git_difftool_shows_what_the_commit_changed(
    openprogram_home: Path, tmux_available: None, tmp_path: Path
) -> None:
    import asyncio
    import subprocess

    from tests.tui.diff_fixtures import record_diff_pair

    repo = tmp_path / "repo"
    repo.mkdir()
    before, after = asyncio.run(record_diff_pair(tmp_path))
    git_env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=git_env, check=True, capture_output=True)

    git("init", "-q")
    shutil.copy(before, repo / "session.jsonl")
    git("add", "session.jsonl")
    git("commit", "-q", "-m", "recorded")
    shutil.copy(after, repo / "session.jsonl")  # re-recorded: what a pull request would change
    tool = " ".join(shlex.quote(part) for part in [*tui_command(), "diff"])
    line = tui_line(openprogram_home).replace(
        " ".join(shlex.quote(part) for part in tui_command()),
        f"git difftool -y -x {shlex.quote(tool)} -- session.jsonl",
    )
    terminal = Terminal("optui-difftool")
    assert terminal.start(line, cwd=repo)
    try:
        screen = terminal.wait_for(
            "session.jsonl", "4 calls", "1 only in B", "≠ request (1 field)", "'hello there'"
        )
        # Spaced as printed (a PNG of the SVG snapshots once read `contentthe only difference`).
        assert "call 0 › context › messages[0] › content   the only difference · changed" in screen
        terminal.keys("j", "]")
        terminal.wait_for("tool_calls[0].arguments.limit", "A  3", "B  10")
        terminal.keys("C-q")
    finally:
        terminal.close()


def test_a_accepts_an_intended_change_and_the_rerun_turns_green(
    openprogram_home: Path, tmux_available: None
) -> None:
    made = record_command(
        [sys.executable, "examples/echo_agent.py", "hi"], name="echo", cwd=str(REPO)
    )
    assert made.exit_code == 0 and made.path is not None
    line = tui_line(
        openprogram_home,
        "--check",
        made.path,
        "--",
        sys.executable,
        "examples/echo_agent.py",
        "bye",
    )
    terminal = Terminal("optui-accept")
    assert terminal.start(line, cwd=REPO)
    try:
        terminal.wait_for("call 1 › context › messages[2] › content[0] › text", "a Accept")
        terminal.keys("a")
        terminal.wait_for("Accept the new requests of 1 call into echo.jsonl?", "'echo:bye'")
        terminal.keys("y")
        terminal.wait_for("Diff ", "≠ request (1 field)")  # the old and the new version
        terminal.keys("Escape")
        terminal.wait_for("✓ ok")
        terminal.keys("C-q")
    finally:
        terminal.close()
    assert b'"how":"accept"' in Path(made.path).read_bytes().split(b"\n", 1)[0]
