"""Following a recording while another process writes it; a file changed, shortened or replaced
on disk while it is shown."""

from __future__ import annotations

import os
from pathlib import Path

from openprogram.recordings import start_recording
from tests.tui.appending_writer import AppendingWriter
from tests.tui.pilot_support import recording_ready, screen_text, until
from tests.tui.tui_rows import call_end, call_rows, event, header, request, text_events, write_rows
from tui.app import OpenProgramTUI
from tui.model.file_stamp import FileChange
from tui.screens.recording import RecordingScreen
from tui.widgets.recording.call_list import CallList
from tui.widgets.recording.event_list import EventList
from tui.widgets.recording.file_notice import FileNotice
from tui.widgets.recording.problem_banner import ProblemBanner

SIZE = (120, 30)
EVENTS = text_events(["one ", "two ", "three"])
FOLLOWING = "● following · f stops — new rows appear as they are written"


def facts(screen: RecordingScreen) -> str:
    return str(screen.query_one("#facts").render())


def notice(screen: RecordingScreen) -> str | None:
    return screen.query_one(FileNotice).notice


def one_call(tmp_path: Path) -> Path:
    return write_rows(tmp_path / "live.jsonl", [header(), *call_rows(0, ["a", "b"])])


async def test_following_shows_calls_and_events_as_another_process_writes_them(
    tmp_path: Path,
) -> None:
    path = one_call(tmp_path)
    app = OpenProgramTUI([path], follow=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        assert (
            screen.following and "✓ valid so far" in facts(screen) and notice(screen) == FOLLOWING
        )
        with AppendingWriter(path) as writer:
            writer.append(request(1) + event(1, 0, EVENTS[0]))
            await until(pilot, lambda: calls.row_count == 2)
            assert calls.cursor == 1  # on the latest call, it stays on the latest
            await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 1)
            await until(pilot, lambda: "call 1 in progress" in (notice(screen) or ""))
            row = next(line for line in screen_text(app) if "#1 " in line)
            assert "in progress" in row and "unfinished" not in row

            await pilot.press("right_square_bracket")  # the event stepper, on the last event
            events = screen.query_one(EventList)
            await until(pilot, lambda: events.row_count == 1)
            half_row = event(1, 1, EVENTS[1])
            writer.append(half_row[:25])  # the writer is half-way through a line
            index = screen.index
            assert index is not None
            await until(pilot, lambda: index.size == path.stat().st_size)
            assert index.pending_bytes == 25 and events.row_count == 1
            writer.append(half_row[25:] + event(1, 2, EVENTS[2]))
            await until(pilot, lambda: events.row_count == 3)
            assert events.cursor == 2  # stepping stays on the latest event
            await until(pilot, lambda: screen.verdict is not None and screen.verdict.following)
            assert not screen.query_one("#file-problems", ProblemBanner).has_class("-shown")
            assert "✗" not in facts(screen) and "truncated" not in "".join(screen_text(app))

            writer.append(event(1, 3, EVENTS[3]) + event(1, 4, EVENTS[4]) + call_end(1, 5))
            await until(pilot, lambda: notice(screen) == FOLLOWING)
            # Checked again once the file stops growing: both calls whole.
            await until(
                pilot, lambda: screen.verdict is not None and screen.verdict.facts.calls == 2
            )
            await until(
                pilot, lambda: facts(screen).endswith("2 calls · 11 events · ✓ valid so far")
            )
        await pilot.press("f")  # stop following: checked as a finished file
        await until(pilot, lambda: facts(screen).endswith("2 calls · 11 events · ✓ valid"))
        assert not screen.following and notice(screen) is None


async def test_without_follow_growth_is_offered_as_a_reload(tmp_path: Path) -> None:
    path = one_call(tmp_path)
    app = OpenProgramTUI([path])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        assert not screen.following and facts(screen).endswith("✓ valid")
        with AppendingWriter(path) as writer:
            writer.append(b"".join(call_rows(1, ["c"])))
        notice = screen.query_one(FileNotice)
        await until(pilot, lambda: notice.notice is not None)
        assert notice.notice == "file changed on disk — ctrl+r reloads · f follows"
        assert screen.query_one(CallList).row_count == 1  # nothing shown changed by itself
        await pilot.press("ctrl+r")
        await until(pilot, lambda: app.screen is not screen)
        again = await recording_ready(pilot)
        assert again.query_one(CallList).row_count == 2 and facts(again).endswith("✓ valid")


async def test_a_shortened_file_is_read_again_and_says_so(tmp_path: Path) -> None:
    path = one_call(tmp_path)
    app = OpenProgramTUI([path], follow=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        assert facts(screen).endswith("✓ valid so far")
        os.truncate(path, path.stat().st_size - 40)  # its bytes are gone: shown again as it is
        await until(pilot, lambda: app.screen is not screen)
        again = await recording_ready(pilot)
        assert again.following  # still followed
        assert "call 0 in progress" in (notice(again) or "")  # its call_end was cut off
        assert "✓ valid so far" in facts(again)  # a half-written last line waits while following
        await pilot.press("f")
        await until(pilot, lambda: again.verdict is not None and not again.verdict.following)
        assert notice(again) == "file was shortened on disk — read again"
        # As a finished file: cut off, and truncated.
        assert "✗ invalid (2 problems)" in facts(again)


async def test_a_replaced_file_says_so(tmp_path: Path) -> None:
    path = one_call(tmp_path)
    app = OpenProgramTUI([path])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        other = write_rows(tmp_path / "other.jsonl", [header(), *call_rows(0, ["z"]), request(1)])
        os.replace(other, path)
        await until(pilot, lambda: screen.file_watch.change is FileChange.REPLACED)
        assert "validity unknown (file was replaced on disk)" in facts(screen)
        await pilot.press("f")  # following the old content is refused
        assert not screen.following


async def test_the_file_being_recorded_into_is_followed_by_default() -> None:
    path = start_recording("live")
    app = OpenProgramTUI([path])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        screen = app.screen
        assert isinstance(screen, RecordingScreen)
        await until(pilot, lambda: screen.following)
        assert notice(screen) == FOLLOWING
        with AppendingWriter(path) as writer:
            writer.append(request(0))
            await until(pilot, lambda: screen.query_one(CallList).row_count == 1)
