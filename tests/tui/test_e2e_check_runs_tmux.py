"""The real `openprogram-tui --check` in tmux: `t` runs a program with a UUID in its prompt and one
real change three times, shows the UUID under "changes by itself" and the change under "the code
changed", and `w` then `y` write the proposed rule into the project's pyproject.toml."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from tests.tui.runs_support import CHANGED, record_runs_agent
from tests.tui.test_e2e_tmux import Terminal, tui_line

pytestmark = pytest.mark.e2e


def test_t_sorts_the_uuid_from_the_real_change_and_w_writes_the_rule(
    openprogram_home: Path, tmp_path: Path
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    project = tmp_path / "project"
    recording = record_runs_agent(project)
    line = tui_line(openprogram_home, "--check", str(recording), "--", *CHANGED)
    terminal = Terminal("optui-runs")
    assert terminal.start(line, cwd=project, size=(120, 40))
    try:
        terminal.wait_for("mismatch", "t 3 runs")
        terminal.keys("t")
        screen = terminal.wait_for(
            "after 2 runs", "changes by itself", "the code changed", "w Write rules"
        )
        by_itself, code_changed = screen.split("changes by itself", 1)[1].split(
            "the code changed", 1
        )
        assert "call 0  context.system_prompt" in by_itself
        assert "rule:     normalize context.system_prompt uuid" in by_itself
        assert "call 0  context.messages[0].content" in code_changed
        assert "'sell milk'   (every run)" in code_changed
        assert not (project / "pyproject.toml").exists()
        terminal.keys("w")
        terminal.wait_for("and run again?", "Write rules (y)")
        terminal.keys("y")
        screen = terminal.wait_for("3 runs of 3", "wrote to", "2 differences left")
        code_changed, ruled = screen.split("the code changed", 1)[1].split("ruled", 1)
        assert "call 0  context.messages[0].content" in code_changed
        assert "call 0  context.system_prompt" in ruled
        terminal.keys("C-q")
    finally:
        terminal.close()
    written = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["openprogram"]
    rules = written["replay"]["normalize"]
    assert [(rule["path"], rule["preset"]) for rule in rules] == [("context.system_prompt", "uuid")]
