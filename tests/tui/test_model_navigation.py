"""Go-to targets, searching stored rows, and moving between matches."""

from __future__ import annotations

import threading
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.model.navigation import (
    GotoError,
    GotoTarget,
    compile_query,
    find_rows,
    next_match,
    parse_goto,
)


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("12", GotoTarget(12)),
        (" #3 ", GotoTarget(3)),
        ("12.40", GotoTarget(12, 40)),
        ("1:2", GotoTarget(1, 2)),
    ],
)
def test_goto_forms(text: str, target: GotoTarget) -> None:
    assert parse_goto(text) == target


@pytest.mark.parametrize("text", ["", "x", "1.", "-1", "1.2.3", "1 2"])
def test_goto_refuses_anything_else(text: str) -> None:
    with pytest.raises(GotoError, match=r"12\.40"):
        parse_goto(text)


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_goto_round_trips(call: int, event: int) -> None:
    assert parse_goto(f"{call}.{event}") == GotoTarget(call, event)


def test_find_is_literal_and_case_insensitive() -> None:
    rows = [b'{"delta":"Hello"}', b'{"delta":"a.b"}', b'{"delta":"axb"}']
    pattern = compile_query("a.b")
    assert pattern is not None
    assert list(find_rows(3, rows.__getitem__, pattern)) == [1]
    hello = compile_query("HELLO")
    assert hello is not None and list(find_rows(3, rows.__getitem__, hello)) == [0]
    assert compile_query("   ") is None


def test_find_stops_when_cancelled() -> None:
    cancelled = threading.Event()
    cancelled.set()
    pattern = compile_query("x")
    assert pattern is not None
    assert list(find_rows(1000, lambda row: b"x", pattern, cancelled)) == []


def test_next_match_wraps_both_ways() -> None:
    matches = array("L", [2, 5, 9])
    assert next_match(matches, 5) == 9
    assert next_match(matches, 9) == 2
    assert next_match(matches, 5, forward=False) == 2
    assert next_match(matches, 2, forward=False) == 9
    assert next_match(array("L"), 0) is None
