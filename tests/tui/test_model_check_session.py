"""The check screen's runs and choices, without a terminal: which run counts, what esc stops,
where `o` and a rerecord lead, and what the footer offers after each outcome."""

from __future__ import annotations

from pathlib import Path

from openprogram.recordings.rerecord import RerecordPlan
from tests.tui import check_support as fixtures
from tui.model.check_commands import CheckCommand
from tui.model.check_session import CallTarget, Checked, CheckSession, rerecord_question

RECORDING = Path("/recordings/echo.jsonl")
ACTIONS = ("run_again", "edit", "open_call", "accept", "rerecord")


def offered(session: CheckSession) -> set[str]:
    return {action for action in ACTIONS if session.allows(action)}


def test_a_new_run_stops_the_one_going_on_and_only_the_latest_outcome_counts() -> None:
    session = CheckSession(RECORDING, CheckCommand(fixtures.ECHO_ARGV, "/work", "given", None))
    first = session.start("check")
    second = session.start("check")  # `r` again before the first one ended
    assert first.cancel.is_set() and not second.cancel.is_set()
    assert session.running and second.number == session.runs == 2

    assert not session.finish(first, Checked(fixtures.ok_result()))  # replaced: not shown
    assert session.running and session.result is None
    assert session.finish(second, Checked(fixtures.content_mismatch()))
    assert not session.running and session.result == fixtures.content_mismatch()


def test_esc_stops_a_run_once_then_means_back() -> None:
    session = CheckSession(RECORDING)
    assert not session.cancel()  # nothing runs: esc goes back
    run = session.start("accept")
    assert session.cancel() and run.cancel.is_set()
    assert not session.cancel()  # already being stopped: a second esc goes back
    session.failed()  # the worker raised
    assert not session.running


def test_a_given_result_brings_its_command_for_running_again() -> None:
    session = CheckSession(RECORDING)
    assert session.allows("edit") and not session.allows("run_again")
    session.finish(session.start("check"), Checked(fixtures.content_mismatch()))
    assert session.command == CheckCommand(fixtures.ECHO_ARGV, fixtures.CWD, "given", None)
    assert session.start_dir() == Path(fixtures.CWD)


def test_what_the_footer_offers_follows_the_outcome() -> None:
    session = CheckSession(RECORDING, CheckCommand(fixtures.ECHO_ARGV, None, "given", None))
    run = session.start("check")
    assert offered(session) == set()  # while running: esc only
    session.finish(run, Checked(fixtures.content_mismatch()))
    assert offered(session) == {"run_again", "edit", "open_call", "accept", "rerecord"}
    assert session.call_to_open() == CallTarget(1, ("context", "messages", 2, "content", 0, "text"))
    assert session.diverging_call() == 1

    session.finish(session.start("check"), Checked(fixtures.incomplete_result()))
    assert offered(session) == {"run_again", "edit", "open_call", "rerecord"}
    assert session.call_to_open() == CallTarget(1)  # the first call it never made
    assert session.diverging_call() == 1

    session.finish(session.start("check"), Checked(fixtures.ok_result()))
    assert offered(session) == {"run_again", "edit"}
    assert session.call_to_open() is None and session.diverging_call() is None


def test_the_rerecord_question_names_what_goes_live() -> None:
    plan = RerecordPlan(RECORDING, None, ["python"], None, 2, 4, ["openai/gpt-5"], "")
    question = rerecord_question(plan, 2)
    assert question.startswith("Record again from call 2: calls 0–1 replay from the recording")
    assert "(2 recorded calls from there) every call goes LIVE to openai/gpt-5" in question
    assert "(API keys) are needed and the calls are billed" in question
    assert rerecord_question(plan, 0).startswith("Record again from call 0: every call goes LIVE")
    keyless = RerecordPlan(
        RECORDING, None, ["python"], None, 3, 4, ["scripted/echo-1"], "", ("scripted",)
    )
    question = rerecord_question(keyless, 3)
    assert "(1 recorded call from there)" in question and "needs no credentials" in question
    assert "API keys" not in question and "billed" not in question
