"""A small echo agent: the user says "hi", the model calls the `echo` tool, then reports its result.

The optional WORD stands in for a code change: the tool answers `echo:WORD` instead of echoing
what it was given. So a recording made with `hi` replays cleanly with `hi`, and with `bye` the
second call diverges exactly where the tool result differs.

    python examples/echo_agent.py hi            # the scripted provider, no API key needed
    OPENPROGRAM_EXAMPLE_MODEL=openai:gpt-4o-mini python examples/echo_agent.py hi   # a real model
    OPENPROGRAM_EXAMPLE_MODEL=openai-responses:gpt-5-mini python examples/echo_agent.py hi
    OPENPROGRAM_EXAMPLE_MODEL=google:gemini-2.5-flash python examples/echo_agent.py hi

The key comes from the vendor's variable: OPENAI_API_KEY (both OpenAI apis), ANTHROPIC_API_KEY or
GOOGLE_API_KEY. OPENPROGRAM_EXAMPLE_BASE_URL points the call elsewhere (a proxy, Azure's
`https://RESOURCE.openai.azure.com/openai/v1`, a compatible server).

Record it once, then check it against the current code:

    openprogram recordings record --name echo -- python examples/echo_agent.py hi
    openprogram recordings check echo                                     # ok
    openprogram recordings check echo -- python examples/echo_agent.py bye  # mismatch at call 1
"""

from __future__ import annotations

import asyncio
import os
import sys

from openprogram.agent import echo_tool, run_agent_loop
from openprogram.errors import OpenProgramError
from openprogram.providers import Context, Model, TextContent, UserMessage

REAL_MODELS = {
    "openai": ("openai-completions", "openai", "https://api.openai.com/v1"),
    "openai-responses": ("openai-responses", "openai", "https://api.openai.com/v1"),
    "anthropic": ("anthropic-messages", "anthropic", "https://api.anthropic.com"),
    "google": ("google-generative-ai", "google", "https://generativelanguage.googleapis.com"),
}
"""The prefix of OPENPROGRAM_EXAMPLE_MODEL: (api, provider, whose key variable is used, base URL)."""


def pick_model() -> Model:
    """The scripted echo model, or `provider:model-id` from OPENPROGRAM_EXAMPLE_MODEL."""
    choice = os.environ.get("OPENPROGRAM_EXAMPLE_MODEL", "")
    if not choice:
        return Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
    prefix, _, model_id = choice.partition(":")
    api, provider, base_url = REAL_MODELS[prefix]
    base_url = os.environ.get("OPENPROGRAM_EXAMPLE_BASE_URL") or base_url
    return Model(id=model_id, name=model_id, api=api, provider=provider, base_url=base_url)


async def main(word: str | None) -> int:
    def echo(text: str) -> str:
        return f"echo:{word if word is not None else text}"

    tool = echo_tool(echo)
    context = Context(
        system_prompt="Call the echo tool with the user's words, then tell the user its result.",
        messages=[UserMessage(content="hi")],
    )
    run = await run_agent_loop(pick_model(), context, [tool])
    answer = "".join(b.text for b in run.final_message.content if isinstance(b, TextContent))
    print(answer)  # an answer whose stream broke raised `AgentAnswerBrokeError` instead
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main(" ".join(sys.argv[1:]) or None)))
    except OpenProgramError as error:  # e.g. a replay mismatch: its message says it all
        print(f"echo_agent: {error}", file=sys.stderr)
        sys.exit(1)
