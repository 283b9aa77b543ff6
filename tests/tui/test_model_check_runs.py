"""The runs' question and the session around `check --runs`, without Textual."""

from __future__ import annotations

import threading
from pathlib import Path

from openprogram.providers.recording.rules import NormalizeRule
from openprogram.recordings.stability import StableDifference
from tests.tui import check_support as fixtures
from tests.tui.runs_support import fixed_runs
from tui.model.check_commands import CheckCommand
from tui.model.check_runs import RulesQuestion, Sorted, field_tokens
from tui.model.check_session import Checked, CheckSession, Run

RULE = NormalizeRule.model_validate({"path": "context.system_prompt", "preset": "uuid"})


def question(cancel: threading.Event) -> RulesQuestion:
    return RulesQuestion([RULE], [], 2, Path("pyproject.toml"), cancel)


def answered_in_thread(asked: RulesQuestion) -> tuple[threading.Thread, list[bool]]:
    said: list[bool] = []
    thread = threading.Thread(target=lambda: said.append(asked.wait()))
    thread.start()
    return thread, said


def test_the_runs_wait_for_the_answer_and_only_the_first_counts() -> None:
    asked = question(threading.Event())
    thread, said = answered_in_thread(asked)
    asked.answer(True)
    asked.answer(False)
    thread.join(timeout=10)
    assert said == [True]


def test_stopping_the_run_answers_no() -> None:
    # A screen that went away never answers: its thread must end with it, writing nothing.
    cancel = threading.Event()
    asked = question(cancel)
    thread, said = answered_in_thread(asked)
    cancel.set()
    thread.join(timeout=10)
    assert not thread.is_alive() and said == [False]


def test_a_difference_opens_at_its_field_or_at_its_call() -> None:
    def difference(path: str) -> StableDifference:
        return StableDifference(
            call_index=1, field_path=path, kind="code_changed", recorded="1", incoming=["2"]
        )

    assert field_tokens(difference("context.messages[0].content")) == (
        "context",
        "messages",
        0,
        "content",
    )
    assert field_tokens(difference("context.messages[*]")) == ()


def test_after_the_runs_the_last_checks_keys_are_hidden_and_r_checks_again() -> None:
    session = CheckSession(
        Path("runs.jsonl"), CheckCommand(["python", "a.py"], "/p", "given", None)
    )
    run = session.start("check")
    session.finish(run, Checked(fixtures.content_mismatch()))
    assert session.allows("accept") and session.allows("open_call") and session.allows("runs")
    run = session.start("runs")
    assert not session.allows("runs")
    cancel = threading.Event()
    cancel.set()  # the fixed runs' question answers itself no
    done = fixed_runs(Path("pyproject.toml"))(lambda report: None, Run(0, "runs", cancel))
    assert isinstance(done, Sorted)
    assert session.finish(run, done)
    assert session.sorted is done
    assert not session.allows("accept") and not session.allows("open_call")
    assert session.allows("run_again") and session.allows("runs")
