"""Tools an agent may call: a name, a description, a JSON schema and a Python callable."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openprogram.providers.types import TextContent, Tool, ToolCall, ToolResultMessage


@dataclass(frozen=True)
class AgentTool:
    """A tool the model may call; `function` receives the call's arguments as keyword arguments."""

    name: str
    description: str
    function: Callable[..., Any]
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    def definition(self) -> Tool:
        """The tool as the model sees it."""
        return Tool(name=self.name, description=self.description, parameters=self.parameters)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


async def run_tool(tools: dict[str, AgentTool], call: ToolCall) -> ToolResultMessage:
    """Run one tool call; an unknown tool or an exception becomes an error result, never a raise."""
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        text, is_error = f"unknown tool {call.name!r} (available: {known})", True
    else:
        try:
            result = tool.function(**call.arguments)
            if inspect.isawaitable(result):
                result = await result
            text, is_error = _as_text(result), False
        except Exception as exc:
            text, is_error = f"{type(exc).__name__}: {exc}", True
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[TextContent(text=text)],
        is_error=is_error,
    )
