"""The diff view's numbers per pair and in total: the library's `StatsDelta`, shown A → B (±)."""

from __future__ import annotations

import asyncio
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from openprogram.recordings.call_stats import CallStats, StatsDelta
from openprogram.recordings.cost import TokenCounts
from openprogram.recordings.diff import AnswerDifference
from tui.model.diff import DiffRow
from tui.model.diff_text import (
    biggest_changes,
    cost_line,
    delta_lines,
    diff_totals,
    ms_line,
    row_delta_text,
    totals_parts,
)


def stats(duration: int | None, tokens: int, cost: str | None = None) -> CallStats:
    usage = TokenCounts(input=tokens, output=1, total_tokens=tokens + 1)
    return CallStats(
        0, "openai/gpt", "complete", usage, Decimal(cost) if cost else None, 0, duration, 10
    )


def row(a: CallStats | None, b: CallStats | None, n: int) -> DiffRow:
    return DiffRow(n, n, answer=AnswerDifference(), stats_a=a, stats_b=b)


def test_a_time_a_side_does_not_hold_is_not_recorded_never_0() -> None:
    assert ms_line(1200, 4300, 3100) == "1.20s → 4.30s (+3.10s)"
    assert ms_line(None, 4300, None) == "not recorded → 4.30s"


def test_a_change_under_a_second_is_in_milliseconds_never_a_signed_zero() -> None:
    """Issue #42, item 17: `-0.0s`/`+0.0s` read as a change of nothing with a sign."""
    assert ms_line(1200, 1212, 12) == "1.20s → 1.21s (+12ms)"
    assert ms_line(1212, 1200, -12) == "1.21s → 1.20s (-12ms)"
    assert row_delta_text(row(stats(1000, 10), stats(1040, 10), 0)) == "+40ms"
    assert row_delta_text(row(stats(1000, 10), stats(4000, 12), 0)) == "+3.00s +2 tok"


def test_a_model_without_a_price_shows_no_cost() -> None:
    assert cost_line(Decimal("0.0012"), Decimal("0.0015")) == "$0.0012 → $0.0015 (+$0.0003)"
    assert cost_line(None, Decimal("0.0015")) == "no price → $0.0015"
    assert cost_line(None, None) == "no price"


def test_a_pair_shows_each_number_a_to_b() -> None:
    delta = StatsDelta(stats(1000, 10), stats(3500, 12, "0.01"))
    lines = {line.label: line.change for line in delta_lines(delta)}
    assert lines["duration"] == "1.00s → 3.50s (+2.50s)"
    assert lines["first token"] == "0.01s → 0.01s"
    assert lines["tokens in"] == "10 → 12 (+2)"
    assert lines["total"] == "11 → 13 (+2)"
    assert lines["cost"] == "no price → $0.01"


def test_the_totals_name_the_largest_changes() -> None:
    rows = [
        row(stats(1000, 10), stats(1100, 50), 0),
        row(stats(1000, 10), stats(4000, 12), 1),
        row(None, stats(9000, 99), 2),  # only in B: no change to compare
    ]
    totals = diff_totals(rows)
    assert totals.biggest == {"duration": 1, "tokens": 0}
    assert totals_parts(totals) == [
        "in the model 2.00s → 14.10s (+12.10s)",
        "tokens 22 → 164 (+142)",
        "cost no price",
    ]
    assert biggest_changes(rows, totals) == ["time #1 (+3.00s)", "tokens #0 (+40)"]
    assert totals.marks() == {1: ["duration"], 0: ["tokens"]}


def test_comparing_answers_reads_each_event_row_once_and_keeps_its_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answers and the numbers of a pair come from one pass over its event rows (reading
    every row twice, once more for its time, made "every answer compared" 1.6x slower)."""
    from openprogram.providers.recording.reader import read_recording
    from openprogram.providers.recording.rules import MatchingRules
    from openprogram.recordings.call_stats import call_stats
    from tests.tui.diff_fixtures import record_diff_pair
    from tui.model.diff import LazyDiff
    from tui.model.recording_index import RecordingIndex

    a, b = asyncio.run(record_diff_pair(tmp_path))
    diff = LazyDiff.open(a, b, MatchingRules())
    diff.build(lambda reset: diff.pair.resume())
    reads: Counter[tuple[int, int]] = Counter()
    line = RecordingIndex.line

    def counted(index: RecordingIndex, number: int) -> bytes:
        reads[id(index), number] += 1
        return line(index, number)

    monkeypatch.setattr(RecordingIndex, "line", counted)
    for pair in diff.rows:
        diff.compare_answer(pair)
    event_lines = {
        (id(index), n)
        for index in diff.indexes.values()
        for span in index.calls
        for n in span.event_lines
    }
    assert event_lines and all(reads[key] == 1 for key in event_lines)
    library = [call_stats(call) for call in read_recording(a).calls]
    shown = [pair.stats_a for pair in diff.rows if pair.a is not None]
    assert [s.first_token_ms for s in shown if s] == [s.first_token_ms for s in library]
    assert [s.duration_ms for s in shown if s] == [s.duration_ms for s in library]


def test_the_view_goes_to_the_first_difference_until_the_user_moves_and_n_walks_them() -> None:
    from openprogram.providers.recording.differences import FieldDifference
    from openprogram.providers.recording.rules import RuledDifference
    from tui.model.diff_text import first_to_show, next_changed

    changed = (RuledDifference(FieldDifference(("model",), "a", "b", "changed"), None),)
    rows = [DiffRow(0, 0), DiffRow(1, 1, changed), DiffRow(2, 2), DiffRow(3, 3, changed)]
    assert first_to_show(rows, -1, user_moved=False) == 1
    assert first_to_show(rows, 0, user_moved=True) is None  # the user's row stays
    assert first_to_show(rows[:1], -1, user_moved=False) == 0  # nothing differs: the first row
    assert first_to_show(rows[:1], 0, user_moved=False) is None
    assert first_to_show([DiffRow(0, None)], -1, user_moved=False) == 0  # only in A differs
    assert [next_changed(rows, 1, 1), next_changed(rows, 3, 1)] == [3, None]
    assert [next_changed(rows, 2, -1), next_changed(rows, 1, -1)] == [1, None]


def test_a_throttle_tells_at_most_once_per_interval() -> None:
    from tui.model.recording_index import Throttle

    never = Throttle(3600.0)
    assert not never.due() and not never.due()
    always = Throttle(0.0)
    assert always.due() and always.due()
    progress = Throttle(3600.0, first_due=True)  # a progress bar is shown at once, then paced
    assert progress.due() and not progress.due()
