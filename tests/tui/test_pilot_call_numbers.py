"""The call list's numbers, sort and filter in the app (issue #30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot_support import recording_ready, screen_text, until
from tests.tui.timed_session import record_timed_session
from tests.tui.tui_rows import call_rows, header, write_rows
from tui.app import OpenProgramTUI
from tui.model.call_order import CallOrder, SortKey
from tui.model.recording_index import KEYS
from tui.widgets.recording.call_list import CallList

SLOW = 23


@pytest.fixture
def session(tmp_path: Path) -> Path:
    """40 calls of 80 ms, 510 ms apart; call `SLOW` takes 30 s more (recorded outside the loop)."""
    return record_timed_session(tmp_path / "s.jsonl", calls=40, slow_call=SLOW)


async def test_o_sorts_by_duration_and_the_slow_call_comes_first(session: Path) -> None:
    path = session
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        await until(pilot, lambda: calls.numbers is not None and calls.numbers.known(0))
        assert "80ms" in calls.render_row(0, 46).plain  # the duration beside the model
        await pilot.press("o")
        await until(pilot, lambda: calls.order.key is SortKey.DURATION and calls.ordering is None)
        assert calls.cursor == 0 and calls.cursor_ordinal == SLOW
        assert "30s" in calls.render_row(0, 46).plain
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == SLOW)
        await pilot.press("O")  # fastest first: the slow one last
        await until(pilot, lambda: not calls.order.descending and calls.ordering is None)
        assert calls.ordinal_at(calls.row_count - 1) == SLOW
        await pilot.press("o", "o", "o", "o", "o", "o")  # round to file order
        await until(pilot, lambda: calls.order.key is SortKey.FILE)
        assert calls.shown is None and calls.row_count == 40


async def test_a_filter_keeps_the_slow_calls_and_j_moves_among_them(session: Path) -> None:
    path = session
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        await pilot.press("ampersand", *"slower:10", "enter")
        await until(pilot, lambda: calls.order.filter.active and calls.ordering is None)
        assert calls.row_count == 1 and calls.cursor_ordinal == SLOW
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == SLOW)
        await pilot.press("ampersand", *"bad:filter", "enter")  # refused, the bar says why
        assert calls.order.filter.slower_than_ms == 10_000
        await pilot.press("escape")
        await pilot.press("ampersand", "ctrl+u", "enter")  # empty: every call again
        await until(pilot, lambda: not calls.order.active)
        assert calls.row_count == 40 and calls.cursor_ordinal == SLOW  # still on the same call


async def test_w_widens_the_list_to_tokens_first_token_and_gap(session: Path) -> None:
    path = session
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        await pilot.press("w")
        await until(pilot, lambda: calls.outer_size.width > 48)
        await until(pilot, lambda: calls.numbers is not None and calls.numbers.known(4))
        heading = calls.heading_text(calls.scrollable_content_region.width).plain
        assert all(word in heading for word in ("took", "in/out", "first", "gap"))
        row = calls.render_row(0, calls.scrollable_content_region.width).plain
        assert "80ms" in row and "510ms" in row  # took, and the gap after it


@pytest.mark.parametrize(
    ("columns", "shown"),
    [(150, ("took", "in/out", "first")), (200, ("took", "in/out", "first", "gap", "cost"))],
)
async def test_a_wide_terminal_gives_the_list_its_number_columns(
    session: Path, columns: int, shown: tuple[str, ...]
) -> None:
    """docs/tui.md: "`w`, or a wide terminal". At 120 and 200 columns the list stayed 48 wide with
    `took` only (issue #42 item 3): from 150 columns the width is used without a key (at 120 the
    call beside the list would lose 14 of its 72 columns)."""
    async with OpenProgramTUI([session]).run_test(size=(columns, 30)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        heading = calls.heading_text(calls.scrollable_content_region.width).plain
        assert all(word in heading for word in shown), heading
        await pilot.press("w")  # still widens further
        await until(pilot, lambda: calls.outer_size.width >= columns * 0.7 - 1)


async def test_escape_stops_reading_every_call_to_sort(session: Path) -> None:
    path = session
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        KEYS.key_arrived(hold=2)  # as if keys kept coming: the reading waits, half-way through
        calls.set_order(CallOrder(SortKey.DURATION))
        assert calls.ordering is not None and calls.busy is not None  # says what it is doing
        await pilot.press("escape")
        assert calls.ordering is None and calls.busy is None
        KEYS.key_arrived(hold=0)
        await until(pilot, lambda: not list(screen.workers))  # the reading stopped
        assert calls.order.key is SortKey.FILE and screen.is_attached  # still on the screen


async def test_a_sort_by_a_column_not_on_screen_names_its_key_in_the_heading(
    session: Path,
) -> None:
    """#42 item 4: at 80 columns only `took` is shown; sorted by first token, gap, tokens or
    cost the order looked random with nothing naming the key."""
    from tui.widgets.recording.call_list import CallHeading

    async with OpenProgramTUI([session]).run_test(size=(80, 24)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        heading = screen.query_one(CallHeading)
        await pilot.press("o")  # took: its column says it
        await until(pilot, lambda: calls.order.key is SortKey.DURATION and calls.ordering is None)
        assert "took↓" in str(heading.render()) and "by " not in str(heading.render())
        for key in (SortKey.FIRST_TOKEN, SortKey.GAP, SortKey.TOKENS_IN):
            await pilot.press("o")
            await until(pilot, lambda k=key: calls.order.key is k and calls.ordering is None)
            assert f"{key.value}↓" in str(heading.render())  # `by …` where it fits
        await pilot.press("O")
        await until(pilot, lambda: not calls.order.descending and calls.ordering is None)
        assert "by tokens in↑" in str(heading.render())  # 13 of the 14 columns


async def test_a_filter_that_matches_nothing_shows_no_call(session: Path) -> None:
    """#42 item 21: the list said `no calls` while the detail still showed the hidden call."""
    from tui.widgets.recording.call_detail import CallDetail

    async with OpenProgramTUI([session]).run_test(size=(80, 24)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        detail = screen.query_one(CallDetail)
        assert detail.display
        await pilot.press("ampersand", *"model:nosuchmodel", "enter")
        await until(pilot, lambda: calls.order.filter.active and calls.ordering is None)
        assert calls.row_count == 0 and not detail.display
        await pilot.press("ampersand", "ctrl+u", "enter")  # every call again: the call is back
        await until(pilot, lambda: not calls.order.active)
        assert calls.row_count == 40 and detail.display
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 0)


async def test_the_model_name_stays_whole_at_80_columns_with_three_digit_calls(
    tmp_path: Path,
) -> None:
    """At 80 columns, once call numbers had three digits, rows read `openai/gpt-4…` (issue #42
    item 19): where `provider/model` does not fit, the model's own name is shown whole."""
    rows = [header()]
    for call_index in range(120):
        rows += call_rows(call_index, ["hello ", "world"])
    path = write_rows(tmp_path / "long.jsonl", rows)
    async with OpenProgramTUI([path]).run_test(size=(80, 24)) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("G")
        calls = screen.query_one(CallList)
        await until(pilot, lambda: calls.cursor_ordinal == 119)
        await pilot.pause()
        last = next(line for line in screen_text(pilot.app) if "#119" in line)
        assert " gpt-4o-mini " in last and "gpt-4…" not in last, last
