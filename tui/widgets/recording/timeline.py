"""`t` — the session on a time axis: each call a bar (`█` in the model, `░` the gap after it), the
session's totals above; the selected call is the cursor's row, `enter` on a bar opens the call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from openprogram.text import plural
from tui.model.call_columns import format_ms
from tui.model.call_numbers import CallNumbers, TimeAxis, bar, session_line, time_axis
from tui.model.recording_index import KEYS, Throttle
from tui.widgets.common.row_list import RowList


class CallTimeline(RowList):
    """One row per call in file order, its bar placed on the session's time axis."""

    HELP_TITLE: ClassVar[str] = "Timeline"
    """Where its keys work, as the help names it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "timeline--index",
        "timeline--model",
        "timeline--gap",
    }
    DEFAULT_CSS = """
    CallTimeline {
        height: 1fr;
        & > .timeline--index { color: $text-muted; }
        & > .timeline--model { color: $text-accent; }
        & > .timeline--gap { color: $text-muted; }
    }
    """
    empty_text = "reading calls…"

    @dataclass(eq=False)
    class BarHighlighted(Message):
        """The cursor moved to the bar of call `ordinal`."""

        ordinal: int

    @dataclass(eq=False)
    class BarOpened(Message):
        """Enter (or a double click) on the bar of call `ordinal`."""

        ordinal: int

    def __init__(self, numbers: CallNumbers) -> None:
        super().__init__(id="timeline")
        self.numbers = numbers
        self.axis: TimeAxis | None = None

    def show_calls(self, count: int) -> None:
        """Draw the bars of the first `count` calls (every call's numbers are read by now)."""
        self.axis = time_axis([self.numbers.get(n) for n in range(count)])
        self.clear_cache()
        self.set_row_count(count)

    def render_row(self, row: int, width: int) -> Text:
        label = f" #{row}".ljust(len(str(max(self.row_count - 1, 0))) + 3)
        style = self.get_component_rich_style
        text = Text(label, style("timeline--index"))
        room = width - len(label) - 1
        placed = bar(self.numbers.get(row), self.axis, room) if self.axis else None
        if placed is None:
            text.append("times not recorded", style("timeline--gap"))
            return text
        text.append(" " * placed.start)
        text.append("█" * placed.model, style("timeline--model"))
        text.append("░" * placed.gap, style("timeline--gap"))
        return text

    def cursor_moved(self, row: int) -> None:
        if row < self.row_count:
            self.post_message(self.BarHighlighted(row))

    def row_opened(self, row: int) -> None:
        self.post_message(self.BarOpened(row))


class TimelinePane(Vertical):
    """The session's totals and its timeline, under the call list and the call (toggled by `t`)."""

    DEFAULT_CSS = """
    TimelinePane {
        height: 40%;
        min-height: 6;
        border-top: tall $panel;
        & > #session-summary { height: auto; padding: 0 1; color: $text-muted; }
    }
    """

    @dataclass(eq=False)
    class Read(Message):
        """Every call's numbers were read (`done` of `total` while it goes on)."""

        done: int
        total: int
        finished: bool

    def __init__(self, numbers: CallNumbers, selected: int = 0) -> None:
        super().__init__(id="timeline-pane")
        self.numbers = numbers
        self.selected = selected
        """The call the call list is on (marked once the bars are drawn)."""

    def compose(self) -> ComposeResult:
        yield Static("reading calls…", id="session-summary")
        yield CallTimeline(self.numbers)

    def on_mount(self) -> None:
        self.read_calls()

    @work(thread=True, exclusive=True, group="timeline", exit_on_error=False)
    def read_calls(self) -> None:
        """Read every call's numbers (the axis and the totals need them all)."""
        worker, throttle = get_current_worker(), Throttle(0.1, first_due=True)
        self.numbers.need_prices()  # the totals say the cost

        def progress(done: int, total: int) -> None:
            KEYS.wait_turn()  # a key being handled goes first
            if throttle.due():
                self.post_message(self.Read(done, total, False))

        if self.numbers.compute_all(progress, lambda: worker.is_cancelled):
            total = len(self.numbers.index.calls)
            self.post_message(self.Read(total, total, True))

    def on_timeline_pane_read(self, message: TimelinePane.Read) -> None:
        summary = self.query_one("#session-summary", Static)
        if not message.finished:
            summary.update(f"reading calls {message.done / max(message.total, 1):.0%}…")
            return
        from openprogram.recordings.cost import price_table

        session = self.numbers.session()
        timeline = self.query_one(CallTimeline)
        if session is None:  # the file is still being indexed or followed: totals so far
            summary.update(f"{plural(message.total, 'call')} read · the file is still being read")
        else:
            axis = time_axis([self.numbers.get(n) for n in range(message.total)])
            scale = f" · axis 0–{format_ms(axis.length_ms)}" if axis is not None else ""
            cache = self.numbers.cache_session()
            summary.update(Text(session_line(session, price_table(), cache) + scale))
        timeline.show_calls(message.total)
        timeline.move_to(self.selected)

    def select(self, ordinal: int) -> None:
        """Mark call `ordinal` (the call list's cursor moved)."""
        self.selected = ordinal
        timeline = self.query_one(CallTimeline)
        if timeline.cursor != ordinal:
            timeline.move_to(ordinal)
