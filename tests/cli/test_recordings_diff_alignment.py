"""`recordings diff` of two recordings whose requests differ by one inserted message."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.stream import drain
from tests.recording_files import run_cli

MODEL = Model(id="m", name="m", api="scripted", provider="scripted")


def record(path: Path, *said: str) -> Path:
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text="ok")]]), path)
    messages = [UserMessage(content=text, timestamp=1) for text in said]
    asyncio.run(
        drain(recorder.stream(MODEL, Context(system_prompt="Be brief.", messages=messages)))
    )
    recorder.sink.close()
    return path


def test_an_inserted_message_is_one_line_saying_so(openprogram_home: Path, tmp_path: Path) -> None:
    a = record(tmp_path / "a.jsonl", "plan the trip", "book the train")
    b = record(tmp_path / "b.jsonl", "you are in Lyon", "plan the trip", "book the train")

    done = run_cli(openprogram_home, "diff", str(a), str(b))
    assert done.returncode == 1
    fields = [line for line in done.stdout.splitlines() if line.startswith("  context.")]
    assert fields == [
        "  context.messages[0]: inserted in B: "
        '{"content": "you are in Lyon", "role": "user", "timestamp": 1}'
    ]

    as_json = json.loads(run_cli(openprogram_home, "diff", str(a), str(b), "--json").stdout)
    (request,) = as_json["calls"][0]["request"]
    assert (request["field_path"], request["kind"], request["a"]) == (
        "context.messages[0]",
        "inserted",
        None,
    )
