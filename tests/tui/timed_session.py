"""A recorded session of many calls with times from a scripted clock, one call deliberately slow.

Recorded through the real recorder (`RecordingSink`, `RecordingProvider`) and the scripted
provider; the clock moves 10 ms per reading, and the slow call's answer waits `SLOW_SECONDS` on it
(the recorder's `clock=` argument, never a real sleep).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, ScriptedResponse, echo_responder

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
SLOW_SECONDS = 30.0


class ScriptedClock:
    """Seconds that move 10 ms per reading, and jump when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.01
        return self.now


def record_timed_session(
    path: Path, calls: int = 200, slow_call: int = 137, model: Model = MODEL
) -> Path:
    """Record `calls` calls of `model` into `path`; call `slow_call` takes `SLOW_SECONDS` longer."""
    clock = ScriptedClock()

    def responder(context: Context, call_number: int) -> ScriptedResponse:
        if call_number == slow_call:
            clock.now += SLOW_SECONDS  # the model thinks for a while before answering
        return echo_responder(context, call_number)

    sink = RecordingSink(path, clock=clock)
    provider = RecordingProvider(ScriptedProvider(responder=responder), sink)

    async def run() -> None:
        for n in range(calls):
            context = Context(messages=[UserMessage(content=f"question {n}")])
            async for _ in provider.stream(model, context):
                pass
            clock.now += 0.5  # the program's own work between calls

    asyncio.run(run())
    sink.close()
    return path
