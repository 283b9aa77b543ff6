"""What a command imports before it works: start-up is paid on every run and every TAB.

The recording view and the diff view draw their first rows from the line index alone; the row
models (pydantic), the rules and the diff are imported once those rows are on screen. An import
added at the top of a screen module would silently put ~300 ms back before the first frame
(bench/tui_diff.py, bench/tui_first_rows.py), so the rule is checked here, in a fresh interpreter.

`openprogram recordings SUBCOMMAND` imports that subcommand's module only (the table in
`openprogram.cli.recordings`), and completing a subcommand's name imports none of them; the
command runs as `python -m openprogram` does, and the modules it imported are listed at exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from openprogram.cli.recordings import SUBCOMMANDS
from tests.recording_files import REPO_ROOT, subprocess_env

SUBCOMMAND_MODULES = {sub.declare.split(":")[0] for sub in SUBCOMMANDS}
STATUS_MODULE_BOUND = 40
"""Project modules `recordings status` may import: 35 (82 when every subcommand was imported)."""
HEAVY = ("pydantic", "openprogram.providers.recording.row_models", "openprogram.recordings.diff")


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


PROBE = """
import os, runpy, sys
def write_modules():
    with open(MODULES, "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
def exit_after_writing(code, exit=os._exit):
    write_modules()
    exit(code)
os._exit = exit_after_writing  # argcomplete ends a completion with os._exit
sys.argv = ["openprogram", *sys.argv[2:]]
try:
    runpy.run_module("openprogram", run_name="__main__", alter_sys=True)
finally:
    write_modules()
"""
"""`python -m openprogram` that lists `sys.modules` into the file MODULES when it ends."""


def run_counting_modules(
    home: Path, cwd: Path, *args: str, **env: str
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """`python -m openprogram ARGS…` in a fresh process, and the project modules it imported."""
    listing = cwd / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", f"MODULES = {str(listing)!r}\n{PROBE}", "openprogram", *args],
        env=subprocess_env(home, **env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )
    names = listing.read_text().split()
    return done, {
        name for name in names if name == "openprogram" or name.startswith("openprogram.")
    }


def test_recordings_status_imports_its_own_subcommand_module_only(
    openprogram_home: Path, tmp_path: Path
) -> None:
    done, imported = run_counting_modules(openprogram_home, tmp_path, "recordings", "status")
    assert done.returncode == 0 and "mode:" in done.stdout, done.stderr
    assert imported & SUBCOMMAND_MODULES == {"openprogram.cli.recordings_modes"}
    assert len(imported) <= STATUS_MODULE_BOUND, sorted(imported)


def test_completing_a_subcommand_name_imports_no_subcommand_module(
    openprogram_home: Path, tmp_path: Path
) -> None:
    typed = "openprogram recordings st"
    answer = tmp_path / "answer"
    done, imported = run_counting_modules(
        openprogram_home,
        tmp_path,
        _ARGCOMPLETE="1",
        _ARGCOMPLETE_IFS="\n",
        COMP_LINE=typed,
        COMP_POINT=str(len(typed)),
        _ARGCOMPLETE_STDOUT_FILENAME=str(answer),
    )
    assert done.returncode == 0, done.stderr
    assert answer.read_text().split() == ["status"]
    assert "openprogram.cli.recordings" in imported
    assert imported & SUBCOMMAND_MODULES == set()
