"""A file of another format version is not read by this openprogram, but `list` and `show` still
count its calls and events as the TUI does (#42 item 11): every view says the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openprogram.recordings import ensure_recordings_dir, managed_path
from tests.recording_files import run_cli
from tests.recordings.test_migrate import SAID, write_version1


def rows_of_type(path: Path, kind: str) -> int:
    return sum(json.loads(line)["type"] == kind for line in path.read_text().splitlines())


@pytest.mark.parametrize("version", [1, 99])
def test_list_and_show_count_the_rows_of_another_format(
    openprogram_home: Path, version: int
) -> None:
    ensure_recordings_dir()
    path = write_version1(managed_path("old"))
    if version != 1:  # a newer format: the same rows under a number this openprogram cannot read
        lines = path.read_text().splitlines(keepends=True)
        lines[0] = lines[0].replace('"format_version":1', f'"format_version":{version}')
        path.write_text("".join(lines))
    events = rows_of_type(path, "event")
    assert rows_of_type(path, "request") == len(SAID) and events > len(SAID)

    (listed,) = json.loads(run_cli(openprogram_home, "list", "--json").stdout)["recordings"]
    assert (listed["calls"], listed["events"], listed["valid"]) == (len(SAID), events, False)
    shown = run_cli(openprogram_home, "show", "old", "--json")
    assert json.loads(shown.stdout)["events"] == events, shown.stdout  # its "calls" lists rows
    text = run_cli(openprogram_home, "show", "old").stdout
    assert f"{len(SAID)} calls, {events} events" in text
    assert f"{len(SAID)}" in run_cli(openprogram_home, "list").stdout.splitlines()[1]
