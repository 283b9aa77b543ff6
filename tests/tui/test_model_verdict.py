"""The strict verdict, in-process and in a child process, with the same answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from openprogram.providers.recording.scan_facts import ScanFacts
from tui.model import verdict as verdict_module
from tui.model.verdict import Verdict, check_file, check_file_isolated, check_recording


def test_valid_and_damaged(demo_file: Path, damaged_file: Path) -> None:
    good = check_file(demo_file)
    assert good.valid and good.facts.calls == 5 and good.facts.events == 115 and good.problems == ()
    bad = check_file(damaged_file)
    assert not bad.valid and bad.unfinished_calls == (3,)
    assert bad.damaged_calls() == frozenset({3})
    assert set(bad.problems_by_line()) == {93, 95}


def test_a_file_that_cannot_be_opened_is_one_problem(tmp_path: Path) -> None:
    verdict = check_file(tmp_path / "missing.jsonl")
    assert not verdict.valid and verdict.problems[0].reason == "file not found"


def test_the_child_process_agrees(damaged_file: Path) -> None:
    isolated = check_file_isolated(damaged_file)
    assert isolated is not None
    assert isolated.to_json() == check_file(damaged_file).to_json()


def test_json_round_trip(damaged_file: Path) -> None:
    verdict = check_file(damaged_file)
    again = Verdict.from_json(damaged_file, verdict.to_json())
    assert again.to_json() == verdict.to_json()
    assert [str(p) for p in again.problems] == [str(p) for p in verdict.problems]


def test_big_files_go_to_the_child(demo_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[str] = []
    monkeypatch.setattr(
        verdict_module, "check_file_isolated", lambda p, c=None: used.append("child")
    )
    check_recording(demo_file, size=verdict_module.IN_PROCESS_LIMIT + 1)
    assert used == ["child"]


def test_a_cancelled_child_gives_no_verdict(demo_file: Path) -> None:
    assert check_file_isolated(demo_file, cancelled=lambda: True) is None


def test_main_prints_json(demo_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert verdict_module.main([str(demo_file)]) == 0
    printed = capsys.readouterr().out
    assert ScanFacts.model_validate_json(printed) == check_file(demo_file).facts
    assert verdict_module.main([]) == 2
