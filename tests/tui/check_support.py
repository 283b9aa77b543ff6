"""Check fixtures: check results of every outcome, made with the library, and a small host app.

Mismatches come from the library's own comparison (`find_first_difference` and `ReplayMismatch`,
or a real `ReplayProvider`), on requests built with fixed timestamps, so screens are the same on
every run and every machine.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar, cast

from textual.app import App
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.reactive import reactive
from textual.screen import Screen

from openprogram.agent import echo_tool
from openprogram.providers import (
    AssistantMessage,
    Context,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram.providers.recording.check_protocol import AbsorbedDifference
from openprogram.providers.recording.recorder import RecordingProvider, request_payload
from openprogram.providers.recording.rules import (
    MatchingRules,
    NormalizeRule,
    iter_ruled_differences,
)
from openprogram.providers.replay import (
    MismatchReport,
    ReplayMismatch,
    ReplayProvider,
    find_first_difference,
)
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.recordings import CheckResult
from tests.tui.pilot_support import until
from tui.theme import DARK_THEME, THEMES
from tui.widgets.check.check_outcome import CheckOutcome
from tui.widgets.comparison.json_pane import JsonPane
from tui.widgets.comparison.mismatch_view import MismatchView

CLOCK = 1_767_605_400_000
ECHO_ARGV = ["python", "examples/echo_agent.py", "bye"]
CWD = "/work/main"
MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
ECHO_TOOL = echo_tool().definition()
SYSTEM_PROMPT = "Call the echo tool with the user's words, then tell the user its result."
LONG_PROMPT = "\n".join(
    [
        "You are a careful assistant that uses tools.",
        "Call the echo tool with the user's words.",
        "Then tell the user exactly what the tool answered.",
        "Never invent a tool result.",
        "Answer in one short sentence.",
        "Keep the user's spelling.",
    ]
)


class CheckHost(App[None]):
    """Shows one screen, the way openprogram-tui would push it (`q` and esc go back, then quit)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "go_back", "Back", id="back"),
    ]
    record_replay_status: reactive[object | None] = reactive(None)
    """What `ModeBadge` follows in the real app (unknown here)."""

    def __init__(self, screen: Screen[Any], *, below: Screen[Any] | None = None) -> None:
        """`below`: a screen under the check screen, as the recording screen is in the app."""
        super().__init__()
        self.first_screen = screen
        self.below = below
        self.opened: list[Any] = []
        """The `CallOpenRequested` messages the screen sent up."""
        for theme in THEMES.values():
            self.register_theme(theme)
        self.theme = DARK_THEME

    def on_mount(self) -> None:
        if self.below is not None:
            self.push_screen(self.below)
        self.push_screen(self.first_screen)

    def action_go_back(self) -> None:
        if len(self.screen_stack) > 2:
            self.pop_screen()
        else:
            self.exit()

    def on_call_open_requested(self, message: Any) -> None:
        self.opened.append(message)


def echo_context(tool_answer: str, **changes: Any) -> Context:
    """The context of the echo agent's second call (after the tool answered `tool_answer`)."""
    messages = [
        UserMessage(content="hi", timestamp=CLOCK),
        AssistantMessage(
            content=[ToolCall(id="call_0_1", name="echo", arguments={"text": "hi"})],
            api="scripted",
            provider="scripted",
            model="echo-1",
            stop_reason="toolUse",
            timestamp=CLOCK + 100,
        ),
        ToolResultMessage(
            tool_call_id="call_0_1",
            tool_name="echo",
            content=[TextContent(text=tool_answer)],
            timestamp=CLOCK + 200,
        ),
    ]
    fields: dict[str, Any] = {
        "system_prompt": SYSTEM_PROMPT,
        "messages": messages,
        "tools": [ECHO_TOOL],
    }
    return Context(**(fields | changes))


def echo_request(tool_answer: str = "echo:hi", **changes: Any) -> dict[str, Any]:
    """A whole request payload of call 1, as replay compares it."""
    return request_payload(MODEL, echo_context(tool_answer, **changes), None)


def mismatch_of(
    recorded: dict[str, Any], incoming: dict[str, Any], call: int = 1
) -> MismatchReport:
    """The report of the first difference of two requests, as a rerun reports it."""
    difference = find_first_difference(recorded, incoming)
    assert difference is not None
    return MismatchReport.of_difference(call, difference, recorded, incoming)


def check_result(status: str, mismatch: MismatchReport | None = None, **fields: Any) -> CheckResult:
    """A finished check with fixed, screen-safe values (no temporary paths, no clock)."""
    values: dict[str, Any] = {
        "status": status,
        "recording": "/recordings/echo.jsonl",
        "argv": ECHO_ARGV,
        "cwd": CWD,
        "calls_recorded": 2,
        "calls_consumed": 1 if status != "ok" else 2,
        "never_requested": [1] if status != "ok" else [],
        "duration_seconds": 0.46,
        "exit_code": 1 if status != "ok" else 0,
        "mismatch": mismatch,
        "error": None,
        "stderr_tail": [],
    }
    return CheckResult(**(values | fields))


def content_mismatch() -> CheckResult:
    """Call 1, `context.messages[2].content[0].text`: 'echo:hi' recorded, 'echo:bye' incoming."""
    return check_result("mismatch", mismatch_of(echo_request(), echo_request("echo:bye")))


def absorbed_mismatch() -> CheckResult:
    """The date in the system prompt changed (absorbed by a pyproject rule); the tool answer too."""
    recorded = echo_request(system_prompt="Today is 2026-12-01. " + SYSTEM_PROMPT)
    incoming = echo_request("echo:bye", system_prompt="Today is 2026-12-02. " + SYSTEM_PROMPT)
    rule = NormalizeRule(
        path="context.system_prompt", preset="iso-datetime", source="/work/agent/pyproject.toml"
    )
    rules = MatchingRules(normalize=(rule,))
    ruled = list(iter_ruled_differences(recorded, incoming, rules))
    counting = next(r.difference for r in ruled if not r.absorbed)
    mismatch = MismatchReport.of_difference(1, counting, recorded, incoming)
    absorbed = [
        AbsorbedDifference(
            call_index=1,
            field_path=r.difference.field_path,
            path_tokens=list(r.difference.path_tokens),
            rule=r.absorbed_by.describe(),
            source=r.absorbed_by.source,
            absorbed_by=r.absorbed_by,
        )
        for r in ruled
        if r.absorbed_by is not None
    ]
    return check_result("mismatch", mismatch, rules=rules.describe(), absorbed=absorbed)


def missing_key_mismatch() -> CheckResult:
    """The incoming tool schema lost its `required` list."""
    tool = ECHO_TOOL.model_copy(deep=True)
    del tool.parameters["required"]
    return check_result("mismatch", mismatch_of(echo_request(), echo_request(tools=[tool])))


def type_change_mismatch() -> CheckResult:
    """A tool-call argument recorded as a number arrives as a string."""
    recorded, incoming = echo_request(), echo_request()
    recorded["context"]["messages"][1]["content"][0]["arguments"] = {"count": 3, "text": "hi"}
    incoming["context"]["messages"][1]["content"][0]["arguments"] = {"count": "3", "text": "hi"}
    return check_result("mismatch", mismatch_of(recorded, incoming))


def long_string_mismatch() -> CheckResult:
    """The system prompt changed in one of its lines; the tool result and tool description too."""
    recorded = echo_request(system_prompt=LONG_PROMPT)
    changed = LONG_PROMPT.replace("exactly what the tool answered", "what the tool said")
    incoming = echo_request("echo:bye", system_prompt=changed)
    incoming["context"]["tools"][0]["description"] = "Echo the text."
    return check_result("mismatch", mismatch_of(recorded, incoming))


def blob(length: int) -> str:
    """A base64 run without spaces (an image, a signature), the same on every run."""
    chunks, seed = [], b"echo"
    while sum(map(len, chunks)) < length:
        seed = hashlib.sha256(seed).digest()
        chunks.append(base64.b64encode(seed).decode().rstrip("="))
    return "".join(chunks)[:length]


def long_token_mismatch() -> CheckResult:
    """The tool answered an 8,000-character token that differs in one character (at 5,000)."""
    recorded = blob(8_000)
    incoming = recorded[:5_000] + "#" + recorded[5_001:]
    return check_result("mismatch", mismatch_of(echo_request(recorded), echo_request(incoming)))


def inserted_message_mismatch() -> CheckResult:
    """The incoming request has a new first message; everything after it is as recorded."""
    recorded = echo_request()
    incoming = copy.deepcopy(recorded)
    note = UserMessage(content="You are in Lyon today.", timestamp=CLOCK - 100)
    incoming["context"]["messages"].insert(0, note.model_dump(mode="json"))
    return check_result("mismatch", mismatch_of(recorded, incoming))


def ok_result() -> CheckResult:
    return check_result("ok", argv=["python", "examples/echo_agent.py", "hi"])


def incomplete_result() -> CheckResult:
    return check_result(
        "incomplete",
        calls_recorded=4,
        never_requested=[1, 2, 3],
        exit_code=0,
        argv=["python", "examples/echo_agent.py", "--one-turn"],
    )


def incomplete_with_output() -> CheckResult:
    """A test run that made one of two calls; pytest's verdict is on stdout."""
    return check_result(
        "incomplete",
        exit_code=0,
        argv=["python", "-m", "pytest", "tests/test_agent.py"],
        stdout_tail=[
            "============================= test session starts ==============================",
            "collected 2 items",
            "",
            "tests/test_agent.py .s                                                   [100%]",
            "",
            "=========================== short test summary info ============================",
            "SKIPPED [1] tests/test_agent.py:31: the second turn is behind a feature flag",
            "========================= 1 passed, 1 skipped in 0.21s =========================",
        ],
    )


def error_result() -> CheckResult:
    return check_result(
        "error",
        calls_consumed=0,
        never_requested=[0, 1],
        error="the program exited with code 1",
        stderr_tail=[
            "Traceback (most recent call last):",
            '  File "examples/echo_agent.py", line 33, in pick_model',
            "    api, base_url = REAL_MODELS[provider]",
            "KeyError: 'gemini'",
        ],
    )


def record_abandoned_call(path: Path) -> Path:
    """A one-call recording whose consumer stopped reading after 3 events (outcome abandoned)."""

    async def record() -> None:
        provider = RecordingProvider(ScriptedProvider([[TextStep(text="a b c d")]]), path)
        stream = cast(AsyncGenerator[Any, None], provider.stream(MODEL, echo_context("echo:hi")))
        for _ in range(3):
            await stream.__anext__()
        await stream.aclose()

    asyncio.run(record())
    return path


def position_mismatch(recording: Path) -> CheckResult:
    """A real replay of `recording` that reads past its abandoned stream."""

    async def replay() -> MismatchReport:
        stream = ReplayProvider(recording).stream(MODEL, echo_context("echo:hi"))
        try:
            while True:
                await stream.__anext__()
        except ReplayMismatch as exc:
            return exc.report

    mismatch = asyncio.run(replay())
    return check_result(
        "mismatch",
        mismatch,
        recording=str(recording),
        calls_recorded=1,
        calls_consumed=1,
        never_requested=[],
    )


def past_end_mismatch(recording: Path) -> CheckResult:
    """A real replay of a one-call `recording` that makes a second call."""
    provider = ReplayProvider(recording)
    incoming = copy.deepcopy(echo_context("echo:hi"))
    incoming.messages.append(UserMessage(content="and again", timestamp=CLOCK + 300))

    async def replay() -> MismatchReport:
        async for _ in provider.stream(MODEL, echo_context("echo:hi")):
            pass
        try:
            async for _ in provider.stream(MODEL, incoming):
                pass
        except ReplayMismatch as exc:
            return exc.report
        raise AssertionError("replay took a call that was not recorded")

    mismatch = asyncio.run(replay())
    return check_result(
        "mismatch", mismatch, recording=str(recording), calls_recorded=1, never_requested=[]
    )


def record_one_call(path: Path) -> Path:
    """A one-call recording of the echo agent's second call, streamed to the end."""

    async def record() -> None:
        provider = RecordingProvider(ScriptedProvider([[TextStep(text="echo:hi")]]), path)
        async for _ in provider.stream(MODEL, echo_context("echo:hi")):
            pass

    asyncio.run(record())
    return path


async def marks_revealed(pilot: Pilot[None]) -> None:
    """Wait until each request pane has put its marked field under its cursor, in view."""

    def revealed() -> bool:
        panes = pilot.app.screen.query(JsonPane)
        return all(pane.marked is None or pane.cursor_node is pane.marked for pane in panes)

    await until(pilot, revealed)
    await pilot.pause()


def after_result(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Wait until the result is on screen, press `keys`, let everything settle."""

    async def run_before(pilot: Pilot[None]) -> None:
        def shown() -> bool:
            screen = pilot.app.screen
            return bool(screen.query(MismatchView) or screen.query(CheckOutcome))

        await until(pilot, shown)
        await marks_revealed(pilot)
        await pilot.press(*keys)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run_before
