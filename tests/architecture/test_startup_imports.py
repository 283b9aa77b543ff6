"""What a screen imports before it can draw: the first screen must not wait for the row models.

The recording view and the diff view draw their first rows from the line index alone; the row
models (pydantic), the rules and the diff are imported once those rows are on screen. An import
added at the top of a screen module would silently put ~300 ms back before the first frame
(bench/tui_diff.py, bench/tui_first_rows.py), so the rule is checked here, in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.recording_files import REPO_ROOT

HEAVY = ("pydantic", "openprogram.providers.recording.format", "openprogram.recordings.diff")


@pytest.mark.parametrize("module", ["tui.app", "tui.screens.diff", "tui.screens.recording"])
def test_a_screen_draws_before_the_row_models_are_imported(module: str) -> None:
    probe = f"import sys, {module}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"{module} imports {done.stdout.strip()} at start"


def test_the_start_up_before_the_first_frame_imports_no_row_models(tmp_path: Path) -> None:
    """What `main()` does before the app runs: its arguments, and the theme saved last time."""
    (tmp_path / "tui.json").write_text('{"theme": "openprogram-light"}')
    probe = (
        "import sys, tui.app, tui.command_line; from tui.theme import start_theme; "
        "tui.command_line.parse_arguments(['x.jsonl']); assert start_theme() == 'openprogram-light'; "
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    env = {**os.environ, "OPENPROGRAM_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"the start-up imports {done.stdout.strip()}"
