"""A line diff of two strings with the changed words marked inside changed lines (difflib).

Long strings (a prompt, a tool result) rarely differ everywhere: the diff shows the changed lines
with a little context, and inside a changed line the words (and marks) that differ.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Literal

LONG_STRING = 40
"""Strings at least this long (or with a newline) get a diff under the panes."""
CONTEXT_LINES = 2
"""Unchanged lines kept around each change; longer unchanged runs are summarised in one row."""
MAX_LINES = 400
"""A diff is cut after this many rows (the panes still hold both values whole)."""

DiffLineKind = Literal["same", "removed", "added", "skipped"]
_WORD = re.compile(r"\w+|\s+|[^\w\s]")
"""Changed lines are compared word by word: runs of word characters, of spaces, single marks."""


@dataclass(frozen=True)
class DiffLine:
    """One row of the diff: `segments` are (text, changed) runs; `skipped` rows carry a count."""

    kind: DiffLineKind
    segments: tuple[tuple[str, bool], ...]
    skipped: int = 0

    @property
    def text(self) -> str:
        """The row's text without markers."""
        return "".join(text for text, _ in self.segments)


@dataclass(frozen=True)
class StringDiff:
    """The rows of a diff, and counts a header can show."""

    lines: tuple[DiffLine, ...]
    removed: int
    added: int
    truncated: bool = False


def wants_string_diff(recorded: Any, incoming: Any) -> bool:
    """True when both values are strings and one is long or spans lines."""
    if not (isinstance(recorded, str) and isinstance(incoming, str)):
        return False
    return max(len(recorded), len(incoming)) >= LONG_STRING or "\n" in recorded + incoming


def _words(line: str) -> list[str]:
    return _WORD.findall(line)


def _intraline(old: str, new: str) -> tuple[DiffLine, DiffLine]:
    """Both lines with the changed words marked (`echo:hi` → `echo:bye` marks `hi` / `bye`)."""
    old_words, new_words = _words(old), _words(new)
    matcher = difflib.SequenceMatcher(None, old_words, new_words, autojunk=False)
    removed: list[tuple[str, bool]] = []
    added: list[tuple[str, bool]] = []
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if a2 > a1:
            removed.append(("".join(old_words[a1:a2]), tag != "equal"))
        if b2 > b1:
            added.append(("".join(new_words[b1:b2]), tag != "equal"))
    return DiffLine("removed", tuple(removed)), DiffLine("added", tuple(added))


def _whole(kind: DiffLineKind, line: str) -> DiffLine:
    return DiffLine(kind, ((line, False),))


def _rows(old_lines: list[str], new_lines: list[str]) -> list[DiffLine]:
    rows: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [_whole("same", line) for line in old_lines[a1:a2]]
            continue
        old, new = old_lines[a1:a2], new_lines[b1:b2]
        paired = min(len(old), len(new)) if tag == "replace" else 0
        pairs = [_intraline(old[n], new[n]) for n in range(paired)]
        rows += [removed for removed, _ in pairs]
        rows += [_whole("removed", line) for line in old[paired:]]
        rows += [added for _, added in pairs]
        rows += [_whole("added", line) for line in new[paired:]]
    return rows


def _fold_unchanged(rows: list[DiffLine], context: int) -> list[DiffLine]:
    changed = [n for n, row in enumerate(rows) if row.kind != "same"]
    keep = {n for c in changed for n in range(c - context, c + context + 1)}
    # A single unchanged line is shown rather than summarised.
    keep |= {n for n in range(len(rows)) if n - 1 in keep and n + 1 in keep}
    if len(rows) - 1 not in keep and len(rows) - 2 in keep:
        keep.add(len(rows) - 1)
    if 0 not in keep and 1 in keep:
        keep.add(0)
    folded: list[DiffLine] = []
    run = 0
    for number, row in enumerate(rows):
        if number in keep or row.kind != "same":
            if run:
                folded.append(DiffLine("skipped", ((f"… {run} unchanged", False),), run))
                run = 0
            folded.append(row)
        else:
            run += 1
    if run:
        folded.append(DiffLine("skipped", ((f"… {run} unchanged", False),), run))
    return folded


def string_diff(recorded: str, incoming: str, context: int = CONTEXT_LINES) -> StringDiff:
    """The diff from `recorded` to `incoming`: changed lines, `context` lines around them."""
    rows = _fold_unchanged(_rows(recorded.split("\n"), incoming.split("\n")), context)
    truncated = len(rows) > MAX_LINES
    return StringDiff(
        tuple(rows[:MAX_LINES]),
        removed=sum(row.kind == "removed" for row in rows),
        added=sum(row.kind == "added" for row in rows),
        truncated=truncated,
    )
