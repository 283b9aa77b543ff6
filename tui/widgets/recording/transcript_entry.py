"""One turn of a conversation as a titled box: thinking, text, tool calls with their arguments."""

from __future__ import annotations

from rich.text import Text

from tui.model.transcript import Role, TranscriptEntry, bounded_entry
from tui.widgets.common.lazy_static import LazyStatic


def entry_text(entry: TranscriptEntry) -> Text:
    """The body of an entry: thinking dimmed, tool calls as `→ name (id)` plus arguments."""
    text = Text()
    for number, part in enumerate(entry.parts):
        if number:
            text.append("\n")
        if part.kind == "thinking":
            text.append("thinking  ", "bold dim")
            text.append(part.text, "italic dim")
        elif part.kind == "tool_call":
            text.append(f"→ {part.title}\n", "bold")
            text.append(part.text)
        elif part.kind == "error":
            text.append("error  ", "bold reverse")
            text.append(" " + part.text, "bold")
        elif part.kind in ("note", "image"):
            text.append(part.text, "dim italic")
        elif part.title:
            text.append(f"{part.title}  ", "bold")
            text.append(part.text)
        else:
            text.append(part.text)
    return text


class TranscriptEntryBox(LazyStatic):
    """A message in a box titled by its role; the role picks the border colour.

    Only the lines in view are drawn: a box may be far taller than the pane that scrolls it.
    """

    DEFAULT_CSS = """
    TranscriptEntryBox {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border: round $panel-lighten-2;
        border-title-align: left;
        border-title-style: bold;
        &.-system { border: round $foreground 30%; border-title-color: $text-muted; }
        &.-tools { border: round $foreground 30%; border-title-color: $text-muted; }
        &.-user { border: round $primary; border-title-color: $text-primary; }
        &.-assistant { border: round $accent; border-title-color: $text-accent; }
        &.-tool { border: round $warning; border-title-color: $text-warning; }
        &.-folded { border: none; padding: 0 2; color: $text-muted; }
        &.-problem, &.-error { border: round $error; border-title-color: $text-error; }
    }
    """

    def __init__(self, entry: TranscriptEntry | None = None, *, role: Role | None = None) -> None:
        """Show `entry`; or, without one, start styled for `role` (restyling a box shown costs)."""
        super().__init__(classes=f"-{role}" if role else None)
        self.entry: TranscriptEntry | None = None
        """The entry shown (bounded)."""
        if entry is not None:
            self.show_entry(entry)

    def show_entry(self, entry: TranscriptEntry) -> None:
        """Show `entry` (bounded to `ENTRY_TEXT_LIMIT` characters), replacing what was there.

        The same entry again is left as it is: the calls of one session repeat the conversation
        so far, and a box re-wrapped and re-measured for nothing keeps the next key waiting."""
        entry = bounded_entry(entry)
        if entry == self.entry:
            return
        self.entry = entry
        wanted = {f"-{entry.role}"} | ({"-error"} if entry.is_error else set())
        current = {name for name in self.classes if name.startswith("-")}
        if wanted != current:  # a class change restyles the box; skip it when nothing changes
            self.remove_class(*(current - wanted))
            self.add_class(*(wanted - current))
        self.border_title = Text(entry.title)  # text, never markup (a tool named `echo[/]`)
        self.update(entry_text(entry))
