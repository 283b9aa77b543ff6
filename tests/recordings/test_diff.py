"""Two recordings compared call by call: alignment, request and answer differences, the summary."""

from __future__ import annotations

import json
from pathlib import Path

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.rules import IgnoreRule, MatchingRules
from openprogram.providers.scripted import ScriptedProvider, ScriptStep, TextStep, ToolCallStep
from openprogram.providers.stream import drain
from openprogram.recordings.diff import diff_recordings
from openprogram.word_diff import word_diff

Call = tuple[str, list[ScriptStep]]  # what the user says, what the model answers


async def record(path: Path, calls: list[Call], model_id: str = "echo-1", meta: str = "a") -> Path:
    """A real recording: each call through RecordingProvider over the scripted provider."""
    scripted = ScriptedProvider([steps for _, steps in calls])
    recorder = RecordingProvider(scripted, path)
    model = Model(id=model_id, name=model_id, api="scripted", provider="scripted")
    for said, _ in calls:
        context = Context(system_prompt="Be brief.", messages=[UserMessage(content=said)])
        await drain(recorder.stream(model, context, None))
    recorder.sink.close()
    return path


def text(answer: str) -> list[ScriptStep]:
    return [TextStep(text=answer)]


BASE: list[Call] = [("one", text("first")), ("two", text("second")), ("three", text("third"))]


async def test_identical_recordings_are_all_same(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", BASE)
    diff = diff_recordings(a, b)
    assert diff.identical and diff.aligned_by == "index"
    summary = diff.summary()
    assert (summary.same, summary.request_changed, summary.answer_changed) == (3, 0, 0)
    assert summary.tokens_a == summary.tokens_b and summary.tokens_a.output > 0


async def test_an_inserted_call_is_only_in_b_and_shifts_nothing(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", [BASE[0], ("extra", text("new")), *BASE[1:]])
    diff = diff_recordings(a, b)
    assert diff.aligned_by == "signature"
    assert [p.status for p in diff.pairs] == ["same", "only_b", "same", "same"]


async def test_a_removed_call_is_only_in_a(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", [BASE[0], BASE[2]])
    assert [p.status for p in diff_recordings(a, b).pairs] == ["same", "only_a", "same"]


async def test_a_reordered_pair_shows_as_moved_not_as_two_changes(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", [BASE[1], BASE[0], BASE[2]])
    statuses = [p.status for p in diff_recordings(a, b).pairs]
    assert sorted(statuses) == ["only_a", "only_b", "same", "same"]


async def test_another_model_changes_every_call(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", BASE, model_id="echo-2")
    diff = diff_recordings(a, b)
    assert diff.aligned_by == "index"
    assert {p.status for p in diff.pairs} == {"request_changed"}
    assert all(
        [d.field_path for d in p.counting_request_differences] == ["model.id", "model.name"]
        for p in diff.pairs
    )


async def test_an_answer_only_change_names_the_tool_argument(tmp_path: Path) -> None:
    call_a: Call = ("go", [ToolCallStep(name="search", arguments={"q": "cats", "n": 3})])
    call_b: Call = ("go", [ToolCallStep(name="search", arguments={"q": "dogs", "n": 3})])
    diff = diff_recordings(
        await record(tmp_path / "a.jsonl", [call_a]), await record(tmp_path / "b.jsonl", [call_b])
    )
    (pair,) = diff.pairs
    assert pair.status == "answer_changed" and pair.request == ()
    (difference,) = pair.answer.tool_calls
    assert (difference.field_path, difference.recorded, difference.incoming) == (
        "tool_calls[0].arguments.q",
        "cats",
        "dogs",
    )


async def test_usage_is_kept_per_side_with_totals(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", [("hi", text("short"))])
    b = await record(tmp_path / "b.jsonl", [("hi", text("a much longer answer than before"))])
    diff = diff_recordings(a, b)
    (pair,) = diff.pairs
    assert pair.usage_a is not None and pair.usage_b is not None
    assert pair.usage_b.output > pair.usage_a.output
    assert diff.summary().tokens_b.output == pair.usage_b.output
    assert [c.op for c in pair.answer.text if c.op != "equal"] == ["delete", "insert"]


async def test_rules_mark_absorbed_request_differences(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", BASE, model_id="echo-2")
    rules = MatchingRules(ignore=(IgnoreRule(path="model"),))
    diff = diff_recordings(a, b, rules)
    assert diff.identical
    assert all(d.absorbed_by == rules.ignore[0] for p in diff.pairs for d in p.request)


def test_word_diff_keeps_whitespace_and_marks_runs() -> None:
    changes = word_diff("the cat sat", "the dog sat")
    assert "".join(c.text for c in changes if c.op != "insert") == "the cat sat"
    assert "".join(c.text for c in changes if c.op != "delete") == "the dog sat"
    assert [(c.op, c.text) for c in changes if c.op != "equal"] == [
        ("delete", "cat"),
        ("insert", "dog"),
    ]
    assert word_diff("same", "same") == ()


async def test_calls_that_overlapped_are_paired_in_call_order(tmp_path: Path) -> None:
    """The reader hands a call over when it ends: call 0 ending after call 1 is still call 0."""
    a = await record(tmp_path / "a.jsonl", BASE)
    rows = [json.loads(line) for line in a.read_text().splitlines()]
    first_end = [r for r in rows if r.get("call_index") == 0 and r["type"] != "request"]
    reordered = [r for r in rows if r not in first_end] + first_end
    b = tmp_path / "b.jsonl"
    b.write_text(
        "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in reordered)
    )
    diff = diff_recordings(a, b)
    assert diff.identical and diff.aligned_by == "index"
    assert [(p.a.call_index, p.b.call_index) for p in diff.pairs if p.a and p.b] == [
        (0, 0),
        (1, 1),
        (2, 2),
    ]
