"""A word-level diff of two texts: what is kept, what only the first has, what only the second has.

One diff serves `recordings diff` (an answer's text, split at whitespace) and the TUI's string
diffs (a changed line, split into words, spaces and single marks). It imports nothing from the
project, so every layer may use it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

WordOp = Literal["equal", "delete", "insert"]

SPACED_WORDS = re.compile(r"\s+|[^\s]+")
"""Runs of whitespace and runs of everything else: `echo:hi there` is `echo:hi`, ` `, `there`."""
WORDS_AND_MARKS = re.compile(r"\w+|\s+|[^\w\s]")
"""Runs of word characters, runs of whitespace, single marks: `echo:hi` is `echo`, `:`, `hi`."""


MARKS: dict[WordOp, tuple[str, str]] = {
    "equal": ("", ""),
    "delete": ("[-", "-]"),
    "insert": ("{+", "+}"),
}
"""What encloses each kind of run where colour may not show, as `git diff --word-diff=plain`
writes it: `[-echo:hi-]{+echo:bye+}`."""


@dataclass(frozen=True)
class WordChange:
    """One run of a word-level text diff: kept, only in A (`delete`) or only in B (`insert`)."""

    op: WordOp
    text: str


def word_diff(a: str, b: str, words: re.Pattern[str] = SPACED_WORDS) -> tuple[WordChange, ...]:
    """The runs of `a` and `b` compared word by word (`words` splits them; whitespace is kept),
    or () when the texts are equal. A replaced run is its `delete` followed by its `insert`."""
    if a == b:
        return ()
    left, right = words.findall(a), words.findall(b)
    changes: list[WordChange] = []
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            changes.append(WordChange("equal", "".join(left[i1:i2])))
            continue
        if i2 > i1:
            changes.append(WordChange("delete", "".join(left[i1:i2])))
        if j2 > j1:
            changes.append(WordChange("insert", "".join(right[j1:j2])))
    return tuple(changes)


def marked_words(changes: tuple[WordChange, ...]) -> str:
    """The runs as one text, each changed run enclosed in its `MARKS`."""
    return "".join(MARKS[c.op][0] + c.text + MARKS[c.op][1] for c in changes)
