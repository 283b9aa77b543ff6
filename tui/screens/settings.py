"""Settings: the record/replay mode and file the next start uses, validated before it is saved.

It reads the configuration with the library's status function, which works while the
configuration or the configured file is broken — the moment people need this screen most.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select, Static

from openprogram.providers.recording.config import RECORD_REPLAY_MODES
from openprogram.recordings import (
    APPLIES_ON_NEXT_START,
    RecordingListing,
    RecordReplayStatus,
    list_recordings,
    read_status,
)
from tui.model.settings import (
    RulesInForce,
    SettingsChoice,
    SettingsOutcome,
    apply_settings,
    replay_choices,
    rules_in_force,
)
from tui.model.state_dir import SavedTheme, display_path, read_saved_theme, theme_state_path
from tui.theme import DARK_THEME, LIGHT_THEME, THEMES
from tui.widgets.common.key_footer import KeyFooter
from tui.widgets.common.title_bar import TitleBar

MODE_LABELS = {
    "off": "Off — calls go to the live provider",
    "record": "Record — write every call into a new managed recording",
    "replay": "Replay — answer every call from a recording, offline",
}


THEME_LABELS = {DARK_THEME: "Dark", LIGHT_THEME: "Light"}


def status_text(status: RecordReplayStatus, demo: bool = False) -> str:
    """What the configuration says now, and what is wrong with it (`demo`: the demo's own)."""
    where = (
        "the demo's own (a temporary directory, removed when you quit)"
        if demo
        else display_path(status.config_path)
    )
    lines = [f"Configuration: {where}"]
    if status.config_error:
        lines.append(f"⚠ It cannot be read: {status.config_error}")
        lines.append(
            "Saving keeps the broken file as config.json.corrupt-<time> and writes a new one."
        )
        return "\n".join(lines)
    # Off keeps the last file in the configuration, but it is not used: only name it when it is.
    where = f" {status.file}" if status.file and status.mode != "off" else ""
    lines.append(f"Now: {status.mode}{where}")
    if status.would_block:
        lines.append(f"⚠ The next start would block every model call: {status.reason}")
    elif status.reason:
        lines.append(f"⚠ {status.reason}")
    if status.note:
        lines.append(status.note)
    return "\n".join(lines)


def rules_text(rules: RulesInForce) -> Text:
    """The rules a replay started here merges, in order, each with where it was declared."""
    text = Text()
    for problem in rules.problems:
        text.append(f"⚠ {problem}\n", "bold")
    for line in rules.lines:
        rule, _, source = line.partition("  (")
        text.append(f"• {rule}")
        text.append(f"  {source.removesuffix(')')}\n", "dim")
    if not rules.lines and not rules.problems:
        text.append("None: every field of every request is compared, except timestamps.\n")
    project = (
        f"{display_path(rules.project_file)} [tool.openprogram]"
        if rules.project_file
        else "a pyproject.toml with [tool.openprogram] (none found from here upwards)"
    )
    text.append(
        f"Merged in order: {project}, then the replayed recording's header. "
        "In a check's mismatch, i and z add one.",
        "dim",
    )
    return text


class SettingsScreen(Screen[None]):
    """Choose off, record (a new name) or replay (a managed recording or a path), then save."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.go_back", "Back", show=False, id="settings.back"),
    ]

    def __init__(self, *, demo: bool = False) -> None:
        """`demo`: the configuration is the demo's temporary one, and the screen says so."""
        super().__init__()
        self.demo = demo

    @dataclass(eq=False)
    class Read(Message):
        """The status and the listing were read."""

        status: RecordReplayStatus
        listing: RecordingListing | None

    @dataclass(eq=False)
    class RulesRead(Message):
        """The matching rules in force were read."""

        rules: RulesInForce

    @dataclass(eq=False)
    class ThemeRead(Message):
        """The theme state file was read (`saved.problem`: why it cannot be used)."""

        saved: SavedTheme
        path: Path

    @dataclass(eq=False)
    class Saved(Message):
        """A save finished (`outcome.saved` False when the library refused it)."""

        outcome: SettingsOutcome

    def compose(self) -> ComposeResult:
        yield TitleBar("Settings", "record / replay for the next start")
        with VerticalScroll(id="settings-form"):
            yield Static("reading the configuration…", id="settings-status")
            yield Label("Mode", classes="settings-label")
            with RadioSet(id="settings-mode"):
                for mode in RECORD_REPLAY_MODES:
                    yield RadioButton(MODE_LABELS[mode], id=f"mode-{mode}", value=mode == "off")
            with Vertical(id="record-fields", classes="settings-group"):
                yield Label("New recording name (blank: a fresh timestamped ID)")
                yield Input(placeholder="e.g. checkout-flow", id="record-name")
            with Vertical(id="replay-fields", classes="settings-group"):
                yield Label("Managed recording")
                yield Select[str]([], prompt="choose a valid recording", id="replay-id")
                yield Label("…or a path to a recording file")
                yield Input(placeholder="path/to/recording.jsonl", id="replay-path")
            yield Static(Text(f"↻ {APPLIES_ON_NEXT_START}"), id="settings-notice")
            with Horizontal(id="settings-buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Cancel", id="cancel")
            yield Static("", id="settings-result")
            yield Label(
                "Matching rules in force", classes="settings-label", id="settings-rules-label"
            )
            yield Static("reading the rules…", id="settings-rules")
            yield Label("Theme", classes="settings-label", id="settings-theme-label")
            with RadioSet(id="settings-theme"):
                for name, label in THEME_LABELS.items():
                    yield RadioButton(label, id=f"theme-{name}")
            yield Static("", id="settings-theme-note")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._show_fields("off")
        self.watch(self.app, "theme", self._show_theme)
        self._read()

    @work(thread=True, exclusive=True, group="settings-read", exit_on_error=False)
    def _read(self) -> None:
        status = read_status()
        try:
            listing: RecordingListing | None = list_recordings()
        except (ValueError, OSError):
            listing = None
        self.post_message(self.Read(status, listing))
        self.post_message(self.RulesRead(rules_in_force(Path.cwd(), status)))
        self.post_message(self.ThemeRead(read_saved_theme(THEMES), theme_state_path()))

    def on_settings_screen_rules_read(self, message: RulesRead) -> None:
        self.query_one("#settings-rules", Static).update(rules_text(message.rules))
        self.query_one("#settings-rules").set_class(bool(message.rules.problems), "-problem")

    def on_settings_screen_read(self, message: Read) -> None:
        status = message.status
        self.query_one("#settings-status", Static).update(Text(status_text(status, self.demo)))
        self.query_one("#settings-status").set_class(
            bool(status.config_error or status.would_block), "-problem"
        )
        choices = replay_choices(message.listing) if message.listing else []
        select = self.query_one("#replay-id", Select)
        select.set_options(choices)
        mode = status.mode if status.mode in RECORD_REPLAY_MODES else "off"
        self.query_one(f"#mode-{mode}", RadioButton).value = True
        if mode == "replay" and status.file:
            if status.file in {value for _, value in choices}:
                select.value = status.file
            else:
                self.query_one("#replay-path", Input).value = status.file
        self._show_fields(mode)
        self.query_one("#settings-mode", RadioSet).focus()

    def _mode(self) -> str:
        pressed = self.query_one("#settings-mode", RadioSet).pressed_button
        return (pressed.id or "mode-off").removeprefix("mode-") if pressed else "off"

    def _show_fields(self, mode: str) -> None:
        self.query_one("#record-fields").display = mode == "record"
        self.query_one("#replay-fields").display = mode == "replay"

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        if event.radio_set.id == "settings-theme":
            name = (event.pressed.id or "").removeprefix("theme-")
            switch = getattr(self.app, "switch_theme", None)
            if name != self.app.theme and callable(switch):
                switch(name)  # shown now, remembered for the next start
            return
        self._show_fields(self._mode())

    def _show_theme(self, name: str) -> None:
        """The theme shown (switched here, with `ctrl+t`, or in the palette) is the one pressed."""
        for button in self.query_one("#settings-theme", RadioSet).query(RadioButton):
            if button.id == f"theme-{name}":
                button.value = True

    def on_settings_screen_theme_read(self, message: ThemeRead) -> None:
        where = display_path(message.path)
        note = f"Applies now and on the next start (ctrl+t switches too); kept in {where}."
        if message.saved.problem:
            note += f"\n⚠ {message.saved.problem}; the next switch replaces it."
        self.query_one("#settings-theme-note", Static).update(Text(note))
        self.query_one("#settings-theme-note").set_class(bool(message.saved.problem), "-problem")

    def _choice(self) -> SettingsChoice:
        mode = self._mode()
        if mode == "record":
            return SettingsChoice("record", self.query_one("#record-name", Input).value)
        if mode == "replay":
            path = self.query_one("#replay-path", Input).value.strip()
            selected = self.query_one("#replay-id", Select).value
            chosen = selected if isinstance(selected, str) else ""
            return SettingsChoice("replay", path or chosen)
        return SettingsChoice("off")

    @work(thread=True, exclusive=True, group="settings-save", exit_on_error=False)
    def _save(self, choice: SettingsChoice) -> None:
        self.post_message(self.Saved(apply_settings(choice)))

    def on_settings_screen_saved(self, message: Saved) -> None:
        outcome = message.outcome
        result = self.query_one("#settings-result", Static)
        result.update(Text(outcome.message))
        result.set_class(not outcome.saved, "-problem")
        self.query_one("#save", Button).disabled = False
        refresh = getattr(self.app, "refresh_status", None)
        if callable(refresh):
            refresh()
        if outcome.saved:
            self.notify(outcome.message, title="Saved")  # it says what the next start does
            self._read()
        else:
            self.notify(outcome.message, title="Not saved", severity="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "cancel":
            self.app.pop_screen()
            return
        event.button.disabled = True
        self.query_one("#settings-result", Static).update(Text("validating…"))
        self._save(self._choice())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#save", Button).press()
