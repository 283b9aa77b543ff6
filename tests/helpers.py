"""Small builders shared by tests: models, an echo agent, and recording-file writers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openprogram.agent import AgentRun, echo_tool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

SCRIPTED_MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")


async def run_echo_agent(said: str = "hi", prefix: str = "echo:") -> AgentRun:
    """The two-call echo loop over the scripted provider: call 0 asks the tool, call 1 answers."""
    context = Context(system_prompt="You echo.", messages=[UserMessage(content=said)])
    return await run_agent_loop(
        SCRIPTED_MODEL, context, [echo_tool(lambda text: f"{prefix}{text}")]
    )


def write_lines(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    """Write rows (dicts as compact sorted JSON, strings as given) one per line."""
    text = "".join(
        (row if isinstance(row, str) else json.dumps(row, sort_keys=True, separators=(",", ":")))
        + "\n"
        for row in rows
    )
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path
