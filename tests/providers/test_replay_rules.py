"""Replay with matching rules: values that change by themselves stop mismatching, real changes do not."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.check_protocol import AbsorbedRow, ReportRow
from openprogram.providers.recording.rules import (
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    RuleSuggestion,
)
from openprogram.providers.recording.rules_sources import header_rules_value, project_rules
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.replay import ReplayMismatch, ReplayProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.stream import drain

MODEL = Model(id="m", api="scripted", provider="scripted")


def context(day: str, path: str = "/tmp/pytest-of-ana/pytest-1/x", said: str = "hi") -> Context:
    prompt = f"Today is {day}. Files go in {path}."
    return Context(system_prompt=prompt, messages=[UserMessage(content=said, timestamp=1)])


def record(path: Path, header_rules: MatchingRules | None = None) -> Path:
    header = {"rules": header_rules_value(header_rules)} if header_rules is not None else None
    sink = RecordingSink(path, header)
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text="ok")]]), sink)
    asyncio.run(drain(recorder.stream(MODEL, context("2026-12-01"))))
    recorder.sink.close()
    return path


def replay(provider: ReplayProvider, ctx: Context) -> None:
    asyncio.run(drain(provider.stream(MODEL, ctx)))


DATE = NormalizeRule(path="context.system_prompt", preset="iso-datetime")
TMP = NormalizeRule(path="context.system_prompt", preset="tmp-path")


def test_without_rules_tomorrow_mismatches_and_suggests_the_rule(tmp_path: Path) -> None:
    provider = ReplayProvider(record(tmp_path / "r.jsonl"))
    with pytest.raises(ReplayMismatch) as caught:
        replay(provider, context("2026-12-02"))
    assert caught.value.report.suggestion == RuleSuggestion(
        path="context.system_prompt", presets=("iso-datetime",)
    )
    assert "the rule `normalize context.system_prompt iso-datetime` would absorb it" in str(
        caught.value
    )


def test_caller_rules_absorb_the_date_and_report_it(tmp_path: Path) -> None:
    reports: list[ReportRow] = []
    provider = ReplayProvider(
        record(tmp_path / "r.jsonl"),
        rules=MatchingRules(normalize=(DATE,)),
        on_report=reports.append,
    )
    replay(provider, context("2026-12-02"))
    assert provider.call_count == 1
    absorbed = [row.absorbed for row in reports if isinstance(row, AbsorbedRow)]
    assert [(a.call_index, a.field_path, a.rule, a.source) for a in absorbed] == [
        (0, "context.system_prompt", "normalize context.system_prompt iso-datetime", "caller")
    ]
    assert absorbed[0].absorbed_by == DATE


def test_a_real_change_still_mismatches_and_names_no_absorbed_field(tmp_path: Path) -> None:
    rules = MatchingRules(normalize=(DATE,), ignore=(IgnoreRule(path="context.system_prompt"),))
    reports: list[ReportRow] = []
    provider = ReplayProvider(record(tmp_path / "r.jsonl"), rules=rules, on_report=reports.append)
    with pytest.raises(ReplayMismatch) as caught:
        replay(provider, context("2026-12-02", said="bye"))
    assert caught.value.field_path == "context.messages[0].content"
    # What the rules absorbed in the call that mismatches is told too (the TUI dims it).
    absorbed = [row.absorbed for row in reports if isinstance(row, AbsorbedRow)]
    assert [(row.field_path, row.rule) for row in absorbed] == [
        ("context.system_prompt", "ignore context.system_prompt")
    ]


def test_header_rules_apply_and_merge_after_pyproject_before_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.openprogram.replay]\nignore = ["options.metadata.request_id"]\n'
    )
    monkeypatch.chdir(project)
    path = record(tmp_path / "r.jsonl", header_rules=MatchingRules(normalize=(TMP,)))
    provider = ReplayProvider(
        path, project_rules=project_rules(), rules=MatchingRules(normalize=(DATE,))
    )
    assert [(r.describe(), r.source) for r in provider.rules.all()] == [
        ("ignore options.metadata.request_id", str(project / "pyproject.toml")),
        ("normalize context.system_prompt tmp-path", "recording header"),
        ("normalize context.system_prompt iso-datetime", "caller"),
    ]
    replay(provider, context("2026-12-02", path="/tmp/pytest-of-ana/pytest-2/x"))
    assert provider.call_count == 1
    # Built by hand it reads nothing: the project's rules are the caller's to read and pass.
    by_hand = ReplayProvider(path)
    assert [r.source for r in by_hand.rules.all()] == ["recording header"]


def test_the_file_keeps_the_original_values(tmp_path: Path) -> None:
    path = record(tmp_path / "r.jsonl")
    replay(ReplayProvider(path, rules=MatchingRules(normalize=(DATE,))), context("2026-12-02"))
    request = json.loads(path.read_text().splitlines()[1])
    assert "2026-12-01" in request["context"]["system_prompt"]
