"""Call rows: model, event count and outcome per call, parsed on demand; verdict marks."""

from __future__ import annotations

from pathlib import Path

from tests.tui.tui_rows import call_rows, header, request, write_rows
from tui.model.call_rows import DAMAGED, PENDING, UNFINISHED, CallTable
from tui.model.recording_index import RecordingIndex
from tui.model.verdict import check_file


def table_of(path: Path, judged: bool = True) -> CallTable:
    """The call table of `path`, with the strict reader's verdict applied (unless `judged` is off)."""
    index = RecordingIndex.open(path)
    index.build()
    table = CallTable(index)
    if judged:
        table.set_verdict(check_file(path))
    return table


def test_demo_rows_read_like_the_issue(demo_file: Path) -> None:
    table = table_of(demo_file)
    rows = [table.summary(n) for n in range(table.count)]
    assert [r.outcome for r in rows] == ["complete"] * 4 + ["error"]
    assert rows[0].text() == "#0  scripted/echo-1  31 ev  complete"
    assert rows[4].failed and not rows[0].failed
    assert rows[4].error == "ConnectionResetError: the upstream closed the stream mid-answer"


def test_index_width_aligns_numbers(tmp_path: Path) -> None:
    rows = [header()]
    for n in range(12):
        rows += call_rows(n, ["x"])
    table = table_of(write_rows(tmp_path / "r.jsonl", rows))
    assert table.index_width == 2
    assert table.summary(3).text(table.index_width).startswith("#3   openai/gpt-4o-mini")


def test_unfinished_call_is_named_and_verdict_marks_damage(damaged_file: Path) -> None:
    table = table_of(damaged_file, judged=False)
    assert table.summary(table.count - 1).outcome == UNFINISHED
    table.set_verdict(check_file(damaged_file))
    assert table.summary(table.count - 1).outcome == UNFINISHED
    assert [table.summary(n).outcome for n in range(table.count - 1)] == ["complete"] * 3


def test_rows_of_a_call_still_indexing_are_pending(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "r.jsonl", [header(), request(0)])
    index = RecordingIndex.open(path)
    index.build()
    index.complete = False  # as seen mid-build
    table = CallTable(index)
    assert table.summary(0).outcome == PENDING
    index.complete = True
    assert table.summary(0).outcome == UNFINISHED


def test_unreadable_request_makes_the_call_damaged(tmp_path: Path) -> None:
    rows = call_rows(0, ["x"])
    rows[0] = rows[0].replace(b'"context":{', b'"context":[', 1)
    table = table_of(write_rows(tmp_path / "r.jsonl", [header(), *rows]))
    summary = table.summary(0)
    assert summary.outcome == DAMAGED
    assert summary.model_label == "?/?"
    assert summary.error is not None  # the strict reader's reason, not the list's guess
    assert summary.error.startswith("line 2: line is not valid JSON")


def test_rows_of_a_valid_file_are_the_same_before_and_after_the_verdict(demo_file: Path) -> None:
    shown, judged = table_of(demo_file, judged=False), table_of(demo_file)
    rows = range(judged.count)
    assert [shown.summary(n) for n in rows] == [judged.summary(n) for n in rows]


def test_the_verdict_names_a_request_the_list_could_only_show(tmp_path: Path) -> None:
    rows = call_rows(0, ["x"])
    rows[0] = rows[0].replace(b'"call_index":0', b'"call_index":"zero"', 1)
    path = write_rows(tmp_path / "r.jsonl", [header(), *rows])
    first = table_of(path, judged=False)
    assert first.summary(0).model_label == "openai/gpt-4o-mini"  # shown at once, judged later
    table = table_of(path)
    summary = table.summary(0)
    assert summary.outcome == DAMAGED
    assert summary.error is not None
    assert summary.error.startswith("line 2: request row field call_index: Input should be")


def test_rows_that_are_not_json_are_damaged_before_the_row_models_exist(tmp_path: Path) -> None:
    rows = call_rows(0, ["x"])
    rows[-1] = rows[-1].replace(b'"outcome":', b'"out\xffcome":', 1)  # not UTF-8; the tail intact
    table = table_of(write_rows(tmp_path / "r.jsonl", [header(), *rows]), judged=False)
    summary = table.summary(0)
    assert summary.outcome == DAMAGED
    assert summary.error == f"line {len(rows) + 1}: call_end row cannot be read"


def test_models_found_through_references_are_the_strict_readers(tmp_path: Path) -> None:
    """The list finds a referring call's model by following its references, as the strict reader
    does: a row that says "model" only inside a message, or spells the key with an escape,
    agrees with it."""
    from openprogram.providers.recording.reader import read_recording
    from openprogram.providers.recording.row_encoding import encode_row

    other = {"api": "anthropic-messages", "provider": "anthropic", "id": "claude-x"}

    def referring(n: int, content: object, model: dict | None = None) -> bytes:
        row: dict = {
            "type": "request",
            "call_index": n,
            "base": n - 1,
            "keep": n,
            "context": {"messages": [{"role": "user", "content": content}]},
        }
        if model is not None:
            row["model"] = model
        return encode_row(row)

    def whole(n: int, line: bytes) -> list[bytes]:
        return [line, *call_rows(n, ["ok"])[1:]]

    rows = [header(), *call_rows(0, ["ok"])]
    rows += whole(1, referring(1, "plain"))
    rows += whole(2, referring(2, [{"type": "text", "text": 'a "model" in text'}]))
    rows += whole(3, referring(3, "x", other).replace(b'"model":', b'"mod\\u0065l":'))
    rows += whole(4, referring(4, "follows the escaped one"))
    path = write_rows(tmp_path / "r.jsonl", rows)
    strict = read_recording(path)
    for call in reversed(strict.calls):  # each from a fresh table: the walk, not the memo
        model = call.model
        label = table_of(path).summary(call.call_index).model_label
        assert label == f"{model['provider']}/{model['id']}"
    assert strict.calls[4].model["id"] == "claude-x"
