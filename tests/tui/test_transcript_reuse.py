"""Moving from call to call: the turns a call repeats from the one before are not drawn again,
and a long conversation mounts the boxes near the view, the rest as the reader scrolls or ends."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.tui.pilot_support import screen_text, until
from tui.model.transcript import TRANSCRIPT_ENTRIES, TranscriptEntry, TranscriptPart
from tui.widgets.recording.transcript import Transcript
from tui.widgets.recording.transcript_entry import TranscriptEntryBox


def entry(role: str, text: str) -> TranscriptEntry:
    return TranscriptEntry(role, role.title(), (TranscriptPart("text", text),))  # type: ignore[arg-type]


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


async def test_a_turn_repeated_by_the_next_call_keeps_its_drawn_text() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 40)) as pilot:
        transcript = app.query_one(Transcript)
        first = [entry("system", "Be brief. " * 300), entry("user", "ping")]
        transcript.show_entries(first)
        await pilot.pause()
        boxes = list(transcript.query(TranscriptEntryBox))
        visuals = [box.visual for box in boxes]
        # The next call of the session: the same turns (read again, equal, not the same objects)
        # and one more, with the user turn changed.
        second = [
            entry("system", "Be brief. " * 300),
            entry("user", "pong"),
            entry("assistant", "ok"),
        ]
        transcript.show_entries(second)
        await pilot.pause()
        boxes = list(transcript.query(TranscriptEntryBox))
        assert len(boxes) == 3
        assert boxes[0].visual is visuals[0]  # not wrapped and measured again
        assert boxes[1].visual is not visuals[1]
        assert "pong" in str(boxes[1].visual) and "ok" in str(boxes[2].visual)


def mounted(transcript: Transcript) -> list[str]:
    return [str(box.visual) for box in transcript.query_children(TranscriptEntryBox)]


async def test_a_long_conversation_mounts_what_the_pane_shows_and_every_turn_on_demand() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 40)) as pilot:
        transcript = app.query_one(Transcript)
        turns = [entry("user", f"turn number {n}") for n in range(TRANSCRIPT_ENTRIES)]
        transcript.show_entries(turns)
        await pilot.pause()
        await pilot.pause()
        shown = mounted(transcript)
        # A 40-row pane holds 10 boxes of 4 rows: what it shows and a screen more are mounted.
        assert 10 <= len(shown) <= 40
        assert shown[0] == "turn number 0"
        assert "turn number 0" in "\n".join(screen_text(app))

        transcript.focus()
        await pilot.press("pagedown", "pagedown", "pagedown")  # scrolling on mounts the next
        await until(pilot, lambda: len(mounted(transcript)) > len(shown))

        await pilot.press("end")  # the last turn, mounted and in view
        last = f"turn number {TRANSCRIPT_ENTRIES - 1}"
        await until(pilot, lambda: last in "\n".join(screen_text(app)))
        assert mounted(transcript) == [f"turn number {n}" for n in range(TRANSCRIPT_ENTRIES)]

        transcript.show_entries(turns[:3])  # a short one after: only its boxes are left
        await pilot.pause()
        assert mounted(transcript) == ["turn number 0", "turn number 1", "turn number 2"]
