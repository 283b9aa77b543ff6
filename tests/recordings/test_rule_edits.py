"""Adding a rule where it lives: the edited pyproject keeps its comments, the recording its rows."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.rules import IgnoreRule, NormalizeRule
from openprogram.providers.recording.rules_sources import rules_from_pyproject
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.replay import ReplayMismatch, ReplayProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.stream import drain
from openprogram.recordings.rule_edits import (
    RuleEditError,
    add_rule_to_header,
    add_rule_to_pyproject,
    project_rules_file,
)

MODEL = Model(id="m", api="scripted", provider="scripted")
PYPROJECT = """\
# The project's own settings; keep this comment.
[project]
name = "agent"   # inline comment

[tool.ruff]
line-length = 100
"""


def context(day: str) -> Context:
    return Context(
        system_prompt=f"Today is {day}.", messages=[UserMessage(content="hi", timestamp=1)]
    )


def record(path: Path) -> Path:
    sink = RecordingSink(path, None)
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text="ok")]]), sink)
    asyncio.run(drain(recorder.stream(MODEL, context("2026-12-01"))))
    recorder.sink.close()
    return path


def replay(path: Path, day: str) -> None:
    asyncio.run(drain(ReplayProvider(path).stream(MODEL, context(day))))


def test_pyproject_edit_keeps_comments_and_layout_and_is_read_back(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    path.chmod(0o640)
    add_rule_to_pyproject(path, IgnoreRule(path="options.metadata.request_id"))
    date = NormalizeRule(path="context.system_prompt", preset="iso-datetime")
    add_rule_to_pyproject(path, date)
    add_rule_to_pyproject(path, date)  # already there: not added twice
    text = path.read_text()
    assert text.startswith(PYPROJECT)  # every byte the user wrote is still there
    assert "[tool.openprogram.replay]" in text
    rules = rules_from_pyproject(path)
    assert [rule.describe() for rule in rules.all()] == [
        "ignore options.metadata.request_id",
        "normalize context.system_prompt iso-datetime",
    ]
    assert path.stat().st_mode & 0o777 == 0o640


def test_pyproject_with_a_broken_rules_table_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    broken = '[tool.openprogram.replay]\nignore = "options.metadata"\n'
    path.write_text(broken)
    with pytest.raises(RuleEditError, match=r"pyproject.toml: tool.openprogram.replay.ignore"):
        add_rule_to_pyproject(path, IgnoreRule(path="options.metadata.request_id"))
    assert path.read_text() == broken


def test_a_rule_that_can_never_match_is_refused_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    with pytest.raises(Exception, match="can never match"):
        add_rule_to_pyproject(path, IgnoreRule(path="context.mesages"))
    assert not path.exists()


def test_project_rules_file_is_the_one_replay_reads_or_the_nearest(tmp_path: Path) -> None:
    nested = tmp_path / "pkg" / "sub"
    nested.mkdir(parents=True)
    assert project_rules_file(nested) == nested / "pyproject.toml"  # none yet: a new one here
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    assert project_rules_file(nested) == tmp_path / "pyproject.toml"
    (tmp_path / "pkg" / "pyproject.toml").write_text("[tool.openprogram.replay]\nignore = []\n")
    assert project_rules_file(nested) == tmp_path / "pkg" / "pyproject.toml"


def test_header_rule_turns_a_mismatch_into_ok_and_keeps_every_other_row(tmp_path: Path) -> None:
    path = record(tmp_path / "r.jsonl")
    os.chmod(path, 0o600)
    with pytest.raises(ReplayMismatch):
        replay(path, "2026-12-02")
    rows_before = path.read_bytes().splitlines(keepends=True)
    rules = add_rule_to_header(
        path, NormalizeRule(path="context.system_prompt", preset="iso-datetime")
    )
    assert [rule.source for rule in rules.all()] == ["recording header"]
    rows_after = path.read_bytes().splitlines(keepends=True)
    assert rows_after[1:] == rows_before[1:]
    assert b'"rules":{"normalize":[{"path":"context.system_prompt"' in rows_after[0]
    assert path.stat().st_mode & 0o777 == 0o600
    replay(path, "2026-12-02")  # no mismatch now


def test_header_edit_of_a_file_that_is_not_a_recording_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(RuleEditError, match=r"notes.jsonl.*line 1.*not a header"):
        add_rule_to_header(path, IgnoreRule(path="options.metadata.request_id"))
    assert path.read_text() == '{"hello": 1}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.jsonl"]
