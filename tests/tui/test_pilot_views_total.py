"""Every TUI view is total over what the strict reader accepts (issue #40, item 4): the call list
(with every number column and every sort), the timeline and every tab of every call's detail draw
any accepted file, however odd its numbers and strings, without an exception."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from openprogram.providers.recording.reader import read_recording
from tests.accepted_recordings import recording_lines, write_rows
from tests.tui.pilot_support import until
from tui.app import OpenProgramTUI
from tui.model.call_order import SortKey
from tui.screens.recording import RecordingScreen
from tui.widgets.recording.call_list import CallList


async def walk_every_view(path: Path) -> None:
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, RecordingScreen))
        screen = pilot.app.screen
        assert isinstance(screen, RecordingScreen)
        await until(pilot, lambda: screen.verdict is not None)
        assert screen.index is not None
        calls = screen.query_one(CallList)
        calls.focus()
        await pilot.press("w")  # every number column
        for ordinal in range(len(screen.index.calls)):
            await until(
                pilot,
                lambda o=ordinal: screen.loaded is not None and screen.loaded.span.ordinal == o,
            )
            for _ in range(4):  # Request, Events, Response, Raw
                await pilot.press("right_square_bracket")
                await pilot.pause()
            await pilot.press("J")
        for _ in SortKey:  # every sort, back to file order
            await pilot.press("o")
            await until(pilot, lambda: calls.ordering is None)
        await pilot.press("t")
        await until(
            pilot, lambda: screen.browser is not None and screen.browser.timeline is not None
        )
        await pilot.pause()


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rows=recording_lines())
def test_every_view_draws_every_accepted_file(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    path = write_rows(tmp_path / "x.jsonl", rows)
    read_recording(path)  # the strategy makes only files the reader accepts
    asyncio.run(walk_every_view(path))
