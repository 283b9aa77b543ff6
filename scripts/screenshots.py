"""Regenerate the SVG captures of every openprogram-tui screen in `screenshots/`.

    python scripts/screenshots.py            # writes screenshots/*.svg

Each capture runs the real app headless at 120x40 on the demo recording (recorded with the library
from a fixed clock, in a temporary state directory), so the pictures are the same on every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ["TEXTUAL_ANIMATIONS"] = "none"

from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerCancelled

from tui.app import OpenProgramTUI
from tui.model.demo import DAMAGED_DEMO_ID, prepare_demo_home
from tui.screens.recording import RecordingScreen
from tui.theme import DARK_THEME, LIGHT_THEME

OUT = Path(__file__).resolve().parent.parent / "screenshots"
SIZE = (120, 40)


@dataclass(frozen=True)
class Capture:
    """One picture: which file to open (None: the recordings list), the keys, the theme."""

    name: str
    title: str
    path: str | None
    keys: Sequence[str] = ()
    theme: str = DARK_THEME


CAPTURES = (
    Capture("recordings", "Recordings: the managed recordings, the active one marked", None),
    Capture(
        "recording-request",
        "A call's request as a transcript and a JSON tree",
        "demo",
        ("j", "j", "j"),
    ),
    Capture(
        "recording-events",
        "Stepping through events: the message assembled so far",
        "demo",
        ("colon", *"0.26", "enter"),
    ),
    Capture(
        "recording-response",
        "The final message: thinking, text, tool calls, usage",
        "demo",
        ("j", "j", "right_square_bracket", "right_square_bracket"),
    ),
    Capture("recording-raw", "The call's rows as stored", "demo", ("G", "left_square_bracket")),
    Capture(
        "recording-find", "Finding calls: / pong, n / N between matches", "demo", ("slash", *"pong")
    ),
    Capture(
        "damaged",
        "A damaged file still opens, its problems marked",
        "damaged",
        ("G", "right_square_bracket"),
    ),
    Capture("settings", "Settings: the next start's record/replay mode", None, ("s",)),
    Capture("help", "Help, generated from the bindings", "demo", ("question_mark",)),
    Capture(
        "light-theme",
        "The light theme",
        "demo",
        ("colon", *"2.20", "enter"),
        LIGHT_THEME,
    ),
)


async def settle(pilot: Pilot[None], done: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app work until `done()` (background indexing, validation, listings)."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not settle")
        # A worker superseded by a newer one (an exclusive reload) ends cancelled: wait again.
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.02)


def recording_settled(app: OpenProgramTUI) -> bool:
    screen = app.screen
    return not isinstance(screen, RecordingScreen) or (
        screen.verdict is not None and screen.loaded is not None
    )


async def capture(item: Capture, demo: Path) -> str:
    paths = {"demo": [demo], "damaged": [demo.with_name(f"{DAMAGED_DEMO_ID}.jsonl")], None: []}
    app = OpenProgramTUI(paths[item.path], theme=item.theme)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: app.record_replay_status is not None and recording_settled(app))
        await pilot.pause(0.1)
        await pilot.press(*item.keys)
        await settle(pilot, lambda: recording_settled(app))
        await pilot.pause(0.3)
        return app.export_screenshot(title=f"openprogram-tui · {item.title}")


async def capture_diff(folder: Path) -> str:
    """The diff view of two small recordings (one request, two answers changed, one call added)."""
    sys.path.insert(0, str(OUT.parent))
    from tests.tui.diff_fixtures import record_diff_pair
    from tui.screens.diff import DiffScreen

    a, b = await record_diff_pair(folder)
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        await settle(
            pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff is not None
        )
        await pilot.pause(0.3)
        return app.export_screenshot(title="openprogram-tui · Diff: two recordings call by call")


def main() -> int:
    Input._toggle_cursor = lambda self: None  # type: ignore[method-assign]  # no blinking cursor
    home = Path(tempfile.mkdtemp(prefix="openprogram-tui-screenshots-"))
    try:
        demo = prepare_demo_home(home)
        OUT.mkdir(exist_ok=True)
        for item in CAPTURES:
            svg = asyncio.run(capture(item, demo))
            (OUT / f"{item.name}.svg").write_text(svg, encoding="utf-8")
            print(f"screenshots/{item.name}.svg  {item.title}")
        pair = home / "diff"
        pair.mkdir()
        (OUT / "diff.svg").write_text(asyncio.run(capture_diff(pair)), encoding="utf-8")
        print("screenshots/diff.svg  Diff: two recordings call by call")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
