"""The matching rules in force for a recording, and removing one (`x`), from the check screen.

The list is what replay merges for the recording: the project's `pyproject.toml` rules, then the
header's, each with where it lives. Removing goes through the library (`rule_edits`), which
rewrites the header or edits `pyproject.toml` keeping its comments; the check then runs again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.rules import IgnoreRule, NormalizeRule, Rule
from openprogram.providers.recording.rules_sources import HEADER_SOURCE
from openprogram.recordings.rule_edits import (
    remove_rule_from_header,
    remove_rule_from_pyproject,
    rules_in_force,
)
from openprogram.visible_text import visible_line
from tui.model.state_dir import display_path
from tui.screens.dialog import DialogScreen


class RulesScreen(DialogScreen[bool]):
    """Lists the rules in force; `x` removes the highlighted one. Dismissed with True when any
    rule was removed (the check should run again)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x,delete", "remove", "Remove", id="rules.remove"),
        Binding("escape,q", "close", "Close", id="rules.close"),
    ]
    DEFAULT_CSS = """
    RulesScreen {
        & > Vertical { padding: 0 1; }
        & OptionList { height: auto; max-height: 16; border: none; background: $panel; }
        & .rules--note { color: $text-muted; }
    }
    """

    @dataclass(eq=False)
    class Read(Message):
        """The rules in force were read (`problem`: why they could not be)."""

        rules: tuple[Rule, ...]
        problem: str

    def __init__(self, recording: Path, start: Path) -> None:
        super().__init__()
        self.recording = recording
        self.start = start
        self.rules: tuple[Rule, ...] = ()
        self.removed = False

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = Text(
                visible_line(f"Matching rules in force for {self.recording.name}")
            )
            yield OptionList(id="rules-list")
            yield Static(Text("reading the rules…"), id="rules-state")
            yield Static(
                Text("x removes the highlighted rule from where it lives · esc closes"),
                classes="rules--note",
            )

    def on_mount(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="rules-read", exit_on_error=False)
    def _read(self) -> None:
        try:
            rules, problem = rules_in_force(self.recording, self.start).all(), ""
        except (OpenProgramError, OSError) as exc:
            rules, problem = (), str(exc)
        self.post_message(self.Read(rules, problem))

    def on_rules_screen_read(self, message: Read) -> None:
        self.rules = message.rules
        listing = self.query_one(OptionList)
        listing.clear_options()
        for rule in self.rules:
            where = "header" if rule.source == HEADER_SOURCE else display_path(Path(rule.source))
            label = Text(rule.describe())
            label.append(f"  ({where})", "dim")
            listing.add_option(Option(label))
        if self.rules:
            listing.highlighted = 0
        state = message.problem or ("" if self.rules else "No rules are in force.")
        self.query_one("#rules-state", Static).update(Text(state))
        listing.focus()

    def action_remove(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.rules):
            return
        rule = self.rules[index]
        if not isinstance(rule, IgnoreRule | NormalizeRule):
            self.notify(f"Scrub rules are edited in {rule.source}.", severity="warning")
            return
        try:
            if rule.source == HEADER_SOURCE:
                remove_rule_from_header(self.recording, rule)
            else:
                remove_rule_from_pyproject(Path(rule.source), rule)
        except (OpenProgramError, OSError) as exc:
            self.notify(str(exc), title="Nothing was removed", severity="error", markup=False)
            return
        self.removed = True
        self.notify(f"Removed `{rule.describe()}`.", markup=False)
        self._read()

    def action_close(self) -> None:
        self.dismiss(self.removed)
