"""Each event's arrival time and the gap before it; the longest gap; "not recorded", never 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.test_model_call_detail import calls_of
from tests.tui.timed_call import write_timed_calls
from tui.model.event_times import GapsStopped, LongestGap, gap_caption, longest_gap, row_ms


def test_each_event_has_its_time_and_the_gap_before_it(tmp_path: Path) -> None:
    _, calls = calls_of(write_timed_calls(tmp_path / "timed.jsonl"))
    timed = calls[0]
    rows = [timed.event_summary(n) for n in range(timed.event_count)]
    assert [(row.ms, row.gap_ms) for row in rows] == [
        (120, 120),
        (130, 10),
        (140, 10),
        (3140, 3000),
        (3150, 10),
        (3160, 10),
    ]
    assert timed.times_recorded
    assert timed.longest_gap() == LongestGap(3000, 3)
    assert gap_caption(timed.longest_gap(), True) == "Events · longest gap 3.0s before event 3"


def test_a_call_without_times_says_not_recorded_never_0(tmp_path: Path) -> None:
    _, calls = calls_of(write_timed_calls(tmp_path / "timed.jsonl"))
    untimed = calls[1]
    rows = [untimed.event_summary(n) for n in range(untimed.event_count)]
    assert {(row.ms, row.gap_ms) for row in rows} == {(None, None)}
    assert not untimed.times_recorded and untimed.longest_gap() is None
    assert gap_caption(untimed.longest_gap(), False) == "Events · times not recorded"


def test_a_time_is_read_from_the_last_key_only() -> None:
    tool_argument_ms = (
        b'{"call_index":0,"event":{"arguments":{"ms":5}},"event_index":1,"type":"event"}\n'
    )
    assert row_ms(tool_argument_ms) is None
    assert row_ms(b'{"call_index":0,"event":{},"event_index":1,"ms":42,"type":"event"}') == 42


def test_the_scan_can_be_stopped() -> None:
    with pytest.raises(GapsStopped):
        longest_gap(iter(range(50_000)), stop=lambda: True)
