"""Moving from call to call: the turns a call repeats from the one before are not drawn again."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.model.transcript import TranscriptEntry, TranscriptPart
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
