"""The call list's numbers, sort and filter (issue #30), without Textual."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from openprogram.providers.recording.writer import RecordingSink
from tests.tui.timed_session import SLOW_SECONDS, record_timed_session
from tui.model.call_columns import (
    NOT_RECORDED,
    cell_text,
    columns_for,
    format_cost_short,
    format_ms,
    format_tokens,
)
from tui.model.call_numbers import CallNumbers
from tui.model.call_order import CallFilter, CallOrder, FilterError, SortKey, order_calls
from tui.model.call_rows import CallTable
from tui.model.recording_index import RecordingIndex


def opened(path: Path) -> tuple[CallTable, CallNumbers]:
    index = RecordingIndex.open(path)
    index.build()
    return CallTable(index), CallNumbers(index)


def test_each_call_has_the_librarys_numbers_and_the_slow_one_sorts_first(tmp_path: Path) -> None:
    table, numbers = opened(record_timed_session(tmp_path / "s.jsonl", calls=12, slow_call=7))
    assert not numbers.known(0) and numbers.get(0) is None  # nothing read before it is asked
    assert numbers.compute_all()
    slow = numbers.get(7)
    assert slow is not None and slow.duration_ms is not None
    assert slow.duration_ms >= SLOW_SECONDS * 1000
    assert numbers.get(0) is not None and numbers.get(0).gap_after_ms == 510  # type: ignore[union-attr]
    assert numbers.get(11) is not None and numbers.get(11).gap_after_ms is None  # type: ignore[union-attr]
    by_duration = order_calls(12, CallOrder(SortKey.DURATION), table.summary, numbers.get)
    assert by_duration[0] == 7 and sorted(by_duration) == list(range(12))
    ascending = CallOrder(SortKey.DURATION, descending=False)
    assert order_calls(12, ascending, table.summary, numbers.get)[-1] == 7
    slower = CallOrder(filter=CallFilter.parse("slower:10"))
    assert list(order_calls(12, slower, table.summary, numbers.get)) == [7]
    session = numbers.session()
    assert session is not None and session.calls == 12 and session.model_ms is not None


class CountingIndex(RecordingIndex):
    """A recording index that counts how often each line is read (counted, not timed)."""

    reads: Counter[int]

    def line(self, number: int) -> bytes:
        self.reads[number] += 1
        return super().line(number)


def test_sorting_by_a_number_reads_each_row_of_every_call_once(tmp_path: Path) -> None:
    # Sorting by a number reads every call (issue #39): a call's gap needs the next call's start,
    # which the next call's own read parses anyway; reading that row a second time (as plain JSON)
    # was a third of a sort's time on a 1,000-call session. Its numbers and its prompt-cache facts
    # fold one reading of its events (they were read and folded twice, and its `call_end` read
    # twice), and the sort itself, with no filter, reads no list row (each was parsed again).
    index = CountingIndex.open(record_timed_session(tmp_path / "s.jsonl", calls=12, slow_call=7))
    index.build()
    index.reads = Counter()
    numbers = CallNumbers(index)
    assert numbers.compute_all()
    assert numbers.get(0) is not None and numbers.get(0).gap_after_ms == 510  # type: ignore[union-attr]
    order_calls(12, CallOrder(SortKey.COST), CallTable(index).summary, numbers.get)
    lines = [line for span in index.calls for line in span.iter_lines()]
    assert len(lines) > 3 * 12
    assert {line: index.reads[line] for line in lines} == dict.fromkeys(lines, 1)


def test_a_call_without_times_shows_a_dash_never_zero_and_sorts_last(tmp_path: Path) -> None:
    recorded = record_timed_session(tmp_path / "s.jsonl", calls=2, slow_call=5)
    lines = recorded.read_text().splitlines()
    untimed_rows = []
    for number, line in enumerate(lines):  # call 0 as a migrated file has it: no times
        row = json.loads(line)
        if row.get("call_index") == 0:
            for key in ("ms", "duration_ms", "start_ms"):
                row.pop(key, None)
        untimed_rows.append(json.dumps(row, sort_keys=True) if number else line)
    recorded.write_text("\n".join(untimed_rows) + "\n")
    table, numbers = opened(recorded)
    numbers.compute_all()
    untimed = numbers.get(0)
    assert untimed is not None and untimed.usage is not None
    assert (untimed.duration_ms, untimed.first_token_ms, untimed.gap_after_ms) == (None, None, None)
    took = columns_for(100)[0]
    assert cell_text(took, untimed, known=True) == NOT_RECORDED
    assert cell_text(took, None, known=False) == "…"  # not read yet
    assert list(order_calls(2, CallOrder(SortKey.DURATION), table.summary, numbers.get)) == [1, 0]


def test_a_stream_that_cannot_be_folded_has_no_numbers(tmp_path: Path) -> None:
    sink = RecordingSink(tmp_path / "r.jsonl")
    call = sink.begin_call({"model": {}, "context": {}, "options": None})
    sink.write_event(call, 0, {"type": "text_start", "content_index": 0})  # no start event
    sink.end_call(call, 1, "complete")
    sink.close()
    _, numbers = opened(tmp_path / "r.jsonl")
    assert numbers.compute(0) is None and numbers.known(0)  # `?` in the row, not a crash


def test_filters_read_and_refuse() -> None:
    wanted = CallFilter.parse("outcome:error model:gpt slower:2.5 tokens:1000")
    assert wanted == CallFilter("error", "gpt", 2500, 1000)
    assert CallFilter.parse(wanted.text()) == wanted
    assert CallFilter.parse("gpt") == CallFilter(model="gpt")
    assert not CallFilter.parse("").active
    with pytest.raises(FilterError, match="slower:fast"):
        CallFilter.parse("slower:fast")
    with pytest.raises(FilterError, match="colour:red"):
        CallFilter.parse("colour:red")


def test_columns_fold_to_the_width_and_numbers_read_short() -> None:
    assert [c.name for c in columns_for(6)] == ["duration"]
    assert [c.name for c in columns_for(40)][:3] == ["duration", "in_out", "first_token"]
    wide = [c.name for c in columns_for(120)]
    assert "in_out" not in wide and {"input", "output", "cache_read", "reasoning"} <= set(wide)
    assert (format_ms(None), format_ms(230), format_ms(4200), format_ms(125_000)) == (
        "–",
        "230ms",
        "4.2s",
        "2m05",
    )
    assert (format_tokens(840), format_tokens(12_345), format_tokens(1_234_567)) == (
        "840",
        "12k",
        "1.2M",
    )
    assert format_cost_short(None) == ""  # an unknown price: no cost, never a wrong one
    assert format_cost_short(Decimal("0.0123")) == "$0.012"
