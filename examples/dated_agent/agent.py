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


def save_note(text: str) -> str:
    """Write `text` to a file in a fresh temporary directory and say where."""
    path = Path(tempfile.mkdtemp(prefix="dated-agent-")) / "note.txt"
    path.write_text(text)
    return f"saved to {path}"


SAVE = AgentTool(
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
    run = await run_agent_loop(model, context, [SAVE])
    answer = "".join(b.text for b in run.final_message.content if isinstance(b, TextContent))
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
