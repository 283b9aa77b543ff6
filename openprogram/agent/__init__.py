"""The agent loop over the shared provider boundary."""

from openprogram.agent.echo import echo_tool
from openprogram.agent.loop import (
    DEFAULT_MAX_TURNS,
    AgentAnswerBrokeError,
    AgentRun,
    AgentTurnLimitError,
    run_agent_loop,
)
from openprogram.agent.tools import AgentTool, run_tool

__all__ = [
    "DEFAULT_MAX_TURNS",
    "AgentAnswerBrokeError",
    "AgentRun",
    "AgentTool",
    "AgentTurnLimitError",
    "echo_tool",
    "run_agent_loop",
    "run_tool",
]
