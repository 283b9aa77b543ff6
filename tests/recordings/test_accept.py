"""Accept mode: a real program rerun offline keeps every recorded answer and takes its new requests.

The program is a small agent on the scripted provider (through the same registry path a real
provider takes), run as a real subprocess by the same runner as `openprogram recordings check`.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from openprogram.recordings import CheckProgress, record_command, run_check
from openprogram.recordings.accept import run_accept
from openprogram.recordings.versions import (
    RewriteRefused,
    VersionError,
    list_versions,
    write_rewrite,
)

AGENT = """
import asyncio, os
from openprogram.agent import echo_tool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage

async def main() -> None:
    model = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
    prompt = os.environ.get("AGENT_PROMPT", "Call the echo tool, then report its result.")
    for said in os.environ.get("AGENT_TURNS", "hi,again").split(","):
        context = Context(system_prompt=prompt, messages=[UserMessage(content=said)])
        await run_agent_loop(model, context, [echo_tool()])
        if os.environ.get("AGENT_BLOCK"):
            open(os.environ["AGENT_BLOCK"]).read()  # a FIFO nobody writes: waits to be killed
    if os.environ.get("AGENT_FAIL"):
        raise SystemExit(3)

asyncio.run(main())
"""


@pytest.fixture
def agent(tmp_path: Path) -> list[str]:
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    return [sys.executable, str(script)]


def recorded(agent: list[str], monkeypatch: pytest.MonkeyPatch, **env: str) -> Path:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    made = record_command(agent, name="agent", cwd=str(Path(agent[1]).parent))
    assert made.kept and made.path is not None and made.calls == 4, made
    for key in env:
        monkeypatch.delenv(key)
    return Path(made.path)


def answer_rows(path: Path) -> list[bytes]:
    """Every event and call_end row: the recorded answers."""
    return [
        line
        for line in path.read_bytes().splitlines()
        if b'"type":"event"' in line or b'"type":"call_end"' in line
    ]


def test_a_reworded_system_prompt_is_accepted_and_the_new_version_replays_green(
    agent: list[str], monkeypatch: pytest.MonkeyPatch, offline_children: Path
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    monkeypatch.setenv("AGENT_PROMPT", "Use the echo tool, then say what it answered.")
    assert run_check("agent").status == "mismatch"

    run = run_accept("agent")
    assert run.refusal is None and run.candidate is not None
    assert [call.call_index for call in run.accepted] == [0, 1, 2, 3]
    assert {d.field_path for call in run.accepted for d in call.differences} == {
        "context.system_prompt"
    }
    assert path.read_bytes() == before  # nothing written before write_rewrite

    kept = write_rewrite(run, agent)
    assert kept is not None and kept.read_bytes() == before
    assert list_versions("agent") == [kept]
    assert answer_rows(path) == answer_rows(kept)  # the recorded answers, byte for byte
    assert path.stat().st_mode & 0o777 == 0o600
    assert b'"produced_by":{"accepted_calls":4' in path.read_bytes().split(b"\n", 1)[0]
    assert run_check("agent").status == "ok"
    assert offline_children.read_text() == ""


@pytest.mark.parametrize(
    ("turns", "fail", "refusal"),
    [
        ("hi", "", "made 2 of 4 recorded calls"),
        ("hi,again,more", "", "more calls than the 4 recorded"),
        ("hi,again", "1", "did not finish"),
    ],
)
def test_a_run_that_needs_a_live_answer_or_fails_is_refused_and_writes_nothing(
    agent: list[str],
    monkeypatch: pytest.MonkeyPatch,
    turns: str,
    fail: str,
    refusal: str,
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    monkeypatch.setenv("AGENT_PROMPT", "Reworded.")
    monkeypatch.setenv("AGENT_TURNS", turns)
    if fail:
        monkeypatch.setenv("AGENT_FAIL", fail)
    run = run_accept("agent")
    assert run.candidate is None and run.refusal is not None and refusal in run.refusal
    with pytest.raises(RewriteRefused, match="nothing to accept"):
        write_rewrite(run, agent)
    assert path.read_bytes() == before and list_versions("agent") == []


def test_a_cancelled_run_leaves_the_old_bytes(
    agent: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    monkeypatch.setenv("AGENT_PROMPT", "Reworded.")
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    monkeypatch.setenv("AGENT_BLOCK", str(fifo))  # the program stops after its first turn
    cancel = threading.Event()

    def stop_after_the_first_call(progress: CheckProgress) -> None:
        if progress.calls_consumed >= 1:
            cancel.set()

    run = run_accept("agent", on_progress=stop_after_the_first_call, cancel=cancel)
    assert run.candidate is None and run.refusal is not None and "cancelled" in run.refusal
    assert path.read_bytes() == before


def test_nothing_differs_nothing_to_accept(
    agent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = recorded(agent, monkeypatch)
    run = run_accept("agent")
    assert run.refusal is None and run.accepted == []
    run.discard()
    assert run.candidate is not None and not run.candidate.exists()
    assert path.exists()


def test_a_second_rewrite_of_the_same_recording_is_refused_naming_the_first(
    agent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    monkeypatch.setenv("AGENT_PROMPT", "Reworded.")
    first = run_accept("agent")  # holds the recording until written or discarded
    with pytest.raises(
        VersionError, match=rf"already being rewritten \(accept by process {os.getpid()}\)"
    ):
        run_accept("agent")
    first.discard()
    second = run_accept("agent")
    assert second.candidate is not None
    write_rewrite(second, agent)
    assert path.read_bytes() != before
    assert not list(path.parent.glob(".*.lock"))
