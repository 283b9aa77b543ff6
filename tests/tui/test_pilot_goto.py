"""`:` — the go-to prompt over the footer: a call, a call's event, errors, cancelling."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, TabbedContent

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.recording.reader import scan_recording
from tests.tui.pilot_support import notifications, recording_ready
from tests.tui.tui_rows import call_rows, header, write_rows
from tui.app import OpenProgramTUI
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.recording.call_list import CallList
from tui.widgets.recording.event_list import EventList
from tui.widgets.recording.goto_bar import GotoBar
from tui.widgets.recording.message_view import MessageView

SIZE = (120, 40)
CALLS = 15
WORDS = [f"word{n} " for n in range(50)]  # 54 events a call: more than the list shows


@pytest.fixture
def many_calls(tmp_path: Path) -> Path:
    rows = [header()]
    for call in range(CALLS):
        rows += call_rows(call, WORDS, text=f"question {call}")
    return write_rows(tmp_path / "many.jsonl", rows)


async def test_call_dot_event_lands_on_that_event_with_its_message(many_calls: Path) -> None:
    recorded = scan_recording(many_calls).calls[12].events
    app = OpenProgramTUI([many_calls])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        bar = screen.query_one(GotoBar)
        await pilot.press("colon")
        assert bar.is_open and isinstance(screen.focused, Input)
        assert "Go to a call (0–14)" in str(bar.query_one("#goto-hint").render())
        await pilot.press(*"12.40", "enter")
        await pilot.pause()
        assert not bar.is_open
        assert screen.loaded is not None and screen.loaded.call_index == 12
        assert screen.query_one(CallList).cursor == 12
        assert screen.query_one(TabbedContent).active == "tab-events"
        events = screen.query_one(EventList)
        assert events.cursor == 40 and events.has_focus
        top = events.scroll_offset.y  # the cursor is in view: the list scrolled the first time
        assert top <= 40 < top + events.scrollable_content_region.height
        assembled = screen.query_one("#assembled", MessageView)
        assert assembled.message == assemble_message(recorded[:41])


async def test_a_call_alone_keeps_the_tab_and_the_focus(many_calls: Path) -> None:
    app = OpenProgramTUI([many_calls])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("colon", *"7", "enter")
        await pilot.pause()
        assert screen.loaded is not None and screen.loaded.call_index == 7
        assert screen.query_one(TabbedContent).active == "tab-request"
        assert screen.query_one(CallList).has_focus


async def test_esc_cancels_and_gives_the_focus_back(many_calls: Path) -> None:
    app = OpenProgramTUI([many_calls])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("colon", *"12.40", "enter", "colon", *"3", "escape")
        await pilot.pause()
        bar = screen.query_one(GotoBar)
        assert not bar.is_open
        assert screen.loaded is not None and screen.loaded.call_index == 12
        assert screen.query_one(EventList).has_focus and screen.query_one(EventList).cursor == 40
        await pilot.press("colon")  # opened again: the old text is gone
        assert bar.query_one(Input).value == ""


async def test_a_wrong_target_says_why_and_stays_open(many_calls: Path) -> None:
    app = OpenProgramTUI([many_calls])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        bar = screen.query_one(GotoBar)
        await pilot.press("colon", *"1x", "enter")
        assert bar.is_open and "12.40" in str(bar.query_one("#goto-hint").render())
        await pilot.press("backspace", "backspace", *"99", "enter")
        await pilot.pause()
        assert not bar.is_open and screen.loaded is not None and screen.loaded.call_index == 0
        assert any("no call 99" in n for n in notifications(app))
        await pilot.press("colon", *"3.999", "enter")
        await pilot.pause()
        assert screen.query_one(EventList).cursor == len(WORDS) + 3  # the last event
        assert any("showing the last" in n for n in notifications(app))


async def test_leaving_the_prompt_closes_it(many_calls: Path) -> None:
    app = OpenProgramTUI([many_calls])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("colon", "tab")
        await pilot.pause()
        assert not screen.query_one(GotoBar).is_open
        assert not isinstance(screen.focused, Input)


async def test_the_footer_under_the_prompt_is_not_rebuilt(many_calls: Path) -> None:
    app = OpenProgramTUI([many_calls])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        footer = screen.query_one(KeyFooter)
        keys = list(footer.children)
        await pilot.press("colon", *"12")
        await pilot.pause()
        assert list(footer.children) == keys  # held while covered: "[ ]" would be dimmed
        await pilot.press("escape")
        await pilot.pause()
        assert list(footer.children) == keys  # nothing it shows changed meanwhile
