"""One file, the same numbers and the same word: `recordings list`, `show`, the TUI's list and view.

Each file is put in the managed root and read by every view; the counts are also tallied here,
row by row, as the definition in `docs/recording-format.md` says (calls: request rows found,
events: event rows found, whole or not).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.widgets import DataTable, Label

from openprogram.recordings import managed_path
from tests.recording_files import run_cli
from tests.tui.conftest import write_private
from tests.tui.pilot_support import recording_ready, until
from tui.app import OpenProgramTUI
from tui.model.demo import damage_copy
from tui.screens.recordings import RecordingsScreen
from tui.widgets.common.title_bar import TitleBar


def cut_in_first_call(data: bytes) -> bytes:
    """The demo cut off inside a row of its first call: one unfinished call, nothing whole."""
    lines = data.split(b"\n")
    return b"\n".join(lines[:15]) + b"\n" + lines[15][: len(lines[15]) // 2]


def write_shape(shape: str, demo_bytes: bytes, scratch: Path) -> Path:
    """The managed recording `shape`: the demo, `--demo`'s damaged copy, or cut in call 0."""
    path = managed_path(shape)
    if shape == "unfinished-last-call":
        path.parent.mkdir(parents=True, exist_ok=True)
        damage_copy(write_private(scratch / "source.jsonl", demo_bytes), path)
    else:
        write_private(path, demo_bytes if shape == "valid" else cut_in_first_call(demo_bytes))
    path.parent.chmod(0o700)
    path.parent.parent.chmod(0o700)
    return path


def tally(data: bytes) -> tuple[int, int]:
    """Request rows and event rows among the file's whole lines (the definition, by hand)."""
    kinds = [json.loads(line)["type"] for line in data.split(b"\n")[:-1] if line.strip()]
    return kinds.count("request"), kinds.count("event")


async def tui_list_row(recording_id: str) -> list[str]:
    app = OpenProgramTUI()
    async with app.run_test(size=(160, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
        screen = app.screen
        assert isinstance(screen, RecordingsScreen)
        await until(pilot, lambda: bool(screen.summaries))
        table = screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]
    return next(row for row in rows if row[1] == recording_id)


async def tui_view_facts(path: Path) -> str:
    app = OpenProgramTUI([path])
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await recording_ready(pilot)
        return str(screen.query_one(TitleBar).query_one("#facts", Label).content)


@pytest.mark.parametrize("shape", ["valid", "unfinished-last-call", "truncated-in-first-call"])
async def test_list_view_and_show_give_the_same_counts_and_word(
    shape: str, openprogram_home: Path, demo_bytes: bytes, tmp_path: Path
) -> None:
    path = write_shape(shape, demo_bytes, tmp_path)
    calls, events = tally(path.read_bytes())
    word = "valid" if shape == "valid" else "invalid"
    assert calls >= 1 and events >= 1

    listed = run_cli(openprogram_home, "list")
    row = next(line for line in listed.stdout.splitlines() if f" {shape} " in line)
    assert re.search(rf"\s{calls}\s+{events}\s", row), row
    assert re.search(rf"\s{word}(:|$)", row.rstrip()), row

    shown = run_cli(openprogram_home, "show", shape).stdout
    status = next(line for line in shown.splitlines() if line.startswith("status:"))
    totals = next(line for line in shown.splitlines() if line.startswith("totals:"))
    assert status.split()[1].rstrip(":") == word, status
    assert totals.startswith(f"totals:    {calls} call"), totals
    assert f" {events} events," in totals, totals

    cells = await tui_list_row(shape)
    assert cells[3:5] == [str(calls), str(events)]
    assert cells[6].split()[1].rstrip(":") == word

    facts = await tui_view_facts(path)
    assert f"· {calls} call" in facts and f"· {events} events ·" in facts, facts
    assert facts.endswith(f"✓ {word}") if word == "valid" else f"✗ {word} (" in facts, facts
    if shape != "valid":  # the call the recording stopped in is named the same way everywhere
        assert "(1 unfinished)" in totals and "(1 unfinished)" in facts
