"""`?` / `f1` — every key that works right now, generated from the active bindings."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

INTRO = (
    "Keyboard first, mouse too: click a row to select it, double-click to open it, scroll with "
    "the wheel, click a tab. ctrl+p opens the command palette."
)
"""What the help says first on every screen; a screen's `HELP_INTRO` follows (`help_intro`)."""


@dataclass(frozen=True)
class HelpRow:
    """One binding as the help lists it: where it works, its keys, what it does (and its id,
    which the help does not show: nothing lets a user remap keys yet)."""

    section: str
    keys: str
    description: str
    binding_id: str


def _section(node: DOMNode) -> str:
    """Where a key works, in words: a widget's `HELP_TITLE`, else its class name as words
    (`MismatchView` → `Mismatch view`)."""
    if isinstance(node, App):
        return "Everywhere"
    if isinstance(node, Screen):
        return "This screen"
    title = getattr(node, "HELP_TITLE", None)
    if isinstance(title, str):
        return title
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(node).__name__)
    return words[:1] + words[1:].lower()


def help_intro(screen: Screen[Any]) -> str:
    """`INTRO`, then what the screen says of its own keys (its `HELP_INTRO`, if it has one)."""
    own = getattr(screen, "HELP_INTRO", None)
    return f"{INTRO} {own}" if isinstance(own, str) else INTRO


def help_rows(app: App[Any], bindings: dict[str, ActiveBinding]) -> list[HelpRow]:
    """Group the active bindings by the binding they come from, keys joined (`j / down`)."""
    grouped: dict[tuple[int, str], tuple[DOMNode, Binding, list[str]]] = {}
    for active in bindings.values():
        binding = active.binding
        # Textual's own scrolling keys on our lists duplicate ours; the screen's (tab) are kept.
        if binding.system or (binding.id is None and not isinstance(active.node, Screen | App)):
            continue
        key = (id(active.node), binding.id or binding.action)
        entry = grouped.setdefault(key, (active.node, binding, []))
        display = app.get_key_display(replace(binding, key_display=None))
        if display not in entry[2]:
            entry[2].append(display)
    order = {"This screen": 1, "Everywhere": 2}
    rows = [
        HelpRow(
            _section(node),
            " / ".join(keys),
            binding.description or binding.action,
            binding.id or "",
        )
        for node, binding, keys in grouped.values()
    ]
    return sorted(rows, key=lambda row: (order.get(row.section, 0), row.section))


class HelpScreen(ModalScreen[None]):
    """The keys of the screen below, the focused widget and the app."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close", id="help.close"),
    ]
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        background: $background 50%;
        & > VerticalScroll {
            width: 90;
            max-width: 100%;
            max-height: 90%;
            height: auto;
            padding: 1 2;
            background: $panel;
            border: round $primary;
            border-title-color: $text-primary;
        }
        & #help-intro { color: $text-muted; margin-bottom: 1; }
    }
    """

    def __init__(self, rows: list[HelpRow], title: str = "Keys", intro: str = INTRO) -> None:
        super().__init__()
        self.rows = rows
        self.title_text = title
        self.intro = intro

    def compose(self) -> ComposeResult:
        scroll = VerticalScroll()
        scroll.border_title = f"Help · {self.title_text}"
        with scroll:
            yield Static(Text(self.intro), id="help-intro")
            yield Static(self._table(), id="help-table")

    def _table(self) -> Table:
        table = Table(box=None, expand=True, pad_edge=False, show_edge=False)
        table.add_column("Where", style="dim")
        table.add_column("Keys", style="bold", no_wrap=True)
        table.add_column("Action")
        previous = None
        for row in self.rows:
            section = row.section if row.section != previous else ""
            previous = row.section
            table.add_row(section, row.keys, row.description)
        return table

    def action_close(self) -> None:
        self.dismiss(None)
