"""A 200-call session in a real terminal: the last call opens on what it sent that call 198 had
not, never on the system prompt and the 397 messages before."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_e2e_tmux import Terminal, tui_line

pytestmark = pytest.mark.e2e

CALLS = 200
SYSTEM_PROMPT = "SYSTEM-PROMPT-LINE You are a careful agent. " * 8


async def record_session(path: Path) -> None:
    """An agent loop of `CALLS` calls through the real recorder and a scripted provider: each call
    sends the conversation so far, its new part the last answer and one more question."""
    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.scripted import ScriptedProvider, TextStep
    from openprogram.providers.stream import drain

    model = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
    steps = [[TextStep(text=f"answer number {n}")] for n in range(CALLS)]
    recorder = RecordingProvider(ScriptedProvider(steps), path)
    messages: list[object] = []
    for n in range(CALLS):
        messages.append(UserMessage(content=f"question number {n}", timestamp=1))
        context = Context(system_prompt=SYSTEM_PROMPT, messages=messages)  # type: ignore[arg-type]
        messages.append(await drain(recorder.stream(model, context, None)))
    recorder.sink.close()


@pytest.fixture
def session_terminal(tmp_path: Path) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    path = tmp_path / "session.jsonl"
    asyncio.run(record_session(path))
    command = tui_line(tmp_path / "home", str(path))
    term = Terminal(f"optui-news-{os.getpid()}")
    assert term.start(command)
    try:
        yield term
    finally:
        term.close()


def test_the_last_call_opens_on_its_new_messages(session_terminal: Terminal) -> None:
    terminal = session_terminal
    terminal.wait_for("session.jsonl", "#0", f"{CALLS} calls", "✓ valid")
    terminal.keys("G")
    screen = terminal.wait_for(
        "New in this call (since call 198)",
        "397 earlier messages, same as call 198 — press u to unfold",
        "answer number 198",
        "question number 199",
    )
    transcript = screen.split("Request JSON")[0]  # the JSON tree under it lists every key
    assert "SYSTEM-PROMPT-LINE" not in transcript
    assert "question number 198" not in transcript
    terminal.keys("u")
    screen = terminal.wait_for("Transcript (new since call 198 marked)")
    transcript = screen.split("Request JSON")[0]
    assert "SYSTEM-PROMPT-LINE" in transcript and "question number 0" in transcript
    terminal.keys("C-q")
