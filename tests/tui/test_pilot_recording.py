"""The recording screen driven by keys and mouse: calls, tabs, stepping, go to, find, damage."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static, TabbedContent, TextArea

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.recording.reader import scan_recording
from tests.tui.pilot_support import (
    keys_at_once,
    notifications,
    recording_ready,
    screen_text,
    until,
)
from tests.tui.tui_rows import call_rows, header, write_rows
from tui.app import OpenProgramTUI
from tui.model.navigation import GotoTarget
from tui.screens.help import HelpScreen
from tui.theme import DARK_THEME, LIGHT_THEME
from tui.widgets.common.json_tree import JsonTree
from tui.widgets.recording.call_detail import CallDetail
from tui.widgets.recording.call_list import CallList
from tui.widgets.recording.event_list import EventList
from tui.widgets.recording.goto_bar import GotoBar
from tui.widgets.recording.message_view import MessageView
from tui.widgets.recording.problem_banner import ProblemBanner

SIZE = (120, 40)


async def test_calls_move_with_j_k_g_G_and_shift_j_k(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)

        async def shown(call_index: int) -> None:
            # Keys closer than 0.1 s are a burst: the call is shown once the cursor stops.
            await until(
                pilot, lambda: screen.loaded is not None and screen.loaded.call_index == call_index
            )

        assert calls.row_count == 5 and calls.has_focus
        await pilot.press("j", "j")
        assert calls.cursor == 2
        await shown(2)
        await pilot.press("G")
        await shown(4)
        await pilot.press("g", "down")
        await shown(1)
        await pilot.press("enter")  # into the detail
        assert not calls.has_focus
        await pilot.press("J", "J")
        assert calls.cursor == 3
        await shown(3)
        await pilot.press("K")
        await shown(2)
        await pilot.press("escape")
        assert calls.has_focus


async def test_keys_typed_fast_show_only_the_call_the_cursor_stops_on(demo_file: Path) -> None:
    """A burst of moves (a key held down) is not kept waiting behind the detail of every call it
    passes: the cursor follows the keys, and the call it stops on is shown."""
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        shown: list[int] = []
        browser = screen.browser
        assert browser is not None
        show_call = browser.show_call

        def recorded(ordinal: int, *args: object, **kwargs: object) -> None:
            shown.append(ordinal)
            show_call(ordinal, *args, **kwargs)  # type: ignore[arg-type]

        browser.show_call = recorded  # type: ignore[method-assign]
        browser.burst_seconds = 1.0  # wide enough that a slow machine's keys are one burst too
        keys_at_once(app, "j")
        await until(pilot, lambda: shown == [1])  # a move on its own: its call is shown
        for _ in range(2):
            keys_at_once(app, "j")
            await pilot.pause()
            assert shown == [1]  # moves in a burst: the cursor follows, no detail is read
        assert screen.query_one(CallList).cursor == 3
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 3)
        assert shown == [1, 3]
        await pilot.press("k")  # a move on its own shows its call
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 2)
        assert shown == [1, 3, 2]


async def test_tabs_cycle_with_brackets_and_raw_shows_the_rows(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        tabs = screen.query_one(TabbedContent)
        assert tabs.active == "tab-request"
        await pilot.press("right_square_bracket")
        assert tabs.active == "tab-events"
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert tabs.active == "tab-raw"
        await pilot.pause()
        raw = screen.query_one("#raw", TextArea).text
        assert raw.splitlines()[0] == demo_file.read_text().splitlines()[1]
        await pilot.press("j")
        await pilot.pause()
        raw = screen.query_one("#raw", TextArea).text
        assert raw.startswith('{"base":0,"call_index":1,')  # call 1 refers to call 0 (format 2)


async def test_brackets_switch_tabs_from_inside_a_tab_too(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        tabs = screen.query_one(TabbedContent)
        await pilot.press("right_square_bracket", "enter", "j")
        assert screen.query_one(EventList).has_focus
        for tab, focused in [
            ("tab-response", "response"),
            ("tab-raw", "raw"),
            ("tab-request", "transcript"),
        ]:
            await pilot.press("right_square_bracket")
            await pilot.pause()
            assert tabs.active == tab  # not sent back by the focus left behind in a hidden tab
            assert screen.focused is not None and screen.focused.id == focused


async def test_the_footer_is_rebuilt_only_when_its_keys_change(demo_file: Path) -> None:
    from tui.widgets.common.key_footer import KeyFooter

    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        footer = screen.query_one(KeyFooter)
        keys = list(footer.children)
        await pilot.press("enter", "h", "right_square_bracket")  # the focus moves about
        await pilot.pause()
        assert list(footer.children) == keys
        await pilot.press("slash")  # in the find prompt "[ ]" is typed, so the key is dimmed
        await pilot.pause()
        assert list(footer.children) != keys


async def test_stepping_shows_the_fold_of_events_up_to_the_cursor(demo_file: Path) -> None:
    recorded = scan_recording(demo_file).calls[2].events
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("j", "j", "right_square_bracket", "enter")
        events = screen.query_one(EventList)
        assembled = screen.query_one("#assembled", MessageView)
        assert events.has_focus and events.cursor == 0
        await pilot.press("j", "j", "j")
        assert assembled.message == assemble_message(recorded[:4])
        await pilot.press("k")
        assert assembled.message == assemble_message(recorded[:3])
        for k in [*range(len(recorded)), 7, 0, len(recorded) - 1, 12]:
            events.move_to(k)
            await pilot.pause()
            assert assembled.message == assemble_message(recorded[: k + 1]), f"event {k}"
        await pilot.press("G")
        assert assembled.message == recorded[-1].message  # done carries the final message


async def test_the_event_caption_counts_the_events_of_the_call(demo_file: Path) -> None:
    count = len(scan_recording(demo_file).calls[0].events)
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("right_square_bracket", "enter")
        caption = screen.query_one("#assembled .message-view--caption", Static)
        await until(pilot, lambda: str(caption.content).startswith("Assembled from event 0 of"))
        assert str(caption.content).startswith(f"Assembled from event 0 of {count} events ·")
        await pilot.press("G")
        last = f"Assembled from events 0–{count - 1} of {count} events · done"
        await until(pilot, lambda: str(caption.content).startswith(last))


async def test_goto_a_call_and_an_event(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        bar = screen.query_one(GotoBar)
        await pilot.press("colon")
        assert bar.is_open and isinstance(screen.focused, Input)
        await pilot.press(*"2.5", "enter")
        await pilot.pause()
        assert not bar.is_open
        assert screen.loaded is not None and screen.loaded.call_index == 2
        assert screen.query_one(TabbedContent).active == "tab-events"
        assert screen.query_one(EventList).cursor == 5
        assert screen.query_one(EventList).has_focus
        await pilot.press("colon", *"oops", "enter")
        assert bar.is_open
        assert "12.40" in str(bar.query_one("#goto-hint").render())
        await pilot.press("escape", "colon", *"99", "enter")
        await pilot.pause()
        assert not bar.is_open and screen.loaded.call_index == 2
        assert any("no call 99" in n for n in notifications(app))


async def test_find_marks_rows_and_n_N_move_between_them(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("slash", *"pong")
        calls = screen.query_one(CallList)
        await until(pilot, lambda: len(calls.matches) > 0)
        assert list(calls.matches) == [2, 3, 4]  # call 2 asks for it, later ones carry it along
        assert calls.cursor == 2
        await pilot.press("enter", "n")
        assert calls.cursor == 3
        await pilot.press("n", "n")
        assert calls.cursor == 2
        await pilot.press("N")
        assert calls.cursor == 4
        await pilot.press("escape")
        assert len(calls.matches) == 0


async def test_find_in_events_searches_the_selected_call(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("right_square_bracket", "enter", "slash", *"tool_call", "enter")
        events = screen.query_one(EventList)
        await until(pilot, lambda: len(events.matches) > 0)
        assert list(events.matches) == [29]
        assert events.cursor == 29


async def test_a_damaged_file_opens_with_its_problems_marked(damaged_file: Path) -> None:
    app = OpenProgramTUI([damaged_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        banner = screen.query_one("#file-problems", ProblemBanner)
        assert banner.has_class("-shown")
        text = str(banner.render())
        assert "2 problems" in text and "damaged: call 3" in text
        calls = screen.query_one(CallList)
        assert calls.row_count == 4
        await pilot.press("G")
        detail = screen.query_one(CallDetail)
        call_banner = str(detail.query_one("#call-problems", ProblemBanner).render())
        assert "line 93, call 3: call has no call_end" in call_banner
        assert (
            screen.browser is not None and screen.browser.table.summary(3).outcome == "unfinished"
        )


async def test_a_missing_file_says_so(tmp_path: Path) -> None:
    app = OpenProgramTUI([tmp_path / "gone.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        banner = app.screen.query_one("#file-problems", ProblemBanner)
        assert "file not found" in str(banner.render())
        await pilot.press("j", "colon", "escape", "slash", "escape", "q")
    assert app.return_code == 0


async def test_clicking_a_call_selects_it(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.click(CallList, offset=(5, 3))
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 3)


async def test_r_opens_the_rerun_with_the_command_to_edit(demo_file: Path) -> None:
    from tui.screens.command_editor import CommandEditorScreen
    from tui.screens.recording import RecordingScreen

    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        await recording_ready(pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, CommandEditorScreen))
        await pilot.press("escape")  # nothing ran: back to the recording
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))


async def test_help_lists_the_active_bindings_with_ids(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        await recording_ready(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        ids = {row.binding_id for row in app.screen.rows}
        assert {"recording.goto", "check", "help", "settings", "list.down", "quit"} <= ids
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)


async def test_theme_toggles_and_q_quits(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        await recording_ready(pilot)
        await pilot.press("ctrl+t")
        assert app.theme == LIGHT_THEME
        await pilot.press("ctrl+t", "q")
        assert app.theme == DARK_THEME
    assert app.return_code == 0


async def test_objects_alive_once_a_recording_is_shown_are_frozen_out_of_collections(
    demo_file: Path,
) -> None:
    """One `gc.freeze()` after the first recording is on screen keeps full collections (which
    would walk every loaded model) out of later frames such as a jump's."""
    import gc

    gc.unfreeze()
    app = OpenProgramTUI([demo_file])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await recording_ready(pilot)
            await until(pilot, lambda: gc.get_freeze_count() > 0)
    finally:
        gc.unfreeze()


async def test_a_broken_streams_response_claims_no_stop_reason(demo_file: Path) -> None:
    """The demo's call 4 broke mid-stream (no done/error event): its Response is assembled from
    the events and says no stop reason was recorded, not `stop: stop`."""
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("G", "right_square_bracket", "right_square_bracket")
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 4)
        usage = screen.query_one("#response .message-view--usage", Static)
        await until(pilot, lambda: "tokens" in str(usage.render()))
        assert "stop: none recorded" in str(usage.render())


async def test_the_request_tree_shows_as_much_of_a_string_as_the_width_holds(
    tmp_path: Path,
) -> None:
    """The JSON tree cut every string at 60 characters, at any width (issue #42 item 22): a wide
    terminal shows the message whole, a narrow one still cuts it with its length."""
    words = " ".join(f"word{n:03d}" for n in range(10))  # 79 characters
    path = write_rows(tmp_path / "long.jsonl", [header(), *call_rows(0, ["ok"], text=words)])
    field = ("context", "messages", 0, "content")
    for columns, whole in ((200, True), (80, False)):
        app = OpenProgramTUI([path], start_at=GotoTarget(0), field=field)
        async with app.run_test(size=(columns, 40)) as pilot:
            await recording_ready(pilot)
            tree = app.screen.query_one(JsonTree)
            await until(pilot, lambda t=tree: t.cursor_node is not None and t.cursor_node.data)
            await pilot.pause()
            line = next(line for line in screen_text(app) if "content:" in line)
            assert ("word009" in line) is whole, line
            label = tree.cursor_node.label.plain if tree.cursor_node else ""
            assert label.endswith("(79 chars)") is not whole, label  # cut: it says its length
            assert "word006" in label  # the start, at any width (60 characters at least)
