"""The calls of a recording down the side: `#1  scripted/echo-1  230ms  31 ev  complete`.

Beside the model, as many number columns as fit (`tui.model.call_columns`): the duration at 80
columns, tokens, first token, gap and cost in a wider list (`w`). A row's numbers are read in a
worker the first time the row is drawn (`…` until then). Sorted or filtered (`o`, `O`, `&`), the
list shows the calls `order_calls` picked, in that order; messages still name a call by its
position in the file (`ordinal`).
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from openprogram.text import shorten
from tui.model.call_columns import (
    COLUMNS,
    COST,
    MODEL_ROOM,
    NumberColumn,
    cell_text,
    columns_for,
    heading,
)
from tui.model.call_order import CallFilter, CallOrder, SortKey, order_calls
from tui.model.call_rows import BAD_OUTCOMES, IN_PROGRESS, PENDING, CallTable
from tui.model.recording_index import KEYS, Throttle
from tui.widgets.common.row_list import RowList

if TYPE_CHECKING:
    from tui.model.call_numbers import CallNumbers

OUTCOME_WIDTH = max(len(outcome) for outcome in (*BAD_OUTCOMES, "complete"))
"""Room for the longest outcome (`unfinished`), so every row's columns line up; `in progress`
(only while following) takes the one column left free at the end of the row."""
NARROW_ROW = 40
"""Rows narrower than this (the list at 80 columns) show the outcome as one mark (✓ ✗ ● …), its
colour as in a wide row, and give the model name the room; the call's tabs say the outcome whole."""
NARROW_MARKS = {"complete": "✓", IN_PROGRESS: "●", PENDING: "…"}
"""The mark of each outcome in a narrow row; every failed outcome is `✗`."""
MODEL_ROOM_LEAST = 12
"""The model name gives up characters down to this for the duration column."""
EVENT_COUNT_WIDTH = 7
"""`143 ev`, shown in rows of `NARROW_ROW` and wider."""


@dataclass(frozen=True)
class RowLayout:
    """Where a row of a given width puts things (rows and the heading line share it)."""

    number_width: int
    model_width: int
    columns: tuple[NumberColumn, ...]
    narrow: bool

    show_count: bool
    """The event count (`143 ev`), where the row has room for it beside the numbers."""

    @classmethod
    def of(cls, width: int, index_width: int) -> RowLayout:
        narrow = width < NARROW_ROW
        number_width = index_width + 1
        outcome_width = 1 if narrow else OUTCOME_WIDTH
        fixed = 1 + number_width + 2 + 2 + outcome_width + 1
        count_width = 0 if narrow else EVENT_COUNT_WIDTH + 2
        columns = columns_for(width - fixed - count_width - MODEL_ROOM)
        show_count = not narrow
        if not columns and count_width:  # the duration before the event count
            columns, show_count, count_width = columns_for(width - fixed - MODEL_ROOM), False, 0
        if not columns and width - fixed - MODEL_ROOM_LEAST > COLUMNS[0].width:
            columns = COLUMNS[:1]  # the duration, even if the model name gives up a little
        numbers = sum(column.width + 1 for column in columns)
        model_width = max(4, width - fixed - count_width - numbers)
        return cls(number_width, model_width, columns, narrow, show_count)


class CallHeading(Static):
    """The column headings over the call list (`#  model · by took↓  took  in/out …`)."""

    DEFAULT_CSS = """
    CallHeading {
        height: 1;
        width: 100%;
        color: $text-muted;
        background: $surface;
        text-style: bold;
        border-right: vkey $panel;
    }
    """


class CallPane(Vertical):
    """The call list under its headings."""

    DEFAULT_CSS = "CallPane { height: 1fr; }"

    def toggle_wide(self) -> None:
        """Give the call list most of the width (every number column that fits), or its share."""
        self.toggle_class("-wide")


class CallList(RowList):
    """One row per call, coloured by outcome; only the rows on screen are ever parsed."""

    HELP_TITLE: ClassVar[str] = "Call list"
    """Where its keys work, as the help names it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "call-list--index",
        "call-list--model",
        "call-list--count",
        "call-list--complete",
        "call-list--failed",
        "call-list--pending",
        "call-list--in-progress",
    }
    DEFAULT_CSS = """
    CallList {
        border-right: vkey $panel;
        & > .call-list--index { color: $text-muted; }
        & > .call-list--model { color: $text; }
        & > .call-list--count { color: $text-muted; }
        & > .call-list--complete { color: $text-success; }
        & > .call-list--failed { color: $text-error; text-style: bold; }
        & > .call-list--pending { color: $text-muted; }
        & > .call-list--in-progress { color: $text-accent; text-style: bold; }
    }
    """
    empty_text = "no calls"

    @dataclass(eq=False)
    class _CallMessage(Message):
        """Something happened to the call at `ordinal` (its position in the file)."""

        call_list: CallList
        ordinal: int

        @property
        def control(self) -> CallList:
            return self.call_list

    class CallHighlighted(_CallMessage):
        """The cursor moved to the call at `ordinal`."""

    class CallOpened(_CallMessage):
        """Enter (or a double click) on the call at `ordinal`."""

    class NumbersRead(Message):
        """More calls' numbers were read (their rows are drawn again)."""

    @dataclass(eq=False)
    class OrderProgress(Message):
        """Every call is being read to sort or filter the list: `done` of `total` so far."""

        done: int
        total: int

    @dataclass(eq=False)
    class OrderReady(Message):
        """The calls `order` shows, in its order (`ordinals`)."""

        order: CallOrder
        ordinals: array[int]

    @dataclass(eq=False)
    class OrderChanged(Message):
        """The list's order or filter changed, was cancelled, or is being worked out (`busy`)."""

        call_list: CallList
        busy: str | None = None

        @property
        def control(self) -> CallList:
            return self.call_list

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.table: CallTable | None = None
        self.numbers: CallNumbers | None = None
        """Each call's numbers, read as rows are drawn (shared with the screen's other views)."""
        self.order = CallOrder()
        """How the list is sorted and filtered; `shown` holds the result."""
        self.shown: array[int] | None = None
        """The ordinals the list shows, in order; None: every call in file order."""
        self.ordering: CallOrder | None = None
        """An order being worked out (every call is being read), until it is ready or cancelled."""
        self._wanted: set[int] = set()
        self._wanted_lock = threading.Lock()
        self._reading = False
        self.busy: str | None = None
        """What the list is doing to show an order (`reading calls 40%… esc cancels`)."""
        self._keep: int | None = None
        """The call the cursor stays on once the order being worked out is shown."""

    def show_table(self, table: CallTable | None) -> None:
        """Show the calls of `table` (as many as it has published)."""
        self.table = table
        self.clear_cache()
        self.set_row_count(table.count if table else 0)

    def show_numbers(self, numbers: CallNumbers) -> None:
        """Fill the number columns from `numbers` (the first rows are drawn before: `…`)."""
        self.numbers = numbers
        self.clear_cache()

    # -- rows and calls --

    def set_row_count(self, count: int) -> None:
        # Sorted or filtered, the list shows the calls it picked (new ones once it is again).
        super().set_row_count(count if self.shown is None else len(self.shown))
        self._update_heading()

    def ordinal_at(self, row: int) -> int:
        """The call (its position in the file) shown at `row`."""
        return row if self.shown is None else self.shown[row]

    def row_of(self, ordinal: int) -> int | None:
        """The row showing call `ordinal`; None when the filter hides it."""
        if self.shown is None:
            return ordinal
        try:
            return self.shown.index(ordinal)
        except ValueError:
            return None

    @property
    def cursor_ordinal(self) -> int:
        """The call under the cursor (its position in the file)."""
        if self.shown is not None and not self.shown:
            return -1
        return self.ordinal_at(self.cursor) if self.row_count else self.cursor

    def move_to_call(self, ordinal: int) -> None:
        """Put the cursor on call `ordinal`; a call the filter hides clears the filter first."""
        row = self.row_of(ordinal)
        if row is None:
            self.set_order(CallOrder(self.order.key, self.order.descending), keep=ordinal)
            return
        self.move_to(row)

    # -- numbers --

    def row_layout(self, width: int) -> RowLayout:
        index_width = self.table.index_width if self.table is not None else 1
        return RowLayout.of(width, index_width)

    def _want_numbers(self, ordinal: int) -> None:
        with self._wanted_lock:
            self._wanted.add(ordinal)
            if self._reading:
                return
            self._reading = True
        self.call_later(self._read_numbers)

    @work(thread=True, group="call-numbers", exit_on_error=False)
    def _read_numbers(self) -> None:
        """Read the numbers of the rows drawn with `…`, the rows on screen first."""
        numbers, worker = self.numbers, get_current_worker()
        throttle = Throttle(0.05)
        while numbers is not None and not worker.is_cancelled:
            with self._wanted_lock:
                if not self._wanted:
                    self._reading = False
                    break
                ordinal = min(self._wanted)
                self._wanted.discard(ordinal)
            KEYS.wait_turn()  # a key being handled goes first
            if not numbers.known(ordinal):
                numbers.compute(ordinal)
            if throttle.due():
                self.post_message(self.NumbersRead())
        self.post_message(self.NumbersRead())

    def on_call_list_numbers_read(self, message: CallList.NumbersRead) -> None:
        message.stop()
        self.clear_cache()

    # -- order --

    def set_order(self, order: CallOrder, keep: int | None = None) -> None:
        """Sort and filter the list as `order` says; every call is read first when it needs their
        numbers (in a worker: `OrderProgress`, then `OrderReady`; `cancel_order` stops it)."""
        if not order.active:
            self.ordering = None
            self.workers.cancel_group(self, "call-order")
            self._show_order(order, None, keep)
            return
        self.ordering = order
        self._keep = self.cursor_ordinal if keep is None else keep
        self._set_busy("reading calls…")
        self._work_out_order(order)

    def sort_by_next(self) -> None:
        """Sort by the next number (file order, duration, first token, ...)."""
        current = self.ordering or self.order
        self.set_order(CallOrder(current.key.next(), current.descending, current.filter))

    def reverse_sort(self) -> None:
        """Biggest first, or smallest first."""
        current = self.ordering or self.order
        self.set_order(CallOrder(current.key, not current.descending, current.filter))

    def filter_calls(self, wanted: CallFilter) -> None:
        """Show only the calls `wanted` accepts (in the order shown now)."""
        current = self.ordering or self.order
        self.set_order(CallOrder(current.key, current.descending, wanted))

    def cancel_order(self) -> bool:
        """Stop working out an order (escape); False when none is being worked out."""
        if self.ordering is None:
            return False
        self.ordering = None
        self.workers.cancel_group(self, "call-order")
        self._set_busy(None)
        return True

    def _set_busy(self, busy: str | None) -> None:
        self.busy = busy
        self._update_heading()
        self.post_message(self.OrderChanged(self, busy))

    @work(thread=True, exclusive=True, group="call-order", exit_on_error=False)
    def _work_out_order(self, order: CallOrder) -> None:
        table, numbers, worker = self.table, self.numbers, get_current_worker()
        if table is None or numbers is None:
            return
        throttle = Throttle(0.1, first_due=True)

        def progress(done: int, total: int) -> None:
            KEYS.wait_turn()
            if throttle.due():
                self.post_message(self.OrderProgress(done, total))

        if order.key is SortKey.COST:
            numbers.need_prices()
        if order.needs_numbers and not numbers.compute_all(progress, lambda: worker.is_cancelled):
            return
        ordinals = order_calls(table.count, order, table.summary, numbers.get)
        if not worker.is_cancelled:
            self.post_message(self.OrderReady(order, ordinals))

    def on_call_list_order_progress(self, message: CallList.OrderProgress) -> None:
        message.stop()
        if self.ordering is not None:
            done = message.done / max(message.total, 1)
            self._set_busy(f"reading calls {done:.0%}… esc cancels")

    def on_call_list_order_ready(self, message: CallList.OrderReady) -> None:
        message.stop()
        if message.order != self.ordering:
            return  # replaced or cancelled since
        self.ordering = None
        keep = None if message.order.key != self.order.key else self._keep
        self._show_order(message.order, message.ordinals, keep)

    def _show_order(self, order: CallOrder, shown: array[int] | None, keep: int | None) -> None:
        before = self.cursor_ordinal if keep is None else keep
        sorted_anew = order.key is not SortKey.FILE and order.key != self.order.key
        self.order, self.shown = order, shown
        self.clear_cache()
        self.set_row_count(self.table.count if self.table else 0)
        row = 0 if sorted_anew else self.row_of(before)
        self.move_to(row if row is not None else 0)
        self.cursor_moved(self.cursor)
        self._set_busy(None)

    # -- drawing --

    def on_resize(self) -> None:
        super().on_resize()
        self._update_heading()

    def _update_heading(self) -> None:
        heading_line = self.parent.query_children(CallHeading) if self.parent else None
        if not heading_line:
            return
        width = self.scrollable_content_region.width or self.size.width
        text = self.heading_text(width)
        # A Static drops a line's leading spaces: they become the heading's left padding.
        indent = len(text.plain) - len(text.plain.lstrip(" "))
        heading = heading_line.first()
        heading.styles.padding = (0, 0, 0, indent)
        heading.update(text[indent:])

    def heading_text(self, width: int) -> Text:
        """The headings over the rows of `width`; the model's says the filter, and the order
        when its column is not shown (`by cost↓`, `first token↓`)."""
        if self.busy is not None:
            return Text(" " + self.busy)
        layout = self.row_layout(width)
        text = Text(" " * (layout.number_width + 3))
        key, model = self.order.key, "model"
        if key is not SortKey.FILE and all(column.sort_key is not key for column in layout.columns):
            # Sorted by a number not on screen, the heading names it (else the order looks random).
            model = f"{key.value}{'↓' if self.order.descending else '↑'}"
            model = f"by {model}" if len(model) + 3 <= layout.model_width else model
        if self.order.active:
            shown = len(self.shown) if self.shown is not None else self.row_count
            total = self.table.count if self.table else 0
            model += f" {shown}/{total}" if self.order.filter.active else ""
        text.append(shorten(model, layout.model_width).ljust(layout.model_width))
        for column in layout.columns:
            text.append(
                " " + heading(column, self.order.key, self.order.descending).rjust(column.width)
            )
        if layout.show_count:
            text.append("  " + "events".rjust(EVENT_COUNT_WIDTH))
        return text

    def render_row(self, row: int, width: int) -> Text:
        assert self.table is not None
        ordinal = self.ordinal_at(row)
        summary = self.table.summary(ordinal)
        style = self.get_component_rich_style
        layout = self.row_layout(width)
        number = f"#{summary.call_index}".ljust(layout.number_width)
        count = f"{summary.event_count:>4} ev"
        outcome_class = (
            "call-list--in-progress"
            if summary.outcome == IN_PROGRESS
            else "call-list--pending"
            if summary.outcome == PENDING
            else "call-list--failed"
            if summary.failed
            else "call-list--complete"
        )
        narrow = layout.narrow
        outcome = NARROW_MARKS.get(summary.outcome, "✗") if narrow else summary.outcome
        model = summary.model_within(layout.model_width)
        text = Text(" ")
        index_style = "call-list--failed" if summary.failed else "call-list--index"
        text.append(number, style(index_style))
        text.append("  ")
        text.append(model.ljust(layout.model_width), style("call-list--model"))
        if layout.columns:
            numbers = self.numbers
            if numbers is not None and COST in layout.columns and numbers.need_prices():
                self.call_later(self.clear_cache)  # the rows drawn without their cost
            known = numbers is not None and numbers.known(ordinal)
            # Read once the file is indexed: beside the indexer the reads slow it and the keys.
            if numbers is not None and not known and numbers.index.complete:
                self._want_numbers(ordinal)
            stats = numbers.get(ordinal) if numbers is not None else None
            cache = numbers.cache(ordinal) if numbers is not None else None
            cells = "".join(
                " " + cell_text(column, stats, known, cache).rjust(column.width)
                for column in layout.columns
            )
            text.append(cells, style("call-list--count"))
        if layout.show_count:
            text.append("  ")
            text.append(count, style("call-list--count"))
        text.append("  ")
        text.append(outcome, style(outcome_class))
        return text

    def cursor_moved(self, row: int) -> None:
        if row < self.row_count:
            self.post_message(self.CallHighlighted(self, self.ordinal_at(row)))

    def row_opened(self, row: int) -> None:
        if row < self.row_count:
            self.post_message(self.CallOpened(self, self.ordinal_at(row)))
