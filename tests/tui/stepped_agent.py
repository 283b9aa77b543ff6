"""A program that makes model calls when told: one agent turn per line read from stdin.

`python -m tests.tui.stepped_agent` runs the scripted echo model (no network) through the provider
runtime, so the next-start configuration applies: in record mode every call is appended to the
configured recording while the program runs. After each turn it prints `turn N done`, so a test
knows what the file holds without sleeping.
"""

from __future__ import annotations

import asyncio
import sys

from openprogram.agent import echo_tool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")


async def main() -> int:
    tool = echo_tool(lambda text: f"echo:{text}")
    for turn, line in enumerate(sys.stdin):
        context = Context(
            system_prompt="Call the echo tool with the user's words, then report its result.",
            messages=[UserMessage(content=line.strip() or "hi")],
        )
        await run_agent_loop(MODEL, context, [tool])
        print(f"turn {turn} done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
