"""The data layer never needs Textual, and small formatting helpers read well."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import tui
from openprogram.text import human_size, plural
from tui.model.line_preview import preview_line
from tui.model.state_dir import display_path


def test_model_imports_without_textual() -> None:
    modules = sorted(p.stem for p in (Path(tui.__file__).parent / "model").glob("*.py"))
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module('tui.model.' + name)\n"
        "assert 'textual' not in sys.modules, 'tui.model imported textual'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_first_rows_of_a_file_need_no_pydantic() -> None:
    # Building the row models costs more than Textual's first paint: the recording screen, its
    # index and call list must show rows before that (the call detail loads the models later).
    code = (
        "import sys\n"
        "import tui.app, tui.screens.recording, tui.model.call_rows, tui.model.recording_index\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic')\n"
        "assert not loaded, loaded[:5]\n"
        "assert 'openprogram.providers.types' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_previews() -> None:
    assert preview_line("a\nb\tc") == "a␊b␉c"
    assert preview_line("x" * 100, 10) == "x" * 9 + "…"
    assert preview_line("\x00") == "␀"  # a control character is shown, never sent
    assert human_size(812) == "812 B" and human_size(4200) == "4.1 KiB"  # as the CLI says
    assert human_size(98_400_000) == "93.8 MiB"
    assert plural(1, "call") == "1 call" and plural(1200, "event") == "1,200 events"


def test_display_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENPROGRAM_HOME", str(tmp_path / "state"))
    assert display_path(tmp_path / "state" / "recordings") == "$OPENPROGRAM_HOME/recordings"
    assert display_path(tmp_path / "state") == "$OPENPROGRAM_HOME"
    monkeypatch.delenv("OPENPROGRAM_HOME")
    assert display_path(Path.home() / "x.jsonl") == "~/x.jsonl"
    monkeypatch.chdir(tmp_path)
    assert display_path(tmp_path / "a" / "b.jsonl") == "a/b.jsonl"
