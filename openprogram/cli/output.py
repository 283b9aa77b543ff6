"""How the CLI writes: results to stdout, `error: …` lines and prompts to stderr, colour only on a TTY.

Colour is used only when stdout is a terminal and `NO_COLOR` is not set. Text is never wrapped or
parsed as markup, and every character of it that a terminal would interpret (escape sequences,
other controls, bidi overrides) is shown as a visible mark (`visible_text.visible`): recorded text
is untrusted. A line (`line`, `note`) stays one line: a newline or tab inside a value shows as `␊`
or `␉` (`visible_line`), so a file cannot print a line of its own (a forged `status: valid`). JSON
is written as JSON encodes it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection, Iterable, Sequence
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from openprogram.errors import OpenProgramError
from openprogram.text import one_line
from openprogram.visible_text import visible, visible_line


class UsageRefused(OpenProgramError):
    """A command that needs confirmation was not confirmed (exit code 2)."""


def colour_enabled(stream: TextIO) -> bool:
    """True when `stream` is a terminal and `NO_COLOR` is not set."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ


def _encode(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


class Output:
    """The CLI's two streams, with optional colour on stdout."""

    def __init__(self, stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        colour = colour_enabled(self.stdout)
        self.console = Console(
            file=self.stdout,
            no_color=not colour,
            color_system="auto" if colour else None,
            force_terminal=colour,
            highlight=False,
            markup=False,
            emoji=False,
            soft_wrap=True,
        )

    def line(self, *parts: str | tuple[str, str]) -> None:
        """Print one line made of plain strings and `(text, style)` pairs (a newline inside a part
        shows as `␊`: one call is one line)."""
        text = Text()
        for part in parts:
            if isinstance(part, tuple):
                text.append(visible_line(part[0]), style=part[1])
            else:
                text.append(visible_line(part))
        self.console.print(text)

    def raw(self, text: str) -> None:
        """Write `text` to stdout as given, but for what a terminal would interpret (`visible`)."""
        self.stdout.write(visible(text))
        self.stdout.flush()

    def json(self, data: Any) -> None:
        """Print `data` as indented JSON (control characters are escaped by JSON itself)."""
        self.stdout.write(_encode(data) + "\n")
        self.stdout.flush()

    def json_listing(self, data: dict[str, Any], key: str, items: Iterable[Any]) -> None:
        """`json({**data, key: list(items)})` byte for byte, each item encoded and written as it
        comes (memory: one item's JSON, not the document's: a recording's calls outgrow it)."""
        head = _encode({**data, key: []})
        # JSON escapes a line break inside a string, so `\n  "key": []` is the top-level key's.
        marker = "\n  " + json.dumps(key, ensure_ascii=False) + ": []"
        before, found, after = head.partition(marker)
        assert found, key
        self.stdout.write(before + marker[:-1])
        written = False
        for item in items:  # an item's lines sit 4 spaces deeper in the list than on their own
            self.stdout.write(
                ("," if written else "") + "\n    " + _encode(item).replace("\n", "\n    ")
            )
            written = True
        self.stdout.write(("\n  ]" if written else "]") + after + "\n")
        self.stdout.flush()

    def note(self, message: str) -> None:
        """A one-line remark on stderr that is not a failure."""
        print(f"note: {visible_line(message)}", file=self.stderr, flush=True)

    def error(self, message: object) -> None:
        """The one-line `error: …` diagnostic on stderr."""
        print(f"error: {visible(one_line(message))}", file=self.stderr, flush=True)

    def confirm(self, question: str, *, assume_yes: bool, what: str) -> None:
        """Ask on a terminal; without one, `--yes` is required. Raises `UsageRefused` otherwise."""
        if assume_yes:
            return
        if not sys.stdin.isatty():
            raise UsageRefused(f"refusing to {what} without confirmation; pass --yes")
        print(f"{question} [y/N] ", end="", file=self.stderr, flush=True)
        try:
            answer = sys.stdin.readline().strip().lower()
        except KeyboardInterrupt:
            answer = ""
        if answer not in ("y", "yes"):
            raise UsageRefused("not confirmed; nothing was changed")


def aligned(
    heading: Sequence[str], rows: Sequence[Sequence[str]], numeric: Collection[int] = ()
) -> list[str]:
    """The heading and rows as padded columns (numbers right-aligned), two spaces apart."""
    widths = [max(len(row[i]) for row in [heading, *rows]) for i in range(len(heading))]

    def render(row: Sequence[str]) -> str:
        cells = (
            cell.rjust(width) if index in numeric else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        )
        return "  ".join(cells)

    return [render(heading), *(render(row) for row in rows)]
