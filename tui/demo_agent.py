"""The demo's program: `python -m tui.demo_agent [WORD]` runs the demo session's three turns.

It is the command the demo recording names for a check (`r` in `openprogram-tui --demo`). With
record/replay off it talks to the demo's scripted providers, no API key needed; in a check,
replay answers from the recording. The optional WORD stands in for a code change, as in
`examples/echo_agent.py`: the echo tool answers `echo:WORD`, and the check shows where the
requests then differ.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from openprogram.agent import echo_tool
from openprogram.errors import OpenProgramError
from openprogram.providers import initialize_provider_runtime, register_api_provider
from tui.model.demo import demo_providers, run_demo_turns


async def run(word: str | None) -> int:
    """Run the session; prints each answer, returns the exit status."""
    initialize_provider_runtime()
    for api, provider in demo_providers().items():
        register_api_provider(api, provider)
    tool = echo_tool(None if word is None else (lambda text: f"echo:{word}"))
    for answer in await run_demo_turns(tool):
        print(answer)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: an optional WORD the echo tool answers with instead of the text."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        return asyncio.run(run(" ".join(words) or None))
    except OpenProgramError as error:  # e.g. a replay mismatch: its message says it all
        print(f"demo_agent: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
