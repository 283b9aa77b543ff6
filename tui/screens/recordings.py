"""The managed recordings (and any files given): ID, created, calls, events, size, validity, active."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from openprogram.providers.recording.config import ConfigError
from openprogram.recordings import (
    RecordingRemovalError,
    RecordingSelectorError,
    RecordingSummary,
    RecordReplayStatus,
    delete_recording,
    list_recordings,
    plan_deletion,
    summarize_recording,
    versions_note,
)
from openprogram.text import human_size, plural
from tui.model.line_preview import preview_line
from tui.model.state_dir import display_path
from tui.screens.confirm import ConfirmScreen
from tui.screens.recording import RecordingScreen
from tui.theme import rich_style
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.title_bar import TitleBar

COLUMNS = ("", "ID", "Created (UTC)", "Calls", "Events", "Size", "Status")
NARROW_WIDTH = 100
"""Below this many columns the table leaves out Events and says only `✗ invalid` (the line under
it says why), so it fits without scrolling sideways (80 columns: 75 wide)."""
NARROW_COLUMNS = tuple(column for column in COLUMNS if column != "Events")
DEMO_NOTE = "demo, removed on quit"
"""In the demo, instead of where the managed root is: a temporary directory, removed on quit."""
STATUS_WIDTH = 44
"""Longer reasons are cut in the table (the line under it shows the selected one whole); a wider
screen gives the Status column what the other columns leave (`OTHER_COLUMNS_WIDTH`)."""
OTHER_COLUMNS_WIDTH = 100
"""Room kept for the columns before Status (a long ID included) when the screen is wide."""


def created_label(summary: RecordingSummary) -> str:
    """`2026-01-05 09:30` from the header's `created_at`, else `—`."""
    if not summary.facts.created_at:
        return "—"
    return summary.facts.created_at.replace("T", " ")[:16]


class RecordingsScreen(Screen[None]):
    """Every managed recording plus the files named on the command line; enter opens one."""

    HELP_INTRO: ClassVar[str] = (
        "enter opens the selected recording; space marks it (two at most) and d compares the two "
        "marked in the diff view; x deletes a managed recording after asking."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        # Every key that moves the cursor or opens is a priority binding, handled in the order
        # typed: `j enter` arriving together opens the row `j` moved to.
        Binding("enter", "open", "Open", priority=True, id="recordings.open"),
        Binding("space", "mark", "Mark", id="recordings.mark"),
        Binding("d", "diff", "Diff", id="recordings.diff"),
        Binding("x,delete", "delete", "Delete", id="recordings.delete"),
        Binding("ctrl+r", "reload", "Reload", id="recordings.reload"),
        Binding("r", "check", "Check", show=False, id="check"),
        Binding("j,down", "move(1)", "Down", show=False, priority=True, id="recordings.down"),
        Binding("k,up", "move(-1)", "Up", show=False, priority=True, id="recordings.up"),
        Binding("g,home", "move_to(0)", "First", show=False, priority=True, id="recordings.first"),
        Binding("G,end", "move_to(-1)", "Last", show=False, priority=True, id="recordings.last"),
    ]

    @dataclass(eq=False)
    class Loaded(Message):
        """The listing was read (or could not be: `error`)."""

        summaries: list[RecordingSummary]
        note: str
        error: str | None
        configured: tuple[str | None, str | None] | None = None
        """The configuration's mode and file the `●` marks were read with (None: unread)."""

    def __init__(self, extra_paths: tuple[Path, ...] = (), *, demo: bool = False) -> None:
        """`demo`: the managed root is the demo's temporary one, and the list says so."""
        super().__init__()
        self.extra_paths = extra_paths
        self.demo = demo
        self.summaries: dict[str, RecordingSummary] = {}
        self._note = ""
        self._error: str | None = None
        self.marked: list[str] = []
        """The rows marked with space (their paths), oldest first: A and B of `d`."""
        self._left = False
        """Another screen was shown over this one since it was mounted."""
        self._configured: tuple[str | None, str | None] | None = None
        """The mode and file of the configuration the `●` marks were read with."""
        self._narrow: bool | None = None
        self._status_width = STATUS_WIDTH
        """How many characters of a reason the Status column shows (set from the screen width)."""
        """Whether the table's columns are the narrow set (None: no columns yet)."""

    def compose(self) -> ComposeResult:
        yield TitleBar("Recordings", "reading…")
        yield Static("", id="recordings-note")
        yield DataTable(id="recordings", cursor_type="row", zebra_stripes=True)
        yield Static("", id="recording-detail")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.focus()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())
        # `recordings off` in another shell: the badge follows the app's status, and so must `●`.
        self.watch(self.app, "record_replay_status", self._status_changed, init=False)
        self.reload()

    def _status_changed(self, status: RecordReplayStatus | None) -> None:
        if status is not None and (status.mode, status.file) != self._configured:
            self.reload()

    def on_screen_suspend(self) -> None:
        self._left = True

    def on_screen_resume(self) -> None:
        # Back from Settings (the active mark), a check or a recording: the list may be stale.
        if self._left:
            self.reload()

    def on_resize(self) -> None:
        if self._narrow is not None and (
            self._narrow != self._is_narrow() or self._status_width != self._wanted_status_width()
        ):
            self._redraw()

    def _wanted_status_width(self) -> int:
        return max(STATUS_WIDTH, self.size.width - OTHER_COLUMNS_WIDTH)

    def _is_narrow(self) -> bool:
        return self.size.width < NARROW_WIDTH

    def _redraw(self) -> None:
        summaries = list(self.summaries.values())
        self.on_recordings_screen_loaded(
            self.Loaded(summaries, self._note, self._error, self._configured)
        )

    @work(thread=True, exclusive=True, group="listing", exit_on_error=False)
    def reload(self) -> None:
        """Read the managed root and the extra files again (in a thread: every file is scanned)."""
        summaries: list[RecordingSummary] = []
        error = None
        note = ""
        configured = None
        try:
            listing = list_recordings()
            configured = (listing.mode, listing.configured_file)
            summaries.extend(listing.recordings)
            count = plural(len(listing.recordings), "recording")
            where = f"· {DEMO_NOTE}" if self.demo else f"in {display_path(listing.root)}"
            note = f"{count} {where}"
            if listing.config_error:
                error = f"⚠ {listing.config_error} — press s to repair it in Settings."
        except (RecordingSelectorError, ConfigError, OSError) as exc:
            error = f"⚠ cannot list the managed recordings: {exc}"
        for path in self.extra_paths:
            try:
                summaries.append(summarize_recording(os.fspath(path)))
            except RecordingSelectorError as exc:
                error = f"⚠ {exc}"
        self.post_message(self.Loaded(summaries, note, error, configured))

    def on_recordings_screen_loaded(self, message: Loaded) -> None:
        self._note, self._error = message.note, message.error
        self._configured = message.configured
        table = self.query_one(DataTable)
        keep = table.cursor_row
        narrow = self._is_narrow()
        self._status_width = self._wanted_status_width()
        if narrow != self._narrow:
            table.clear(columns=True)
            table.add_columns(*(NARROW_COLUMNS if narrow else COLUMNS))
            self._narrow = narrow
        else:
            table.clear()
        self.summaries = {}
        for summary in message.summaries:
            key = str(summary.path)
            if key in self.summaries:
                continue
            self.summaries[key] = summary
            table.add_row(*self._cells(summary, narrow), key=key)
        if message.summaries:
            table.move_cursor(row=min(keep, len(self.summaries) - 1))
        facts = message.note or "no managed root"
        self.query_one(TitleBar).set_facts(facts)
        note = message.error or ""
        if not message.summaries:
            note = (note + "\n" if note else "") + (
                "No recordings yet. Record one with `openprogram recordings record -- COMMAND`, "
                "or press s to make the next start record."
            )
        widget = self.query_one("#recordings-note", Static)
        widget.update(Text(note))
        widget.display = bool(note)
        widget.set_class(bool(message.error), "-problem")

    def _theme_style(self, variable: str) -> Style:
        # DataTable cells are Rich text: take the colour from the theme, redraw on theme change.
        return Style.parse(rich_style(self.app.theme_variables, variable))

    def _cells(self, summary: RecordingSummary, narrow: bool) -> tuple[Text, ...]:
        accent = self._theme_style("$text-accent") + Style(bold=True)
        active = Text(f"● {summary.mode}", accent) if summary.active else Text("")
        name = Text(
            summary.recording_id or display_path(summary.path), "bold" if summary.active else ""
        )
        if str(summary.path) in self.marked:
            side = "AB"[self.marked.index(str(summary.path))]
            name = Text.assemble((f"[{side}] ", accent), name)
        status = (
            Text(f"✓ {summary.facts.validity_word}", self._theme_style("$text-success"))
            if summary.facts.valid
            else Text(
                f"✗ {summary.facts.validity_word}"
                if narrow
                else preview_line(f"✗ {summary.facts.validity()}", self._status_width),
                self._theme_style("$text-error"),
            )
        )
        events = () if narrow else (Text(f"{summary.facts.events:,}", justify="right"),)
        return (
            active,
            name,
            Text(created_label(summary)),
            Text(f"{summary.facts.calls:,}", justify="right"),
            *events,
            Text(human_size(summary.facts.size), justify="right"),
            status,
        )

    def _selected(self) -> RecordingSummary | None:
        table = self.query_one(DataTable)
        if not self.summaries or table.cursor_row < 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.summaries.get(key or "")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        summary = self.summaries.get(event.row_key.value or "")
        detail = self.query_one("#recording-detail", Static)
        if summary is None:
            detail.update("")
            return
        # The demo's files are in its temporary directory, not under `$OPENPROGRAM_HOME`.
        managed_in_demo = self.demo and summary.recording_id is not None
        where = f"demo · recordings/{summary.path.name}" if managed_in_demo else None
        text = Text(where or display_path(summary.path))
        if summary.active and self.demo:
            text.append(f"  ·  active in this demo ({summary.mode}): r checks it with its program")
        elif summary.active:
            text.append(f"  ·  active: the next start uses it to {summary.mode}")
        if not summary.facts.valid:
            more = summary.facts.problem_count - 1
            reason = f"\n✗ {summary.facts.reason}" + (f"  (+{more} more)" if more > 0 else "")
            text.append(reason, self._theme_style("$text-error"))
        detail.update(text)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        summary = self._selected()
        if summary is not None:
            self.app.push_screen(RecordingScreen(summary.path))

    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=max(0, table.cursor_row + step))

    def action_move_to(self, row: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=row if row >= 0 else table.row_count - 1)

    def action_reload(self) -> None:
        self.reload()

    def action_check(self) -> None:
        summary = self._selected()
        if summary is not None:
            from tui.screens.check import CheckScreen

            self.app.push_screen(CheckScreen(summary.path))

    def action_mark(self) -> None:
        """Mark the row (or unmark it); two marks at most, the oldest is dropped for a third."""
        summary = self._selected()
        if summary is None:
            return
        key = str(summary.path)
        if key in self.marked:
            self.marked.remove(key)
        else:
            self.marked = [*self.marked, key][-2:]
        self._redraw()

    def action_diff(self) -> None:
        """Compare the two marked recordings in the diff view (A: marked first)."""
        if len(self.marked) != 2:
            self.notify("Mark two recordings with space, then d compares them.")
            return
        from tui.screens.diff import DiffScreen

        self.app.push_screen(DiffScreen(Path(self.marked[0]), Path(self.marked[1])))

    def action_delete(self) -> None:
        summary = self._selected()
        if summary is None:
            return
        if summary.recording_id is None:
            self.notify("Only managed recordings can be deleted here.", severity="warning")
            return
        recording_id = summary.recording_id
        try:
            planned = plan_deletion(recording_id)
        except (RecordingRemovalError, RecordingSelectorError, ConfigError) as exc:
            self.notify(str(exc), title="Not deleted", severity="error")
            return
        question = (
            f"Delete recording {recording_id}?\n{plural(planned.facts.calls, 'call')}, "
            f"{plural(planned.facts.events, 'event')}, {human_size(planned.facts.size)}"
            f"{versions_note(recording_id)}. This cannot be undone."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(recording_id)

        self.app.push_screen(ConfirmScreen(question), answered)

    def _delete(self, recording_id: str) -> None:
        try:
            deleted = delete_recording(recording_id)
        except (RecordingRemovalError, RecordingSelectorError, ConfigError) as exc:
            self.notify(str(exc), title="Not deleted", severity="error")
            return
        self.notify(f"Deleted {deleted.recording_id} ({human_size(deleted.size)}).")
        self.reload()
