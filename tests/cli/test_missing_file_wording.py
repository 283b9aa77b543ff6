"""A recording that is not there is worded one way by every command (#42 item 36): one line,
`error: recording file PATH: file not found`, whether named by ID or by path."""

from __future__ import annotations

from pathlib import Path

import pytest

from openprogram.recordings import ensure_recordings_dir
from tests.recording_files import run_cli

BY_ID = (
    ("show", "{x}"),
    ("check", "{x}"),
    ("diff", "{x}", "{x}"),
    ("rules", "{x}"),
    ("accept", "{x}", "--yes"),
    ("rerecord", "{x}", "--yes"),
    ("delete", "{x}", "--yes"),
    ("repair", "{x}"),
    ("migrate", "{x}"),
    ("replay", "{x}"),
)


@pytest.mark.parametrize("command", BY_ID, ids=[c[0] for c in BY_ID])
def test_every_command_words_a_missing_recording_the_same(
    openprogram_home: Path, command: tuple[str, ...]
) -> None:
    ensure_recordings_dir()
    missing = openprogram_home / "recordings" / "nosuch.jsonl"
    done = run_cli(openprogram_home, *(word.format(x="nosuch") for word in command))
    assert done.returncode != 0
    assert done.stderr == f"error: recording file {missing}: file not found\n"


def test_scan_words_a_missing_path_the_same(openprogram_home: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nosuch.jsonl"
    done = run_cli(openprogram_home, "scan", str(missing))
    assert done.returncode == 2
    assert f"error: recording file {missing}: file not found\n" in done.stderr


def test_cache_export_and_import_word_a_missing_file_the_same(
    openprogram_home: Path, tmp_path: Path
) -> None:
    ensure_recordings_dir()
    missing = openprogram_home / "recordings" / "nosuch.jsonl"
    for command in (("cache", "nosuch"), ("export", "nosuch", "--otlp", str(tmp_path / "t.json"))):
        done = run_cli(openprogram_home, *command)
        assert done.returncode != 0
        assert done.stderr == f"error: recording file {missing}: file not found\n"
    trace = tmp_path / "nosuch.json"
    done = run_cli(openprogram_home, "import", str(trace), "--name", "back")
    assert done.returncode != 0
    assert done.stderr.endswith(f"error: trace file {trace}: file not found\n")
