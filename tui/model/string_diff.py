"""A line diff of two strings with the changed words (or characters) marked inside changed lines.

Long strings (a prompt, a tool result) rarely differ everywhere: the diff shows the changed lines
with a little context, and inside a changed line the words that differ. A word longer than
`LONG_TOKEN` (an 8,000-character base64 blob, a minified line) is compared character by
character, and a long line is cut to the text around its changes, so the change sits in the
middle of what is shown.

The work is bounded whatever the size: both strings are first stripped of their common start and
end (compared in blocks, at C speed), and only the lines between are diffed. When those are
beyond `MAX_DIFF_CHARS` or `MAX_DIFF_LINES`, they are shown as one change from the first
differing character to the last.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal

from openprogram.word_diff import WORDS_AND_MARKS, WordChange, word_diff

LONG_STRING = 40
"""Strings at least this long (or with a newline) get a diff under the panes."""
CONTEXT_LINES = 2
"""Unchanged lines kept around each change; longer unchanged runs are summarised in one row."""
MAX_LINES = 400
"""A diff is cut after this many rows (the panes still hold both values whole)."""
LONG_TOKEN = 40
"""A word at least this long is compared character by character, not marked whole."""
CONTEXT_CHARS = 60
"""Unchanged characters kept on each side of a change in a long line."""
LONG_LINE = 3 * CONTEXT_CHARS
"""Lines longer than this are cut to the text around their changes."""
MAX_CHANGED_CHARS = 400
"""A changed run longer than this shows its start, then how many characters follow."""
MAX_WORD_DIFF_CHARS = 4_000
"""Changed parts of a line longer than this are marked whole instead of word by word."""
MAX_DIFF_CHARS = 200_000
"""The part between the common start and end is diffed line by line up to this many characters."""
MAX_DIFF_LINES = 2_000
"""... and up to this many lines per side."""

DiffLineKind = Literal["same", "removed", "added", "skipped"]
SegmentKind = Literal["same", "changed", "elided"]
"""`elided`: unchanged (or overlong changed) text left out; the segment's text says how much."""
Segment = tuple[str, SegmentKind]
_BLOCK = 4_096


@dataclass(frozen=True)
class DiffLine:
    """One row of the diff: `segments` are (text, kind) runs; `skipped` rows carry a count."""

    kind: DiffLineKind
    segments: tuple[Segment, ...]
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


# -- common ends, at C speed --


def common_prefix_length(a: str, b: str) -> int:
    """How many characters `a` and `b` share at the start (compared a block at a time)."""
    limit = min(len(a), len(b))
    start = 0
    while start < limit and a[start : start + _BLOCK] == b[start : start + _BLOCK]:
        start += _BLOCK
    start = min(start, limit)
    while start < limit and a[start] == b[start]:
        start += 1
    return start


def common_suffix_length(a: str, b: str, limit: int) -> int:
    """How many characters `a` and `b` share at the end, at most `limit`."""
    end = 0
    while end < limit:
        size = min(_BLOCK, limit - end)
        if a[len(a) - end - size : len(a) - end] != b[len(b) - end - size : len(b) - end]:
            break
        end += size
    while end < limit and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    return end


def _ends(old: str, new: str) -> tuple[int, int]:
    start = common_prefix_length(old, new)
    return start, common_suffix_length(old, new, min(len(old), len(new)) - start)


# -- inside a changed line --


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _in_long_run(text: str, start: int, stop: int) -> bool:
    """True when `text[start:stop]` lies in a run without spaces of at least `LONG_TOKEN`."""
    left, right = start, stop
    while left > 0 and not text[left - 1].isspace() and start - left < LONG_TOKEN:
        left -= 1
    while right < len(text) and not text[right].isspace() and right - stop < LONG_TOKEN:
        right += 1
    return right - left >= LONG_TOKEN and not any(c.isspace() for c in text[start:stop])


def _widen(old: str, new: str, start: int, end: int) -> tuple[int, int]:
    """The common start and end shortened to whole words (`cat` → `car` marks both words), unless
    the change is inside a long run without spaces: there characters are what counts."""
    if _in_long_run(old, start, len(old) - end) or _in_long_run(new, start, len(new) - end):
        return start, end
    if any(start < len(text) and _is_word(text[start]) for text in (old, new)):
        while start > 0 and _is_word(old[start - 1]):
            start -= 1
    if any(end < len(text) and _is_word(text[len(text) - 1 - end]) for text in (old, new)):
        while end > 0 and _is_word(old[len(old) - end]):
            end -= 1
    return start, end


def _words_marked(old: str, new: str) -> tuple[list[Segment], list[Segment]]:
    """Both texts with the changed words marked; two long words that differ are compared by
    their characters (their common start and end stay unmarked)."""
    removed: list[Segment] = []
    added: list[Segment] = []
    changes = word_diff(old, new, WORDS_AND_MARKS) or (WordChange("equal", old),)
    for number, change in enumerate(changes):
        follows = changes[number + 1] if number + 1 < len(changes) else None
        if change.op == "equal":
            removed.append((change.text, "same"))
            added.append((change.text, "same"))
        elif change.op == "insert" and number and changes[number - 1].op == "delete":
            continue  # the second half of a replaced run, marked with its first
        elif change.op == "delete" and follows is not None and follows.op == "insert":
            before, after = change.text, follows.text
            if max(len(before), len(after)) >= LONG_TOKEN:
                start, end = _ends(before, after)
                removed += _split(before, start, end)
                added += _split(after, start, end)
            else:
                removed.append((before, "changed"))
                added.append((after, "changed"))
        elif change.op == "delete":
            removed.append((change.text, "changed"))
        else:
            added.append((change.text, "changed"))
    return removed, added


def _split(text: str, start: int, end: int) -> list[Segment]:
    """`text` as unchanged start, changed middle, unchanged end (empty runs left out)."""
    runs: list[Segment] = [
        (text[:start], "same"),
        (text[start : len(text) - end], "changed"),
        (text[len(text) - end :], "same"),
    ]
    return [run for run in runs if run[0]]


def _intraline(old: str, new: str) -> tuple[DiffLine, DiffLine]:
    """Both lines with what changed marked: whole short words (`echo:hi` → `echo:bye` marks `hi`
    and `bye`), characters inside long ones."""
    start, end = _widen(old, new, *_ends(old, new))
    old_middle, new_middle = old[start : len(old) - end], new[start : len(new) - end]
    if max(len(old_middle), len(new_middle)) > MAX_WORD_DIFF_CHARS:
        middle_old: list[Segment] = [(old_middle, "changed")]
        middle_new: list[Segment] = [(new_middle, "changed")]
    else:
        middle_old, middle_new = _words_marked(old_middle, new_middle)
    head: list[Segment] = [(old[:start], "same")]
    removed = _merged([*head, *middle_old, (old[len(old) - end :], "same")])
    added = _merged([*head, *middle_new, (new[len(new) - end :], "same")])
    return DiffLine("removed", _cut_long(removed)), DiffLine("added", _cut_long(added))


def _merged(segments: list[Segment]) -> list[Segment]:
    """Adjacent runs of the same kind joined, empty runs dropped."""
    joined: list[Segment] = []
    for text, kind in segments:
        if not text:
            continue
        if joined and joined[-1][1] == kind:
            joined[-1] = (joined[-1][0] + text, kind)
        else:
            joined.append((text, kind))
    return joined


def _elided(count: int, before: str = " ", after: str = " ") -> Segment:
    """The mark for `count` characters left out; spaces let a line wrap around it, not inside
    the text next to it (a long token wraps on its own row)."""
    return (f"{before}…{count:,} characters…{after}", "elided")


def _cut_long(segments: list[Segment]) -> tuple[Segment, ...]:
    """A long line cut to `CONTEXT_CHARS` of unchanged text around each change (the change in
    the middle of what is left), each changed run to `MAX_CHANGED_CHARS`."""
    if sum(len(text) for text, _ in segments) <= LONG_LINE:
        return tuple(segments)
    cut: list[Segment] = []
    last = len(segments) - 1
    for number, (text, kind) in enumerate(segments):
        if kind == "changed":
            cut.append((text[:MAX_CHANGED_CHARS], kind))
            if len(text) > MAX_CHANGED_CHARS:
                cut.append(_elided(len(text) - MAX_CHANGED_CHARS, after=""))
            continue
        keep_head = number > 0  # text right after a change
        keep_tail = number < last  # text right before a change
        kept = CONTEXT_CHARS * (keep_head + keep_tail)
        if len(text) <= kept + len(_elided(len(text))):
            cut.append((text, kind))
            continue
        if keep_head:
            cut.append((text[:CONTEXT_CHARS], kind))
        cut.append(_elided(len(text) - kept, " " if keep_head else "", " " if keep_tail else ""))
        if keep_tail:
            cut.append((text[-CONTEXT_CHARS:], kind))
    return tuple(cut)


def _whole(kind: DiffLineKind, line: str) -> DiffLine:
    if len(line) <= LONG_LINE:
        return DiffLine(kind, ((line, "same"),))
    return DiffLine(
        kind,
        ((line[: 2 * CONTEXT_CHARS], "same"), _elided(len(line) - 2 * CONTEXT_CHARS, after="")),
    )


def _skipped(count: int) -> DiffLine:
    return DiffLine("skipped", ((f"… {count} unchanged", "same"),), count)


# -- lines --


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
                folded.append(_skipped(run))
                run = 0
            folded.append(row)
        else:
            run += 1
    if run:
        folded.append(_skipped(run))
    return folded


def _lines_before(text: str, context: int) -> list[DiffLine]:
    """Rows for the unchanged lines `text` (each ended by a newline) ahead of the change."""
    total = text.count("\n")
    shown = total if total <= context + 1 else context
    lines = text[:-1].rsplit("\n", shown)[-shown:] if shown else []
    hidden = [_skipped(total - shown)] if total > shown else []
    return hidden + [_whole("same", line) for line in lines]


def _lines_after(text: str, context: int) -> list[DiffLine]:
    """Rows for the unchanged lines `text` (newline separated) after the change."""
    total = text.count("\n") + 1
    shown = total if total <= context + 1 else context
    lines = text.split("\n", shown)[:shown]
    hidden = [_skipped(total - shown)] if total > shown else []
    return [_whole("same", line) for line in lines] + hidden


def _fits(text: str) -> bool:
    return len(text) <= MAX_DIFF_CHARS and text.count("\n") < MAX_DIFF_LINES


def _one_change(old: str, new: str, lead: int, trail: int) -> list[DiffLine]:
    """Too much to diff line by line: one row per side, everything between the first and the last
    differing character marked (newlines shown as ↵)."""
    sides: tuple[tuple[DiffLineKind, str], ...] = (("removed", old), ("added", new))
    rows = []
    for kind, text in sides:
        runs = [(part.replace("\n", "↵"), mark) for part, mark in _split(text, lead, trail)]
        rows.append(DiffLine(kind, _cut_long(runs)))
    return rows


def string_diff(recorded: str, incoming: str, context: int = CONTEXT_LINES) -> StringDiff:
    """The diff from `recorded` to `incoming`: changed lines, `context` lines around them."""
    if recorded == incoming:
        return StringDiff((), 0, 0)
    start, end = _ends(recorded, incoming)
    # Whole lines: from the start of the line the first change is in, to the end of the line
    # the last change is in (the same offsets in both, counted from the common end).
    first = recorded.rfind("\n", 0, start) + 1
    line_end = recorded.find("\n", len(recorded) - end)
    recorded_end = len(recorded) if line_end < 0 else line_end
    incoming_end = recorded_end - len(recorded) + len(incoming)
    old, new = recorded[first:recorded_end], incoming[first:incoming_end]
    rows = _lines_before(recorded[:first], context)
    if _fits(old) and _fits(new):
        rows += _fold_unchanged(_rows(old.split("\n"), new.split("\n")), context)
    else:
        rows += _one_change(old, new, start - first, end - (len(recorded) - recorded_end))
    if line_end >= 0:
        rows += _lines_after(recorded[line_end + 1 :], context)
    return StringDiff(
        tuple(rows[:MAX_LINES]),
        removed=sum(row.kind == "removed" for row in rows),
        added=sum(row.kind == "added" for row in rows),
        truncated=len(rows) > MAX_LINES,
    )
