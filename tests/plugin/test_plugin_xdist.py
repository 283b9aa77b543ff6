"""The plugin under pytest-xdist (`-n 2`, real worker processes): one recording per test."""

from __future__ import annotations

import json

from tests.plugin.inner_project import BASE_ARGS, InnerProject

PARALLEL_TESTS = """
import os

import pytest

import test_inner_echo


@pytest.mark.parametrize("word", ["one", "two", "three", "four"])
async def test_word(openprogram_recording, monkeypatch, word):
    diverge = word == os.environ.get("INNER_DIVERGE")
    monkeypatch.setenv("INNER_PROMPT", word + ("!" if diverge else ""))
    await test_inner_echo.converse()
    assert openprogram_recording.call_count == 2
"""


def test_two_workers_record_and_replay_each_test_in_its_own_file(inner: InnerProject) -> None:
    inner.pytester.makepyfile(test_inner_parallel=PARALLEL_TESTS)
    recorded = inner.pytester.runpytest_subprocess(
        *BASE_ARGS, "-n", "2", "--openprogram-record=once"
    )
    recorded.assert_outcomes(passed=6)
    recorded.stdout.fnmatch_lines(["*2 workers*"])
    files = sorted((inner.path / "recordings" / "test_inner_parallel").iterdir())
    assert [path.name for path in files] == [
        f"test_word[{word}].jsonl" for word in sorted(["one", "two", "three", "four"])
    ]
    for path in files:
        header = json.loads(path.read_text().splitlines()[0])
        word = header["test"].split("[")[1].rstrip("]")
        assert f'"content":"{word}"' in path.read_text()  # each test's own calls, nothing else
    assert inner.leftovers() == []

    inner.monkeypatch.setenv("INNER_DIVERGE", "three")
    replayed = inner.pytester.runpytest_subprocess(*BASE_ARGS, "-n", "2")
    replayed.assert_outcomes(passed=5, failed=1)
    shown = "recordings/test_inner_parallel/test_word[three].jsonl"
    # The report section travels from the worker to the controller intact.
    replayed.stdout.fnmatch_lines(
        [
            "replay mismatch at call 0, field context.messages[0].content:",
            "recorded 'three', incoming 'three!'",
            "",
            f"recording: {shown}",
            "open it in the TUI at the mismatching field:",
            f"    openprogram-tui '{shown}' --call 0 --field 'context.messages[0].content'",
        ],
        consecutive=True,
    )
