"""An agent whose requests change by themselves: today's date, and a tool writing to a temp dir.

Recorded once, it replays green on any later day thanks to the rules in this folder's
`pyproject.toml` (no rules in code). `OPENPROGRAM_EXAMPLE_TODAY=YYYY-MM-DD` stands in for the clock.

    cd examples/dated_agent
    openprogram recordings record --name dated -- python agent.py
    OPENPROGRAM_EXAMPLE_TODAY=2026-12-25 openprogram recordings check dated   # ok
"""

from __future__ import annotations

import asyncio
import datetime
import os
import sys
import tempfile
from pathlib import Path

from openprogram.agent import AgentTool, run_agent_loop
from openprogram.providers import Context, Model, TextContent, UserMessage


def note_saver(folder: Path) -> AgentTool:
    """The tool: write the note to a file in `folder` and say where."""

    def save_note(text: str) -> str:
        path = folder / "note.txt"
        path.write_text(text)
        return f"saved to {path}"

    return AgentTool(
        name="echo",  # the scripted provider calls a tool named echo with the user's words
        description="Save a note and say where it went.",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}},
        function=save_note,
    )


async def main() -> int:
    today = os.environ.get("OPENPROGRAM_EXAMPLE_TODAY") or datetime.date.today().isoformat()
    model = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
    context = Context(
        system_prompt=f"Today is {today}. Save what the user says, then say where it went.",
        messages=[UserMessage(content="buy milk")],
    )
    # The notes go into a temporary folder removed at the end: a run leaves nothing behind.
    with tempfile.TemporaryDirectory(prefix="dated-agent-run-") as scratch:
        run = await run_agent_loop(model, context, [note_saver(Path(scratch))])
    answer = "".join(b.text for b in run.final_message.content if isinstance(b, TextContent))
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
