"""The string diff inside long tokens: characters, not the whole token; bounded on huge strings."""

from __future__ import annotations

import base64
import difflib
import hashlib
from collections.abc import Sequence
from typing import Any

import pytest

from tui.model import string_diff as model
from tui.model.string_diff import CONTEXT_CHARS, DiffLine, string_diff


def token(length: int) -> str:
    """A base64-like run without spaces, the same on every run."""
    chunks, seed = [], b"openprogram"
    while sum(map(len, chunks)) < length:
        seed = hashlib.sha256(seed).digest()
        chunks.append(base64.b64encode(seed).decode().rstrip("="))
    return "".join(chunks)[:length]


def changed_at(text: str, at: int, char: str = "!") -> str:
    return text[:at] + char + text[at + 1 :]


def shown_and_elided(line: DiffLine) -> tuple[int, int]:
    """Characters shown, and characters the elision marks stand for."""
    shown = sum(len(text) for text, kind in line.segments if kind != "elided")
    elided = sum(
        int(text.strip(" …").split()[0].replace(",", ""))
        for text, kind in line.segments
        if kind == "elided"
    )
    return shown, elided


def test_one_changed_character_in_an_8000_character_token_is_marked_alone() -> None:
    recorded = token(8_000)
    incoming = changed_at(recorded, 4_321)
    diff = string_diff(recorded, incoming)

    removed, added = diff.lines
    assert (removed.kind, added.kind) == ("removed", "added")
    assert [text for text, kind in removed.segments if kind == "changed"] == [recorded[4_321]]
    assert [text for text, kind in added.segments if kind == "changed"] == ["!"]
    # Cut to the text around the change, every character accounted for.
    assert shown_and_elided(removed) == (2 * CONTEXT_CHARS + 1, 8_000 - 2 * CONTEXT_CHARS - 1)
    # The change is in the middle of what is shown.
    kinds = [kind for _, kind in added.segments]
    assert kinds == ["elided", "same", "changed", "same", "elided"]
    before, after = added.segments[1][0], added.segments[3][0]
    assert before == recorded[4_321 - CONTEXT_CHARS : 4_321]
    assert after == recorded[4_322 : 4_322 + CONTEXT_CHARS]


def test_a_change_near_the_start_of_a_long_token_keeps_what_is_there() -> None:
    recorded = token(8_000)
    (removed, _added) = string_diff(recorded, changed_at(recorded, 3)).lines
    assert [kind for _, kind in removed.segments] == ["same", "changed", "same", "elided"]
    assert removed.segments[0][0] == recorded[:3]


def test_ordinary_words_are_still_marked_whole() -> None:
    removed, added = string_diff(
        "the cat sat on the mat, said the tool", "the car sat on the mat, said the tool"
    ).lines
    assert [t for t, kind in removed.segments if kind == "changed"] == ["cat"]
    assert [t for t, kind in added.segments if kind == "changed"] == ["car"]


def test_long_tokens_among_words_are_compared_by_character() -> None:
    blob = token(300)
    recorded = f"result: {blob} (ok)\nnext line"
    incoming = f"result: {changed_at(blob, 150)} (ok)\nnext line"
    removed, added = string_diff(recorded, incoming).lines[:2]
    assert [t for t, kind in added.segments if kind == "changed"] == ["!"]
    assert [t for t, kind in removed.segments if kind == "changed"] == [blob[150]]


class CountingMatcher(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """`difflib.SequenceMatcher` that remembers the longest sequence it was given."""

    longest = 0

    def __init__(self, isjunk: Any, a: Sequence[Any], b: Sequence[Any], **kwargs: Any) -> None:
        CountingMatcher.longest = max(CountingMatcher.longest, len(a), len(b))
        super().__init__(isjunk, a, b, **kwargs)


@pytest.mark.parametrize(
    "case",
    ["one change in a 5 MB token", "two changes far apart in 5 MB of lines", "5 MB, all different"],
)
def test_work_and_output_are_bounded_on_a_5_mb_string(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model.difflib, "SequenceMatcher", CountingMatcher)
    CountingMatcher.longest = 0
    size = 5_000_000
    if case == "one change in a 5 MB token":
        recorded = "x" * size
        incoming = changed_at(recorded, size // 2, "y")
    elif case == "two changes far apart in 5 MB of lines":
        recorded = "\n".join(f"line {n:07d} " + "y" * 40 for n in range(size // 53))
        incoming = recorded.replace("line 0000100 ", "line 0000100!").replace(
            "0090000 ", "0090000!"
        )
    else:
        recorded, incoming = "a" * size, "b" * size

    diff = string_diff(recorded, incoming)

    # Nothing compared item by item beyond the caps: no quadratic work on the whole string.
    assert CountingMatcher.longest <= max(model.MAX_DIFF_LINES, model.MAX_WORD_DIFF_CHARS)
    # What is shown stays small, and says where the change is.
    assert sum(len(line.text) for line in diff.lines) < 4_000
    assert diff.removed >= 1 and diff.added >= 1
    changed = [t for line in diff.lines for t, kind in line.segments if kind == "changed"]
    assert changed
    if case == "one change in a 5 MB token":
        assert changed == ["x", "y"]
        assert shown_and_elided(diff.lines[0]) == (
            2 * CONTEXT_CHARS + 1,
            size - 2 * CONTEXT_CHARS - 1,
        )
