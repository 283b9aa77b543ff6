"""`pytest --openprogram-faults`: one recording test run once per stream fault, each its own id."""

from __future__ import annotations

from tests.plugin.inner_project import InnerProject

FAULT_AWARE_TEST = """
import asyncio

import pytest

from openprogram.agent import AgentAnswerBrokeError, AgentTool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
ECHO = AgentTool(
    name="echo",
    description="Echo the text back.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
    function=lambda text: f"echo:{text}",
)


@pytest.mark.openprogram_recording
async def test_copes(openprogram_fault):
    context = Context(system_prompt="You echo.", messages=[UserMessage(content="hi")])
    if openprogram_fault is None or openprogram_fault.kind == "stall":
        run = await run_agent_loop(MODEL, context, [ECHO])
        assert run.call_count == 2
        return
    with pytest.raises((AgentAnswerBrokeError, asyncio.CancelledError)):
        await run_agent_loop(MODEL, context, [ECHO])
"""


def test_each_fault_of_each_call_is_a_test_of_its_own(inner: InnerProject) -> None:
    inner.pytester.makepyfile(test_inner_faults=FAULT_AWARE_TEST)
    inner.run("--openprogram-record=once").assert_outcomes(passed=3)
    recording = inner.recording("test_copes", "test_inner_faults")
    before = recording.read_bytes()

    network = inner.guard_network()
    result = inner.run(
        "--openprogram-faults=all", "--openprogram-stall=0.2", "-v", "test_inner_faults.py"
    )
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines_random(
        [
            f"*test_copes[[]{kind}@{call}[]] PASSED*"
            for kind in ("cut", "error", "stall", "cancel")
            for call in (0, 1)
        ]
    )
    assert network.read_text() == "" and recording.read_bytes() == before

    # The echo tests that do not expect a broken stream fail under every fault but a short stall.
    some = inner.run(
        "--openprogram-faults=cut,stall", "--openprogram-stall=0.2", "test_inner_echo.py::test_loop"
    )
    some.assert_outcomes(passed=2, failed=2)
    some.stdout.fnmatch_lines(
        ["*AgentAnswerBrokeError: the model's answer to call 0 did not finish*"]
    )

    refused = inner.run("--openprogram-faults=melt", "test_inner_faults.py")
    assert refused.ret == 4
    refused.stderr.fnmatch_lines(["*--openprogram-faults: unknown fault kind 'melt'*"])
