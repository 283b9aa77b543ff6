"""The demo recording: an echo-agent session recorded with the library, no API key needed.

The session runs the real agent loop over the scripted provider, recorded by `RecordingProvider`:
a tool call and its answer, two tool calls in one turn, and a call whose stream breaks. Message
timestamps are set from a fixed clock and the recorded times from a seeded one that moves as a real
stream does (`DemoClock`), so the file is the same on every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import sys
import tempfile
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from openprogram.agent import AgentTool, echo_tool, run_agent_loop
from openprogram.providers import (
    ApiProvider,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    SimpleStreamOptions,
    StartEvent,
    StreamOptions,
    TextContent,
    ToolResultMessage,
    UserMessage,
    initialize_provider_runtime,
    provider_runtime_mode,
    register_api_provider,
    registered_apis,
)
from openprogram.providers.recording.recorder import RecordingProvider
from openprogram.providers.recording.redaction import REDACTION_VERSION
from openprogram.providers.recording.replayer import RecordedCallError
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import (
    ScriptedProvider,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)
from openprogram.recordings import managed_path, select_replay
from openprogram.recordings.trust import trust_stored_command
from openprogram.text import plural

DEMO_RECORDING_ID = "echo-demo"
DAMAGED_DEMO_ID = "echo-demo-damaged"
DEMO_CREATED_AT = "2026-01-05T09:30:00Z"
DEMO_CLOCK_MS = 1_767_605_400_000
"""Unix ms of `DEMO_CREATED_AT`; message timestamps count up from here."""
FLAKY_API = "scripted-flaky"

ECHO_MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
FLAKY_MODEL = Model(id="echo-1", name="Echo (flaky link)", api=FLAKY_API, provider="scripted")
SYSTEM_PROMPT = "Call the echo tool for every quoted phrase, then tell the user what came back."
TURNS = (
    (ECHO_MODEL, "Please echo 'hello world' and tell me what came back."),
    (ECHO_MODEL, "Now echo 'ping' and 'pong' at the same time."),
    (FLAKY_MODEL, "One more: echo 'goodbye'."),
)


def echo_session_responder(context: Context, call_number: int) -> ScriptedResponse:
    """Quoted phrases in the user's turn become echo calls; tool results become the answer."""
    last = context.messages[-1]
    if isinstance(last, ToolResultMessage):
        results: list[str] = []
        for message in reversed(context.messages):
            if not isinstance(message, ToolResultMessage):
                break
            results.insert(
                0, "".join(b.text for b in message.content if isinstance(b, TextContent))
            )
        answer = " and ".join(results)
        return [
            ThinkingStep(
                thinking=f"The tool answered {plural(len(results), 'time')}; report it verbatim."
            ),
            TextStep(text=f"The echo tool answered: {answer}."),
        ]
    said = last.content if isinstance(last, UserMessage) and isinstance(last.content, str) else ""
    phrases = re.findall(r"'([^']+)'", said)
    plan = ", ".join(repr(p) for p in phrases)
    return [
        ThinkingStep(thinking=f"The user quoted {plan}. I will call echo once for each."),
        TextStep(text="Let me run that through the echo tool."),
        *(ToolCallStep(name="echo", arguments={"text": phrase}) for phrase in phrases),
    ]


DEMO_SEED = 20260105
"""Seeds `DemoClock`: the demo's times differ call to call and event to event, and never run to run."""


class DemoClock:
    """The recording's clock (seconds), read once per row, moved as a live session moves it: a
    pause before each call (the agent and its tools at work), a wait for the first event, then
    uneven gaps between events. Seeded, so the demo's bytes never change."""

    def __init__(self, seed: int = DEMO_SEED) -> None:
        self.seconds = 0.0
        self._random = random.Random(seed)
        self._gap = BETWEEN_EVENTS_MS

    def _wait(self, gap: tuple[int, int]) -> None:
        self.seconds += self._random.randint(*gap) / 1000

    def __call__(self) -> float:
        now = self.seconds
        self._wait(self._gap)  # until the next row
        self._gap = BETWEEN_EVENTS_MS
        return now

    def next_call(self) -> None:
        """A call is about to start: the agent's pause first; its first event will take longer."""
        self._wait(BETWEEN_CALLS_MS)
        self._gap = FIRST_EVENT_MS


BETWEEN_CALLS_MS = (60, 420)
"""The agent loop and the echo tool at work between two calls."""
FIRST_EVENT_MS = (280, 950)
"""A model's time to its first event."""
BETWEEN_EVENTS_MS = (6, 90)
"""The gaps between streamed events."""


class _FixedClock:
    """Gives every message that passes (in the context or in events) a timestamp from a fixed clock.

    With `clock` (above the recorder) each call first moves the recording's `DemoClock`."""

    def __init__(self, inner: ApiProvider, base_ms: int, clock: DemoClock | None = None) -> None:
        self.inner = inner
        self.base_ms = base_ms
        self.clock = clock
        self.requires_credentials = False

    def _context(self, context: Context) -> Context:
        messages = [
            m.model_copy(update={"timestamp": self.base_ms + 1000 * n})
            for n, m in enumerate(context.messages)
        ]
        return context.model_copy(update={"messages": messages})

    async def _events(
        self, events: AsyncIterable[AssistantMessageEvent], stamp: int
    ) -> AsyncIterator[AssistantMessageEvent]:
        iterator = events.__aiter__()
        try:
            async for event in iterator:
                yield self._stamp(event, stamp)
        finally:
            # Close the recording underneath now, so its call_end is written in order.
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()

    @staticmethod
    def _stamp(event: AssistantMessageEvent, stamp: int) -> AssistantMessageEvent:
        if isinstance(event, StartEvent):
            partial = event.partial.model_copy(update={"timestamp": stamp})
            return event.model_copy(update={"partial": partial})
        if isinstance(event, DoneEvent):
            message = event.message.model_copy(update={"timestamp": stamp})
            return event.model_copy(update={"message": message})
        if isinstance(event, ErrorEvent):
            error = event.error.model_copy(update={"timestamp": stamp})
            return event.model_copy(update={"error": error})
        return event

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Stream from the wrapped provider with fixed timestamps."""
        if self.clock is not None:
            self.clock.next_call()
        stamped = self._context(context)
        stamp = self.base_ms + 1000 * len(stamped.messages) + 500
        return self._events(self.inner.stream(model, stamped, options), stamp)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Like `stream`."""
        if self.clock is not None:
            self.clock.next_call()
        stamped = self._context(context)
        stamp = self.base_ms + 1000 * len(stamped.messages) + 500
        return self._events(self.inner.stream_simple(model, stamped, options), stamp)


class _BrokenLink(ScriptedProvider):
    """A scripted provider whose stream breaks after a few events, as a dropped connection does."""

    def __init__(self, after: int) -> None:
        super().__init__(responder=echo_session_responder)
        self.after = after

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        count = 0
        async for event in super().stream(model, context, options):
            if count == self.after:
                raise ConnectionResetError("the upstream closed the stream mid-answer")
            count += 1
            yield event


@contextlib.contextmanager
def _empty_state_dir() -> Iterator[None]:
    """Point `OPENPROGRAM_HOME` at an empty directory for the duration (then put it back)."""
    saved = os.environ.get("OPENPROGRAM_HOME")
    with tempfile.TemporaryDirectory(prefix="openprogram-tui-demo-init-") as empty:
        os.environ["OPENPROGRAM_HOME"] = empty
        try:
            yield
        finally:
            if saved is None:
                os.environ.pop("OPENPROGRAM_HOME", None)
            else:
                os.environ["OPENPROGRAM_HOME"] = saved


def _start_runtime_without_record_replay() -> None:
    """Start the provider runtime with record/replay off, so the demo never lands in a user's file.

    The runtime reads the configuration once; if it is not running yet it starts with an empty
    state directory. It starts first so the built-ins it registers do not replace the demo's.
    """
    if provider_runtime_mode() == "off" and not registered_apis():
        with _empty_state_dir():
            initialize_provider_runtime()
    mode = provider_runtime_mode()
    if mode != "off":
        raise RuntimeError(f"the demo records only with record/replay off (this process: {mode})")


def demo_providers() -> dict[str, ApiProvider]:
    """The demo's providers by api: the scripted echo model, and its twin whose link breaks."""
    return {
        "scripted": ScriptedProvider(responder=echo_session_responder),
        FLAKY_API: _BrokenLink(after=9),
    }


async def run_demo_turns(tool: AgentTool) -> list[str]:
    """The demo session's turns with `tool` as the echo tool; returns the answers given.

    The last turn's stream breaks (`ConnectionResetError` live, the recorded error in replay):
    the session ends there, as a user would see it end.
    """
    context = Context(system_prompt=SYSTEM_PROMPT)
    answers: list[str] = []
    for model, said in TURNS:
        context.messages.append(UserMessage(content=said))
        try:
            run = await run_agent_loop(model, context, [tool])
        except (ConnectionResetError, RecordedCallError):
            break
        context = run.context
        final = run.final_message
        answers.append("".join(b.text for b in final.content if isinstance(b, TextContent)))
    return answers


async def record_demo_session(path: Path, entry: dict[str, Any] | None = None) -> Path:
    """Record the demo session into `path` (which must not exist yet); returns `path`.

    `entry` (`{"argv": [...], "cwd": ...}`) is the command a check runs, kept in the header.
    """
    header: dict[str, Any] = {
        "recording_id": path.stem,
        "created_at": DEMO_CREATED_AT,
        "redaction_version": REDACTION_VERSION,
    }
    if entry is not None:
        header["entry"] = entry
    clock = DemoClock()
    sink = RecordingSink(path, header, clock=clock)
    _start_runtime_without_record_replay()
    for api, provider in demo_providers().items():
        inner = _FixedClock(provider, DEMO_CLOCK_MS)
        register_api_provider(
            api, _FixedClock(RecordingProvider(inner, sink), DEMO_CLOCK_MS, clock)
        )
    try:
        await run_demo_turns(echo_tool())
    finally:
        sink.close()
    return path


def write_demo_recording(path: Path, entry: dict[str, Any] | None = None) -> Path:
    """Record the demo session into `path` synchronously (`entry`: the command a check runs)."""
    return asyncio.run(record_demo_session(path, entry))


def demo_agent_entry(cwd: Path) -> dict[str, Any]:
    """The header `entry` that checks the demo: its program, `python -m tui.demo_agent`."""
    return {"argv": [sys.executable, "-m", "tui.demo_agent"], "cwd": str(cwd)}


def damage_copy(source: Path, target: Path) -> Path:
    """A copy of `source` cut off in the middle of its second-to-last call, as a crash leaves it."""
    data = source.read_bytes()
    lines = data.split(b"\n")
    cut = b"\n".join(lines[: len(lines) * 3 // 4])
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(cut[: len(cut) - 40])
    return target


def new_demo_home() -> Path:
    """A new private temporary directory for `prepare_demo_home` (the caller removes it)."""
    return Path(tempfile.mkdtemp(prefix="openprogram-tui-demo-"))


def prepare_demo_home(home: Path | None = None) -> Path:
    """A fresh state directory holding the demo (active for replay) and a damaged copy of it.

    Sets `OPENPROGRAM_HOME` to it, so the library works inside it; returns the demo's path. The
    demo names its program for a check (`r`): `python -m tui.demo_agent`, run in `home`, trusted
    as any command recorded on this machine is.
    """
    home = home or new_demo_home()
    os.environ["OPENPROGRAM_HOME"] = str(home)
    path = managed_path(DEMO_RECORDING_ID)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_demo_recording(path, demo_agent_entry(home))
    damaged = damage_copy(path, managed_path(DAMAGED_DEMO_ID))
    for made_here in (path, damaged):  # our own bundled command: a check asks nothing
        trust_stored_command(made_here)
    select_replay(DEMO_RECORDING_ID)
    return path
