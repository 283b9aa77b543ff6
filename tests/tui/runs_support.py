"""`check --runs` on the check screen: a program whose prompt holds a fresh UUID each run (and
whose user message is a real change when run with a word), fixed runs for the snapshots, and a
wait that does not wait for the runs' worker (it waits for the user)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from openprogram.providers.recording.rules import NormalizeRule
from openprogram.recordings import record_command
from openprogram.recordings.stability import StabilityReport, StableDifference
from tests.tui import check_support as fixtures
from tui.model.check_runs import RulesQuestion, RunsReport, RunStarted, Sorted
from tui.model.check_session import Run, RunWork

RUNS_AGENT = """\
import asyncio, sys, uuid
from openprogram.agent import AgentTool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

NOTE = AgentTool(name="echo", description="Note it.", parameters={"type": "object"},
                 function=lambda text="": "noted")

async def main() -> int:
    model = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
    prompt = f"Session {uuid.uuid4()}. Note what the user says."
    said = sys.argv[1] if len(sys.argv) > 1 else "buy milk"
    context = Context(system_prompt=prompt, messages=[UserMessage(content=said)])
    await run_agent_loop(model, context, [NOTE])
    return 0

sys.exit(asyncio.run(main()))
"""
CHANGED = [sys.executable, "agent.py", "sell milk"]
"""The code change: the user now says something else (run in the project folder)."""


def record_runs_agent(project: Path) -> Path:
    """Write the program into `project` (made here) and record one run of it (scripted provider,
    offline): the recording's path."""
    project.mkdir()
    (project / "agent.py").write_text(RUNS_AGENT)
    made = record_command([sys.executable, "agent.py"], name="runs", cwd=str(project))
    assert made.exit_code == 0 and made.path is not None, made
    return Path(made.path)


async def shown(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Let the app run until `condition()` holds. Not `pilot_support.until`: that waits for every
    worker, and the runs' worker waits for the user's answer."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)


RULE = "normalize context.system_prompt uuid"
PROMPTS = [
    f"'Session {uuid}. Note what the user says.'"
    for uuid in (
        "1b4e28ba-2fa1-4d3b-a3f5-ef19c6a2b0c1",
        "6f1c2d0e-93a4-4f57-8d2b-0c5e7a9b3f14",
        "c0ffee00-1234-4abc-9def-0123456789ab",
    )
]


def _differences() -> list[StableDifference]:
    found = []
    for call in (0, 1):
        found.append(
            StableDifference(
                call_index=call,
                field_path="context.system_prompt",
                kind="by_itself",
                recorded=PROMPTS[0],
                incoming=PROMPTS[1:],
                rules=[RULE],
            )
        )
        found.append(
            StableDifference(
                call_index=call,
                field_path="context.messages[0].content",
                kind="code_changed",
                recorded="'buy milk'",
                incoming=["'sell milk'", "'sell milk'"],
            )
        )
    return found


def fixed_runs(rules_file: Path) -> RunWork:
    """Runs that found the UUID changing by itself and the user's words changed (fixed values,
    for pictures): they ask to write the rule into `rules_file`, and end as a yes would."""

    def work(report: Callable[[RunsReport], None], run: Run) -> Sorted:
        report(RunStarted(2, 3))
        found = _differences()
        rule = NormalizeRule.model_validate({"path": "context.system_prompt", "preset": "uuid"})
        question = RulesQuestion([rule], found, 2, rules_file, run.cancel)
        report(question)
        question.wait()
        by_itself = [d for d in found if d.kind == "by_itself"]
        done = StabilityReport(
            recording="runs.jsonl",
            runs=3,
            runs_allowed=3,
            rules_written=[RULE],
            rules_file=str(rules_file),
            ruled=by_itself,
            changes_by_itself=[],
            code_changed=[d for d in found if d.kind == "code_changed"],
            last_run=fixtures.ok_result(),
        )
        return Sorted(done)

    return work
