"""List differences aligned: an inserted or removed item is one difference, not a cascade."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.differences import (
    MAX_ALIGNED_ITEMS,
    MISSING,
    iter_differences,
    iter_request_differences,
)
from openprogram.providers.recording.rules import (
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    iter_ruled_differences,
)
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.replay import MismatchReport, ReplayMismatch, ReplayProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.stream import drain

MODEL = Model(id="m", api="scripted", provider="scripted")


def said(*texts: str) -> Context:
    return Context(
        system_prompt="be brief",
        messages=[UserMessage(content=text, timestamp=n) for n, text in enumerate(texts)],
    )


def _at(document: Any, tokens: tuple[str | int, ...]) -> Any:
    for token in tokens:
        document = document[token]
    return document


def record(path: Path, context: Context) -> Path:
    sink = RecordingSink(path)
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text="ok")]]), sink)
    asyncio.run(drain(recorder.stream(MODEL, context)))
    recorder.sink.close()
    return path


def replay_mismatch(recording: Path, context: Context, **options: Any) -> ReplayMismatch:
    provider = ReplayProvider(recording, **options)
    with pytest.raises(ReplayMismatch) as caught:
        asyncio.run(drain(provider.stream(MODEL, context)))
    return caught.value


def test_a_message_inserted_at_the_start_is_one_inserted_difference(tmp_path: Path) -> None:
    recording = record(tmp_path / "r.jsonl", said("plan the trip", "book the train", "thanks"))
    mismatch = replay_mismatch(
        recording, said("you are in Lyon", "plan the trip", "book the train", "thanks")
    )

    assert mismatch.field_path == "context.messages[0]"
    assert mismatch.report.difference_kind == "inserted"
    assert "inserted" in str(mismatch) and '"you are in Lyon"' in str(mismatch)
    assert mismatch.recorded is MISSING
    report = mismatch.report
    assert report.difference_kind == "inserted" and not report.recorded_present
    assert ReplayMismatch(report).report.difference_kind == "inserted"
    # Every later message is compared with its own counterpart: nothing else differs.
    assert report.recorded_request is not None and report.incoming_request is not None
    differences = list(iter_request_differences(report.recorded_request, report.incoming_request))
    assert [(d.field_path, d.kind) for d in differences] == [("context.messages[0]", "inserted")]
    assert MismatchReport.model_validate_json(report.model_dump_json()) == report


def test_a_removed_message_is_one_removed_difference(tmp_path: Path) -> None:
    recording = record(tmp_path / "r.jsonl", said("plan the trip", "book the train", "thanks"))
    mismatch = replay_mismatch(recording, said("plan the trip", "thanks"))

    assert (mismatch.field_path, mismatch.report.difference_kind) == (
        "context.messages[1]",
        "removed",
    )
    assert "removed the recorded" in str(mismatch) and '"book the train"' in str(mismatch)
    assert mismatch.incoming is MISSING


def test_after_an_insertion_a_changed_item_is_compared_with_its_counterpart() -> None:
    recorded = [{"role": "system", "text": "Today is 2026-12-01"}, {"role": "user", "text": "hi"}]
    incoming = [
        {"role": "user", "text": "new first"},
        {"role": "system", "text": "Today is 2026-12-02"},
        {"role": "user", "text": "hi"},
    ]
    inserted, changed = iter_differences(recorded, incoming, ("messages",))

    assert (inserted.path_tokens, inserted.kind) == (("messages", 0), "inserted")
    assert inserted.recorded_path_tokens == ("messages",)  # the list that lacks it
    assert changed.kind == "changed"
    assert changed.path_tokens == ("messages", 1, "text")
    assert changed.recorded_path_tokens == ("messages", 0, "text")
    assert _at({"messages": recorded}, changed.recorded_path_tokens) == changed.recorded
    assert _at({"messages": incoming}, changed.incoming_path_tokens) == changed.incoming


def test_a_reordered_pair_or_a_moved_item_is_removed_and_inserted() -> None:
    swapped = list(iter_differences(["a", "b", "c"], ["b", "a", "c"]))
    # One of the two moved: out of its place, and in again at the other (either way is true).
    assert sorted(d.kind for d in swapped) == ["inserted", "removed"]
    assert len({d.recorded if d.kind == "removed" else d.incoming for d in swapped}) == 1

    moved = list(iter_differences(["a", "b", "c", "d"], ["b", "c", "d", "a"]))
    assert [(d.path_tokens, d.kind) for d in moved] == [((0,), "removed"), ((3,), "inserted")]


def test_an_item_appended_at_the_end_is_still_added() -> None:
    (difference,) = iter_differences(["a", "b"], ["a", "b", "c"])
    assert (difference.path_tokens, difference.kind) == ((2,), "added")


def test_a_huge_list_is_compared_index_by_index() -> None:
    items = [f"item {n}" for n in range(MAX_ALIGNED_ITEMS + 1)]
    differences = list(iter_differences(items, ["new", *items]))
    assert differences[0].kind == "changed" and differences[0].path_tokens == (0,)
    assert len(differences) == len(items) + 1
    assert differences[-1].kind == "added"


def test_rules_still_absorb_inserted_and_shifted_differences(tmp_path: Path) -> None:
    recorded = {
        "model": {"id": "m"},
        "context": {"messages": [{"content": "Today is 2026-12-01"}, {"content": "hi"}]},
    }
    incoming = {
        "model": {"id": "m"},
        "context": {
            "messages": [{"id": "x"}, {"content": "Today is 2026-12-02"}, {"content": "hi"}]
        },
    }
    rules = MatchingRules(
        ignore=(IgnoreRule(path="context.messages[0]"),),
        normalize=(NormalizeRule(path="context.messages[*].content", preset="iso-datetime"),),
    )
    ruled = list(iter_ruled_differences(recorded, incoming, rules))
    assert [(r.difference.kind, r.absorbed_by) for r in ruled] == [
        ("inserted", rules.ignore[0]),
        ("changed", rules.normalize[0]),
    ]

    # Through replay: an ignored inserted message lets the call match.
    recording = record(tmp_path / "r.jsonl", said("plan the trip", "thanks"))
    provider = ReplayProvider(
        recording,
        rules=MatchingRules(ignore=(IgnoreRule(path="context.messages[0]"),)),
    )
    asyncio.run(drain(provider.stream(MODEL, said("you are in Lyon", "plan the trip", "thanks"))))
    assert provider.call_count == 1


items = st.lists(st.text(alphabet="abc", min_size=1, max_size=3), max_size=8)


@given(items, st.text(alphabet="xyz", min_size=1, max_size=3), st.integers(0, 8))
def test_one_inserted_item_is_one_difference_wherever_it_is(
    before: list[str], item: str, where: int
) -> None:
    where = min(where, len(before))
    after = [*before[:where], item, *before[where:]]
    (difference,) = iter_differences(before, after)
    assert difference.kind == ("added" if where == len(before) else "inserted")
    assert difference.incoming == item and difference.path_tokens == (where,)
    (back,) = iter_differences(after, before)
    assert back.kind == ("missing" if where == len(before) else "removed")
    assert back.recorded == item and back.path_tokens == (where,)


def test_items_edited_in_place_stay_changed() -> None:
    edited = list(iter_differences(["a", "b", "c"], ["a", "B", "C"]))
    assert [(d.path_tokens, d.kind) for d in edited] == [((1,), "changed"), ((2,), "changed")]
