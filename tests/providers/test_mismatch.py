"""`ReplayMismatch` holds one frozen `MismatchReport`; its message keeps every field to one bounded line."""

from __future__ import annotations

import asyncio
import pickle
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import Context, Model, StreamOptions, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.check_protocol import MismatchRow, ReportRow
from openprogram.providers.recording.differences import MISSING
from openprogram.providers.recording.rules import RuleSuggestion
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.replay import MismatchReport, ReplayMismatch, ReplayProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.stream import drain

MODEL = Model(id="m", api="scripted", provider="scripted")
CONTEXT = Context(system_prompt="be brief", messages=[UserMessage(content="hi", timestamp=1)])


def record(path: Path, metadata: dict[str, Any]) -> Path:
    sink = RecordingSink(path)
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text="ok")]]), sink)
    asyncio.run(drain(recorder.stream(MODEL, CONTEXT, StreamOptions(metadata=metadata))))
    recorder.sink.close()
    return path


def mismatch_of(provider: ReplayProvider, metadata: dict[str, Any]) -> ReplayMismatch:
    with pytest.raises(ReplayMismatch) as caught:
        asyncio.run(drain(provider.stream(MODEL, CONTEXT, StreamOptions(metadata=metadata))))
    return caught.value


def test_the_exception_is_its_report_and_raising_it_rebuilds_nothing(tmp_path: Path) -> None:
    reports: list[ReportRow] = []
    provider = ReplayProvider(
        record(tmp_path / "r.jsonl", {"day": "2026-12-01"}),
        on_report=reports.append,
    )
    mismatch = mismatch_of(provider, {"day": "2026-12-02"})

    report = mismatch.report
    assert (mismatch.kind, mismatch.call_index, mismatch.event_index) == ("request", 0, None)
    assert (mismatch.field_path, mismatch.recorded, mismatch.incoming) == (
        "options.metadata.day",
        "2026-12-01",
        "2026-12-02",
    )
    assert str(mismatch) == report.message and report.suggestion is not None
    # One value: the row told to the report callback is that report, the provider keeps the very
    # exception it raised (the pytest plugin reads it there), and nothing can be changed.
    assert [row.mismatch for row in reports if isinstance(row, MismatchRow)] == [report]
    assert provider.mismatches == [mismatch] and provider.mismatches[0] is mismatch
    with pytest.raises(AttributeError):
        mismatch.field_path = "model.id"  # type: ignore[misc]
    with pytest.raises(ValueError, match="frozen"):
        report.call_index = 3
    assert pickle.loads(pickle.dumps(mismatch)).report == report


def test_a_report_read_back_makes_the_same_exception_without_a_second_suggestion() -> None:
    """A child process's report becomes the exception as it is: message and suggestion kept."""
    written = MismatchReport(
        kind="request",
        call_index=1,
        field_path="context.system_prompt",
        path_tokens=["context", "system_prompt"],
        difference_kind="changed",
        recorded="Today is 2026-12-01.",
        incoming="Today is 2026-12-02.",
        message="replay mismatch at call 1, field context.system_prompt:\nas the child wrote it",
    )
    mismatch = ReplayMismatch(MismatchReport.model_validate_json(written.model_dump_json()))
    assert mismatch.report == written
    assert str(mismatch) == written.message and mismatch.report.suggestion is None
    assert mismatch.recorded == "Today is 2026-12-01."


def test_a_suggestion_crosses_the_process_boundary_typed_and_reads_as_one_line() -> None:
    """The child writes the suggested rule as its path and presets; the parent reads them back
    as they were (nothing parses the line), and users' JSON shows the one line."""
    suggestion = RuleSuggestion(path="context.system_prompt", presets=("iso-datetime", "uuid"))
    written = MismatchReport(
        kind="request",
        call_index=0,
        field_path="context.system_prompt",
        message="replay mismatch at call 0, field context.system_prompt:\nchanged",
        suggestion=suggestion,
    )
    read = MismatchReport.model_validate_json(written.model_dump_json())
    assert read.suggestion == suggestion
    assert read.json_value()["suggestion"] == "normalize context.system_prompt iso-datetime, uuid"
    assert written.model_copy(update={"suggestion": None}).json_value()["suggestion"] is None


def test_a_field_on_one_side_only_reads_as_missing_on_the_other(tmp_path: Path) -> None:
    provider = ReplayProvider(record(tmp_path / "r.jsonl", {}))
    mismatch = mismatch_of(provider, {"new": 1})
    assert (mismatch.recorded, mismatch.incoming) == (MISSING, 1)
    assert not mismatch.report.recorded_present


def test_a_long_field_path_with_control_characters_is_escaped_and_cut(tmp_path: Path) -> None:
    """Issue #28 item 15: a 5,000-character key gave a 5,190-character message with raw escapes."""
    key = "\x1b[2J\n\u202e" + "k" * 5000
    provider = ReplayProvider(record(tmp_path / "r.jsonl", {}))
    mismatch = mismatch_of(provider, {key: 1})

    where, values = str(mismatch).split("\n")
    assert where.startswith('replay mismatch at call 0, field options.metadata["\\x1b[2J\\n\\u202e')
    assert where.endswith("… (5035 characters):") and len(where) < 300  # as escaped
    assert values == "recorded <missing>, incoming 1"
    assert all(c.isprintable() for c in where + values)
    # The path itself stays whole and exact where a program reads it.
    assert mismatch.field_path == f'options.metadata["{key}"]'
    assert mismatch.report.path_tokens == ["options", "metadata", key]


def test_a_plain_field_path_reads_as_before(tmp_path: Path) -> None:
    provider = ReplayProvider(record(tmp_path / "r.jsonl", {"it's": "a"}))
    mismatch = mismatch_of(provider, {"it's": "b"})
    assert str(mismatch) == (
        "replay mismatch at call 0, field options.metadata[\"it's\"]:\nrecorded 'a', incoming 'b'"
    )


def test_a_cut_string_says_how_many_characters_the_string_has() -> None:
    from openprogram.providers.recording.difference_text import format_value

    shown = format_value("x" * 91, limit=40)
    assert shown.endswith("(91 characters)")  # not 93: the quotes are not the string's
