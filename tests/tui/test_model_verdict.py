"""The strict verdict, in-process and in a child process, with the same answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from openprogram.providers.recording.reader import streamed_facts
from openprogram.providers.recording.scan_facts import ScanFacts
from tui.model import verdict as verdict_module
from tui.model.verdict import (
    FILE_CHANGED,
    OUT_OF_MEMORY,
    Verdict,
    check_file,
    check_file_isolated,
    check_recording,
)


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
    assert Verdict.model_validate_json(printed).facts == check_file(demo_file).facts
    assert verdict_module.main([]) == 2


def test_a_file_written_to_during_the_check_stops_it_and_is_not_called_invalid(
    demo_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def scan_while_a_writer_appends(path: Path) -> ScanFacts:
        facts = streamed_facts(path)
        with open(path, "ab") as handle:  # a recorder appends half a row meanwhile
            handle.write(b'{"call_index":5,')
        return facts

    monkeypatch.setattr(verdict_module, "streamed_facts", scan_while_a_writer_appends)
    verdict = check_file(demo_file)
    assert verdict.stopped == FILE_CHANGED and not verdict.valid and verdict.problems == ()
    assert verdict.headline().startswith("Check stopped: file changed")
    again = Verdict.from_json(demo_file, verdict.to_json())
    assert again.stopped == FILE_CHANGED


def test_running_out_of_memory_stops_the_check(
    demo_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_memory(path: Path) -> ScanFacts:
        raise MemoryError

    monkeypatch.setattr(verdict_module, "streamed_facts", no_memory)
    assert check_file(demo_file).stopped == OUT_OF_MEMORY
    assert verdict_module.main([str(demo_file)]) == 0  # what the child prints, the parent reads
    report = Verdict.model_validate_json(capsys.readouterr().out)
    assert report.stopped == OUT_OF_MEMORY and report.facts == ScanFacts(size=0)
    assert not report.valid and report.problems == ()


def test_a_checker_that_dies_says_it_stopped(
    demo_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The child is a real process that cannot import its module: it reports nothing.
    monkeypatch.setattr(verdict_module.sys, "executable", "/bin/false")
    verdict = check_file_isolated(demo_file)
    assert verdict is not None and verdict.stopped is not None
    assert verdict.stopped.startswith("the checker failed") and verdict.problems == ()


def test_while_following_an_open_last_call_is_in_progress_not_a_problem(
    damaged_file: Path,
) -> None:
    finished = check_file(damaged_file)
    following = finished.while_following(True)
    assert following.calls_in_progress == (3,) and following.unfinished_calls == ()
    assert following.valid and following.problems == ()
    assert not finished.valid and finished.unfinished_calls == (3,)
