"""The call's own detail says how long and how much (issue #30): the Response tab's caption."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from openprogram.providers import Model, UserMessage
from openprogram.providers.recording.reader import read_recording
from openprogram.recordings.call_stats import call_stats
from openprogram.recordings.cost import format_cost
from tests.recordings.prompt_cache_sessions import record_session
from tests.tui.pilot_support import notifications, recording_ready, until
from tests.tui.timed_session import record_timed_session
from tui.app import OpenProgramTUI
from tui.model.navigation import GotoTarget
from tui.widgets.common.json_tree import JsonTree
from tui.widgets.recording.call_detail import CallDetail
from tui.widgets.recording.call_list import CallList

PRICED = Model(id="gpt-4o-mini", name="GPT-4o mini", api="scripted", provider="openai")


def caption(detail: CallDetail) -> str:
    return str(detail.query_one("#response").query_one(".message-view--caption", Static).content)


@pytest.fixture
def priced(tmp_path: Path) -> Path:
    """4 calls of a model the price table knows, 80 ms each, 510 ms apart (call 2 slow)."""
    return record_timed_session(tmp_path / "s.jsonl", calls=4, slow_call=2, model=PRICED)


@pytest.fixture
def unpriced(tmp_path: Path) -> Path:
    return record_timed_session(tmp_path / "s.jsonl", calls=2, slow_call=5)


async def test_the_response_tab_names_times_tokens_and_the_priced_cost(priced: Path) -> None:
    path = priced
    recorded = read_recording(path).calls
    expected = call_stats(recorded[1], recorded[2], priced=True)
    assert expected.cost is not None and expected.usage is not None
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        detail = screen.query_one(CallDetail)
        await pilot.press("j")
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 1)
        detail.show_tab("tab-response")
        await until(pilot, lambda: "tokens in" in caption(detail))
        text = caption(detail)
        assert text.startswith("Final message of call 1 · outcome complete\n")
        assert "took 80ms · first token " in text and "gap after 510ms" in text
        assert f"tokens in {expected.usage.input} · out {expected.usage.output} · " in text
        assert "cache read 0 · cache write 0 · reasoning –" in text  # not reported: `–`, not 0
        assert (
            f"cost {format_cost(expected.cost)} (genai-prices 0.2.3 (bundled price table of 2026-11-10))"
            in text
        )

        await pilot.press("G")  # the last call: no call after it, so no gap
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 3)
        await until(pilot, lambda: "Final message of call 3" in caption(detail))
        await until(pilot, lambda: "tokens in" in caption(detail))
        assert "· last call\n" in caption(detail)


async def test_a_model_without_a_known_price_shows_no_cost(unpriced: Path) -> None:
    path = unpriced
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        await until(pilot, lambda: screen.query_one(CallList).numbers is not None)
        detail = screen.query_one(CallDetail)
        detail.show_tab("tab-response")
        await until(pilot, lambda: "tokens in" in caption(detail))
        assert "no known price for this model" in caption(detail)
        assert "$" not in caption(detail)


def _edit_at_3(call: int, messages: list[object]) -> None:
    if call == 3:
        messages[2] = UserMessage(content="Next step 1, but shorter this time.")


@pytest.fixture
def broken_at_3(tmp_path: Path) -> Path:
    """5 calls of one conversation; call 3 edits an earlier message (the prefix breaks)."""
    return record_session(tmp_path / "agent.jsonl", 5, before_call=_edit_at_3)


async def test_b_jumps_from_the_cache_break_to_its_field_in_the_request(broken_at_3: Path) -> None:
    """Issue #43: the Response caption names where the prompt-cache prefix broke
    (`context.messages[2].content`); `b` opens the Request tab's tree at that field, and on a
    call that kept its prefix says there is no break."""
    app = OpenProgramTUI([broken_at_3], start_at=GotoTarget(3))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        await until(
            pilot, lambda: screen.browser is not None and screen.browser.numbers is not None
        )
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 3)
        await pilot.press("b")
        tree = screen.query_one(JsonTree)
        await until(pilot, lambda: tree.has_focus and tree.cursor_node is not None)
        await until(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data)
        node = tree.cursor_node
        assert node is not None and node.data is not None
        assert node.data.path == ("context", "messages", 2, "content")
        await pilot.press("K", "b")  # call 2 kept the prefix of call 1
        await until(pilot, lambda: any("no break" in n for n in notifications(app)))
