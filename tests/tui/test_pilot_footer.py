"""The footer at 80 columns: keys that do not fit are dropped, Help, Settings and q stay."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from tests.tui import check_support as fixtures
from tests.tui.pilot_support import recording_ready, until
from tui.app import OpenProgramTUI
from tui.screens.recordings import RecordingsScreen
from tui.screens.settings import SettingsScreen
from tui.widgets.common.key_footer import KeyFooter

Opener = Callable[[Pilot[None]], Awaitable[None]]


async def recordings_list(pilot: Pilot[None]) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, RecordingsScreen))
    await until(pilot, lambda: len(pilot.app.screen.summaries) == 2)  # type: ignore[attr-defined]


async def recording(pilot: Pilot[None]) -> None:
    await recordings_list(pilot)
    await pilot.press("enter")
    await recording_ready(pilot)


async def settings(pilot: Pilot[None]) -> None:
    await recordings_list(pilot)
    await pilot.press("s")
    await until(pilot, lambda: isinstance(pilot.app.screen, SettingsScreen))


async def check_mismatch(pilot: Pilot[None]) -> None:
    from tui.screens.check import CheckScreen

    await recordings_list(pilot)
    pilot.app.push_screen(CheckScreen(Path("echo.jsonl"), result=fixtures.content_mismatch()))
    await fixtures.after_result()(pilot)


async def diff(pilot: Pilot[None]) -> None:
    from tests.tui.diff_fixtures import record_diff_pair
    from tui.screens.diff import DiffScreen

    await recordings_list(pilot)
    a, b = await record_diff_pair(Path.cwd())
    pilot.app.push_screen(DiffScreen(a, b))
    await until(pilot, lambda: getattr(pilot.app.screen, "answers_done", False))


SCREENS: dict[str, Opener] = {
    "recordings": recordings_list,
    "recording": recording,
    "settings": settings,
    "check": check_mismatch,
    "diff": diff,
}


def footer_keys(pilot: Pilot[None]) -> tuple[list[FooterKey], FooterKey]:
    """The ordinary keys of the footer on screen, and the command palette key."""
    keys = list(pilot.app.screen.query_one(KeyFooter).query(FooterKey))
    palette = [key for key in keys if key.has_class("-command-palette")]
    assert len(palette) == 1, "the command palette key (^p) is always shown"
    return [key for key in keys if key not in palette], palette[0]


async def settled_footer(pilot: Pilot[None]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    footer = pilot.app.screen.query_one(KeyFooter)
    await until(pilot, lambda: footer._keys_shown == footer._keys_to_show())
    await pilot.pause()


@pytest.mark.parametrize("name", SCREENS)
async def test_footer_fits_80_columns_and_keeps_help_settings_and_q(
    name: str, demo_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = OpenProgramTUI()
    async with app.run_test(size=(80, 24)) as pilot:
        await SCREENS[name](pilot)
        await settled_footer(pilot)
        keys, palette = footer_keys(pilot)
        assert keys, "some keys are shown"
        assert palette.region.right <= 80
        assert max(key.region.right for key in keys) <= palette.region.x, "no key under ^p"
        for key in keys:
            assert key.region.width >= len(key.key_display) + 1 + len(key.description)
        actions = {key.action for key in keys}
        assert "help" in actions
        assert ("settings" in actions) == (name != "settings")
        assert actions & {"quit_from_first_screen", "back_from_key"}


async def test_wide_footer_shows_every_key_and_narrowing_drops_the_last(
    demo_home: Path,
) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=(200, 60)) as pilot:
        await recordings_list(pilot)
        await settled_footer(pilot)
        wide = [key.action for key in footer_keys(pilot)[0]]
        shown = {b.action for _, b, _, _ in pilot.app.screen.active_bindings.values() if b.show}
        assert set(wide) == shown, "200 columns: every key"
        await pilot.resize_terminal(80, 24)
        await settled_footer(pilot)
        narrow = [key.action for key in footer_keys(pilot)[0]]
        assert len(narrow) < len(wide)
        assert narrow == [action for action in wide if action in narrow], "order kept"
        assert narrow[0] == "open", "the screen's first key stays"
        assert "help" in narrow and "settings" in narrow
