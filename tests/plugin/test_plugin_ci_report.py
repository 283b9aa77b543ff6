"""What CI keeps of a replay failure: a report file per failed test and GitHub annotations."""

from __future__ import annotations

import json
import re

from tests.browser import chromium, open_page
from tests.plugin.inner_project import InnerProject


def record(inner: InnerProject) -> None:
    inner.run("--openprogram-record=once").assert_outcomes(passed=2)


def test_a_failed_test_leaves_a_check_json_report_named_in_its_failure(inner: InnerProject) -> None:
    record(inner)
    result = inner.run("--openprogram-report=ci-reports", INNER_PROMPT="bye")
    result.assert_outcomes(failed=2)
    reports = sorted((inner.path / "ci-reports").iterdir())
    assert [path.name for path in reports] == [
        "test_inner_echo.py..test_loop.html",
        "test_inner_echo.py..test_loop.json",
        "test_inner_echo.py..test_loop_sync.html",
        "test_inner_echo.py..test_loop_sync.json",
    ]
    result.stdout.fnmatch_lines(["report: ci-reports/test_inner_echo.py..test_loop.html"])
    document = json.loads(reports[1].read_text())
    assert document["status"] == "mismatch"
    assert document["recording"] == "recordings/test_inner_echo/test_loop.jsonl"
    assert document["argv"] == [
        "pytest",
        "--openprogram-record=none",
        "test_inner_echo.py::test_loop",
    ]
    assert (document["calls_recorded"], document["calls_consumed"]) == (2, 0)
    assert document["never_requested"] == [0, 1]
    mismatch = document["mismatch"]
    assert (mismatch["call_index"], mismatch["field_path"]) == (0, "context.messages[0].content")
    assert (mismatch["recorded"], mismatch["incoming"]) == ("hi", "bye")
    assert all(path.stat().st_mode & 0o077 == 0 for path in reports)  # they hold the requests

    with chromium() as browser:
        opened = open_page(browser, reports[0])
        page = opened.page
        # The mismatch is what the page shows first, with both values side by side.
        assert page.locator("#verdict .status").text_content() == "mismatch"
        assert page.locator("#verdict .where").text_content() == (
            "call 0 · field context.messages[0].content"
        )
        assert page.locator("#verdict .sides pre").all_text_contents() == ['"hi"', '"bye"']
        assert page.locator("#verdict .where").is_visible()
        commands = page.locator("#verdict code.command").all_text_contents()
        # What resolves it in a pytest suite: pytest's own accept and rewrite commands.
        assert "pytest --openprogram-record=accept test_inner_echo.py::test_loop" in commands
        assert "pytest --openprogram-record=rewrite test_inner_echo.py::test_loop" in commands
        assert opened.errors == [] and opened.requests == []


def test_github_actions_gets_one_error_annotation_per_failed_test(inner: InnerProject) -> None:
    record(inner)
    for run in (
        inner.run("-n", "2", INNER_PROMPT="bye%,\nline", GITHUB_ACTIONS="true"),
        inner.run("--openprogram-annotations", INNER_PROMPT="bye%,\nline", GITHUB_ACTIONS=None),
    ):
        run.assert_outcomes(failed=2)
        annotations = [line for line in run.stdout.lines if line.startswith("::error ")]
        assert len(annotations) == 2
        assert re.fullmatch(
            r"::error file=test_inner_echo\.py,line=\d+,title=openprogram replay mismatch::"
            r"call 0, field context\.messages\[0\]\.content: recorded 'hi', incoming 'bye%25,\\nline'",
            annotations[0],
        ), annotations[0]


def test_without_the_option_or_github_actions_nothing_is_annotated(inner: InnerProject) -> None:
    record(inner)
    run = inner.run(INNER_PROMPT="bye", GITHUB_ACTIONS=None)
    run.assert_outcomes(failed=2)
    assert not [line for line in run.stdout.lines if line.startswith("::error")]
    assert not (inner.path / "ci-reports").exists()
