"""The `echo` tool that the scripted provider's `echo_responder` calls: the demo's, the example's
and the tests' one tool."""

from __future__ import annotations

from collections.abc import Callable

from openprogram.agent.tools import AgentTool


def echo_tool(function: Callable[[str], str] | None = None) -> AgentTool:
    """The `echo` tool; it answers `echo:<text>`, or what `function(text)` returns."""
    return AgentTool(
        name="echo",
        description="Echo the given text back, prefixed with 'echo:'.",
        parameters={
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to echo."}},
            "required": ["text"],
        },
        function=function or (lambda text: f"echo:{text}"),
    )
