"""Thousands of mutated recordings: each reads whole or fails as RecordingFileError, never otherwise."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording, scan_recording
from openprogram.providers.scripted import ScriptedProvider, TextStep, ThinkingStep, ToolCallStep

CASES = 3000
MODEL = Model(id="m", api="scripted", provider="scripted")


@pytest.fixture(scope="module")
def seed_lines(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    path = tmp_path_factory.mktemp("fuzz") / "seed.jsonl"
    script = ScriptedProvider(
        [
            [ThinkingStep(thinking="plan it"), ToolCallStep(name="echo", arguments={"t": "é✓"})],
            [TextStep(text="done now")],
            [TextStep(text="and again")],
        ]
    )
    recorder = RecordingProvider(script, path)

    async def run() -> None:
        for n in range(3):
            context = Context(messages=[UserMessage(content=f"go {n}")])
            async for _ in recorder.stream(MODEL, context):
                pass

    asyncio.run(run())
    return path.read_bytes().splitlines(keepends=True)


Mutation = Callable[[list[bytes], random.Random], list[bytes]]


def flip_byte(lines: list[bytes], rng: random.Random) -> list[bytes]:
    data = bytearray(b"".join(lines))
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return [bytes(data)]


def truncate(lines: list[bytes], rng: random.Random) -> list[bytes]:
    data = b"".join(lines)
    return [data[: rng.randrange(len(data))]]


def duplicate_line(lines: list[bytes], rng: random.Random) -> list[bytes]:
    index = rng.randrange(len(lines))
    return [*lines[: index + 1], lines[index], *lines[index + 1 :]]


def swap_lines(lines: list[bytes], rng: random.Random) -> list[bytes]:
    out = list(lines)
    a, b = rng.randrange(len(out)), rng.randrange(len(out))
    out[a], out[b] = out[b], out[a]
    return out


def drop_line(lines: list[bytes], rng: random.Random) -> list[bytes]:
    index = rng.randrange(len(lines))
    return [*lines[:index], *lines[index + 1 :]]


def huge_value(lines: list[bytes], rng: random.Random) -> list[bytes]:
    index = rng.randrange(1, len(lines))
    row = json.loads(lines[index])
    row[rng.choice(["call_index", "event_index", "event", "model", "extra"])] = "x" * 200_000
    return [*lines[:index], json.dumps(row).encode() + b"\n", *lines[index + 1 :]]


def invalid_utf8(lines: list[bytes], rng: random.Random) -> list[bytes]:
    index = rng.randrange(len(lines))
    line = lines[index]
    cut = rng.randrange(len(line))
    return [*lines[:index], line[:cut] + b"\xc3\x28\xff" + line[cut:], *lines[index + 1 :]]


def deep_nesting(lines: list[bytes], rng: random.Random) -> list[bytes]:
    index = rng.randrange(1, len(lines))
    depth = rng.choice([100, 5_000, 100_000])
    nested = b"[" * depth + b"]" * depth
    line = lines[index].rstrip(b"\n")
    return [*lines[:index], line[:-1] + b',"deep":' + nested + b"}\n", *lines[index + 1 :]]


def wrong_types(lines: list[bytes], rng: random.Random) -> list[bytes]:
    index = rng.randrange(len(lines))
    row = json.loads(lines[index])
    key = rng.choice(sorted(row))
    row[key] = rng.choice([None, -1, 1.5, [], {}, "7", True])
    return [*lines[:index], json.dumps(row).encode() + b"\n", *lines[index + 1 :]]


MUTATIONS: list[Mutation] = [
    flip_byte, truncate, duplicate_line, swap_lines, drop_line, huge_value, invalid_utf8,
    deep_nesting, wrong_types,
]  # fmt: skip


def test_every_mutated_recording_reads_or_fails_with_a_recording_file_error(
    tmp_path: Path, seed_lines: list[bytes]
) -> None:
    rng = random.Random(8)
    path = tmp_path / "mutant.jsonl"
    outcomes: Counter[str] = Counter()
    for case in range(CASES):
        mutation = MUTATIONS[case % len(MUTATIONS)]
        lines = mutation(seed_lines, rng)
        if rng.random() < 0.2:
            again = b"".join(lines).splitlines(keepends=True) or [b"\n"]
            # a second mutation that needs rows it can parse may fail: keep the first alone then
            with contextlib.suppress(ValueError, TypeError, IndexError):
                lines = MUTATIONS[rng.randrange(len(MUTATIONS))](again, rng)
        path.write_bytes(b"".join(lines))
        try:
            read_recording(path)
            outcomes["read"] += 1
        except RecordingFileError as error:
            outcomes["refused"] += 1
            assert "\n" not in str(error)
            assert str(error).startswith(f"recording file {path}")
            assert error.line_number is not None or "empty" in error.reason
        scan = scan_recording(path)  # the tolerant reader never raises on content
        assert scan.valid == (not scan.problems)
    assert outcomes["refused"] > CASES // 2
    print(dict(outcomes))
