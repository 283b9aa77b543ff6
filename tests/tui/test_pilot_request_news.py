"""The Request tab opens on what the call sent that the call before it had not; `u` unfolds."""

from __future__ import annotations

from pathlib import Path

from tests.tui.pilot_support import notifications, recording_ready, screen_text, until
from tui.app import OpenProgramTUI
from tui.model.transcript import bounded_entry
from tui.widgets.recording.transcript import Transcript
from tui.widgets.recording.transcript_entry import TranscriptEntryBox

SIZE = (120, 40)


def titles(transcript: Transcript) -> list[str]:
    """The turns the transcript shows (boxes are mounted for those near the view), each mounted
    box showing its turn."""
    boxes = list(transcript.query_children(TranscriptEntryBox))
    assert [box.entry for box in boxes] == [bounded_entry(e) for e in transcript.entries][
        : len(boxes)
    ]
    return [entry.title for entry in transcript.entries]


async def test_a_later_call_opens_on_its_new_messages_and_u_unfolds(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        transcript = screen.query_one(Transcript)
        await pilot.press("j", "j", "j")
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 3)
        await pilot.pause()
        assert titles(transcript) == [
            "Earlier conversation",
            "Assistant · toolUse",
            "Tool result · echo (call_2_2)",
            "Tool result · echo (call_2_3)",
        ]
        text = "\n".join(screen_text(app))
        assert "5 earlier messages, same as call 2 — press u to unfold" in text
        assert "New in this call (since call 2)" in text

        await pilot.press("u")
        await pilot.pause()
        assert titles(transcript)[:2] == ["System", "Tools offered"]
        assert titles(transcript)[-1] == "Tool result · echo (call_2_3) · new"
        assert len(titles(transcript)) == 10

        await pilot.press("u")  # folds again
        await pilot.pause()
        assert titles(transcript)[0] == "Earlier conversation"

        await pilot.press("u", "j")  # the next call opens folded again
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 4)
        await pilot.pause()
        assert titles(transcript)[0] == "Earlier conversation"


async def test_the_first_call_is_shown_whole_and_u_says_so(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        transcript = screen.query_one(Transcript)
        assert titles(transcript) == ["System", "Tools offered", "User"]
        await pilot.press("u")
        await pilot.pause()
        assert notifications(app)[-1] == "Nothing to unfold: this call's request is shown whole."
