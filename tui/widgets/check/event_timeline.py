"""Where a run read past a recorded stream: the call's events in order, and the point it stopped."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from openprogram.text import plural
from tui.model.events import EventTimeline


class EventTimelineView(VerticalScroll):
    """One row per recorded event of the call, then a marked row where the run asked for more."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "event-timeline--index",
        "event-timeline--type",
        "event-timeline--marker",
    }
    DEFAULT_CSS = """
    EventTimelineView {
        height: 1fr;
        border: round $panel;
        border-title-color: $text-muted;
        &:focus { border: round $primary; }
        & > .event-timeline--index { color: $text-muted; }
        & > .event-timeline--type { color: $text-accent; }
        & > .event-timeline--marker { color: $text; background: $error 35%; text-style: bold; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="event-timeline-rows")

    def show_timeline(self, timeline: EventTimeline) -> None:
        """List the events of `timeline` and mark where the run read past the last one."""
        style = self.get_component_rich_style
        self.border_title = (
            f"Recorded events of call {timeline.call_index} · "
            f"{plural(len(timeline.events), 'event')} · outcome {timeline.outcome}"
        )
        table = Table.grid(padding=(0, 2), expand=True)
        table.add_column(justify="right", style=style("event-timeline--index"), no_wrap=True)
        table.add_column(style=style("event-timeline--type"), no_wrap=True)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        for event in timeline.events:
            table.add_row(str(event.event_index), event.type, Text(event.preview))
        marker = style("event-timeline--marker")
        table.add_row(
            Text(f"▶ {timeline.stopped_at}", marker),
            Text("read past", marker),
            Text(
                f"the run asked for event {timeline.stopped_at}; the recorded stream stopped "
                f"after {plural(len(timeline.events), 'event')} ({timeline.outcome})",
                marker,
            ),
        )
        self.query_one("#event-timeline-rows", Static).update(table)
        self.call_after_refresh(self.scroll_end, animate=False)
