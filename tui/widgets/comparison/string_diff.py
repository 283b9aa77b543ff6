"""Under the panes: a line diff of two long strings, the changed words marked in each line.

A long line shows only the text around its changes (`…3,940 characters…` for the rest), so a
one-character change in an 8,000-character token is in the middle of its row, not off screen.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from openprogram.text import plural
from tui.model.string_diff import StringDiff

_PREFIX = {"same": "  ", "removed": "- ", "added": "+ ", "skipped": "  "}


class StringDiffView(VerticalScroll):
    """The `string_diff` of the recorded and the incoming string; hidden when there is none."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "string-diff--removed",
        "string-diff--removed-change",
        "string-diff--added",
        "string-diff--added-change",
        "string-diff--skipped",
    }
    DEFAULT_CSS = """
    StringDiffView {
        display: none;
        height: auto;
        max-height: 12;
        border: round $panel;
        border-title-color: $text-muted;
        &.-shown { display: block; }
        &:focus { border: round $primary; }
        & > Static { width: 1fr; }
        & > .string-diff--removed { color: $text-error; }
        & > .string-diff--removed-change { color: $text; background: $error 45%; }
        & > .string-diff--added { color: $text-success; }
        & > .string-diff--added-change { color: $text; background: $success 45%; }
        & > .string-diff--skipped { color: $text-muted; text-style: italic; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: StringDiff | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="string-diff-lines")

    def show_diff(self, diff: StringDiff | None) -> None:
        """Show `diff`, or hide the view (`None`)."""
        self.diff = diff
        self.set_class(diff is not None, "-shown")
        self.can_focus = diff is not None
        if diff is None:
            return
        self.border_title = (
            f"String diff · {plural(diff.removed, 'line')} recorded, "
            f"{plural(diff.added, 'line')} incoming"
        )
        self.query_one("#string-diff-lines", Static).update(self._render_diff(diff))
        self.scroll_home(animate=False)

    def _render_diff(self, diff: StringDiff) -> Text:
        style = self.get_component_rich_style
        text = Text(no_wrap=False)
        for number, line in enumerate(diff.lines):
            if number:
                text.append("\n")
            kind = line.kind
            if kind in ("removed", "added"):
                base, changed = style(f"string-diff--{kind}"), style(f"string-diff--{kind}-change")
            elif kind == "skipped":
                base = changed = style("string-diff--skipped")
            else:
                base = changed = Style()
            looks = {"same": base, "changed": changed, "elided": style("string-diff--skipped")}
            text.append(_PREFIX[kind], base)
            for part, segment in line.segments:
                text.append(part, looks[segment])
        if diff.truncated:
            text.append(
                "\n… the diff is cut here; both panes hold the whole values",
                style("string-diff--skipped"),
            )
        return text
