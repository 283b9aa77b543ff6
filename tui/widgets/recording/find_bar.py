"""The `/` prompt: finds rows of a list as you type, marks them, and moves between them (n / N)."""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label

from tui.model.navigation import compile_query, find_rows
from tui.widgets.common.row_list import RowList

RowBytes = Callable[[int], bytes]


class FindBar(Horizontal):
    """A one-line search prompt docked at the bottom; the search runs in a thread."""

    HELP_TITLE: ClassVar[str] = "Find prompt"
    """Where its keys work, as the help names it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Clear", show=False, id="find.cancel"),
    ]
    DEFAULT_CSS = """
    FindBar {
        height: 1;
        display: none;
        background: $panel;
        &.-open, &.-kept { display: block; }
        & > #find-prompt { width: auto; padding: 0 1; color: $text-accent; text-style: bold; }
        /* `:focus` too: Input's own focused border would take the only row, hiding the text. */
        & > Input, & > Input:focus {
            border: none; height: 1; padding: 0; width: 1fr; background: $panel;
        }
        & > #find-count { width: auto; padding: 0 1; color: $text-muted; }
    }
    """

    @dataclass(eq=False)
    class Closed(Message):
        """The prompt closed; `keep` is False when the search was cancelled."""

        find_bar: FindBar
        keep: bool

        @property
        def control(self) -> FindBar:
            return self.find_bar

    @dataclass(eq=False)
    class MatchesFound(Message):
        """A search finished: the rows matching `query`."""

        query: str
        matches: array[int]

    def __init__(self) -> None:
        super().__init__()
        self.target: RowList | None = None
        self._row_bytes: RowBytes | None = None
        self._query = ""
        self._scope = ""

    def compose(self) -> ComposeResult:
        yield Label("/", id="find-prompt")
        # Disabled while closed, so a hidden prompt never takes the focus.
        yield Input(id="find-input", disabled=True)
        yield Label("", id="find-count")

    def open(self, target: RowList, row_bytes: RowBytes, what: str, scope: str) -> None:
        """Search `target`'s rows (their stored bytes from `row_bytes`); `what` names them and
        `scope` says where n / N move (`across calls`, `in call 2`), shown beside the count."""
        if target is not self.target or scope != self._scope:
            self.clear()
        self.target, self._row_bytes, self._scope = target, row_bytes, scope
        self.remove_class("-kept")
        self.add_class("-open")
        field = self.query_one(Input)
        field.placeholder = f"find {what} (case-insensitive, in the stored rows)"
        field.disabled = False
        self.screen.set_focus(field)  # now, not later: the keys typed after `/` are the query

    @property
    def has_matches(self) -> bool:
        """True while a list shows matches of this search."""
        return self.target is not None and bool(self.target.matches)

    def jump(self, forward: bool) -> bool:
        """Move the target's cursor to the next (or previous) match; False when there is none."""
        if self.target is None or not self.target.jump_to_match(forward):
            return False
        self.target.focus()
        self._show_count()
        return True

    def clear(self) -> None:
        """Forget the search and unmark the rows."""
        if self.target is not None:
            self.target.set_matches(array("L"))
        self._query = ""
        self.query_one(Input).value = ""
        self.query_one("#find-count", Label).update("")
        self.remove_class("-kept")

    def close(self, keep: bool) -> None:
        """Leave the prompt; with `keep` the search stays on show (what n / N step through, and
        where), without it the search is cleared and the bar hidden."""
        self.remove_class("-open")
        self.query_one(Input).disabled = True
        if keep:
            self.add_class("-kept")
        else:
            self.clear()
        if self.target is not None:
            self.target.focus()
        self.post_message(self.Closed(self, keep))

    def _show_count(self) -> None:
        label = self.query_one("#find-count", Label)
        if self.target is None or not self._query.strip():
            label.update("")
            return
        position, total = self.target.match_position()
        label.update(f"{position} / {total} {self._scope}" if total else f"no match {self._scope}")

    @work(thread=True, exclusive=True, group="find", exit_on_error=False)
    def _search(self, query: str, count: int, row_bytes: RowBytes) -> None:
        pattern = compile_query(query)
        found = find_rows(count, row_bytes, pattern) if pattern is not None else array("L")
        self.post_message(self.MatchesFound(query, found))

    def on_find_bar_matches_found(self, message: MatchesFound) -> None:
        if self.target is None or message.query != self._query:
            return  # an older search finished after a newer one started
        self.target.set_matches(message.matches)
        if message.matches and self.target.cursor not in message.matches:
            self.target.jump_to_match()
        self._show_count()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._query = event.value
        if self.target is not None and self._row_bytes is not None:
            self._search(event.value, self.target.row_count, self._row_bytes)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.close(keep=bool(event.value.strip()))

    def action_cancel(self) -> None:
        self.close(keep=False)
