"""The marker's matching rules: a field the test declares as changing never fails the replay."""

from __future__ import annotations

from tests.plugin.inner_project import InnerProject

RULED_TESTS = """
import os

import pytest

from openprogram.providers import Context, Model, UserMessage, complete_simple

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")


def context():
    prompt = f"Today is {os.environ['INNER_DAY']}."
    return Context(system_prompt=prompt, messages=[UserMessage(content="hi")])


@pytest.mark.openprogram_recording(
    "dated", normalize=[{"path": "context.system_prompt", "preset": "iso-datetime"}]
)
async def test_with_the_rule():
    await complete_simple(MODEL, context())


@pytest.mark.openprogram_recording("dated")
async def test_without_it():
    await complete_simple(MODEL, context())


@pytest.mark.openprogram_recording("dated", ignore=["context.mesages"])
async def test_with_a_typo():
    await complete_simple(MODEL, context())
"""


def test_the_marker_normalises_a_date_and_refuses_a_rule_that_cannot_match(
    inner: InnerProject,
) -> None:
    inner.pytester.makepyfile(test_ruled=RULED_TESTS)
    recorded = inner.run(
        "--openprogram-record=once", "test_ruled.py::test_without_it", INNER_DAY="2026-12-01"
    )
    recorded.assert_outcomes(passed=1)
    next_day = inner.run("test_ruled.py", INNER_DAY="2026-12-02")
    next_day.assert_outcomes(passed=1, failed=1, errors=1)  # the typo fails at setup
    next_day.stdout.fnmatch_lines(
        [
            "*test_without_it*",
            "*the rule `normalize context.system_prompt iso-datetime` would absorb it*",
        ]
    )
    next_day.stdout.fnmatch_lines(["*'context.mesages' can never match a field of a request*"])
