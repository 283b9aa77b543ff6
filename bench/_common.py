"""Shared helpers of the benchmarks: timing (medians), workloads, and reporting against targets.

Benchmarks are not tests: they print figures and ratios against a baseline measured in the same
run, and say whether the target of the performance issue is met. Nothing here asserts.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
# An installed (or PYTHONPATH) openprogram wins; the repository is the fallback, so
# `PYTHONPATH=/some/other/tree python bench/x.py` measures that tree instead.
if str(REPO_ROOT) not in sys.path:
    sys.path.append(str(REPO_ROOT))

from openprogram.providers.types import (  # noqa: E402
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    Model,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

MODEL = Model(id="bench-model", name="Bench", api="bench", provider="bench")
TIMESTAMP = 1_767_000_000_000
"""A fixed wall-clock time for every message, so payloads are identical run to run."""


def parse_args(doc: str | None, extra: Callable[[argparse.ArgumentParser], None] | None = None):
    """`--quick` (smaller, fewer runs) and `--runs N`; `extra` adds a script's own options."""
    parser = argparse.ArgumentParser(
        description=(doc or "").strip().splitlines()[0] if doc else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=doc,
    )
    parser.add_argument("--quick", action="store_true", help="smaller workload, fewer runs")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per figure (median)")
    if extra is not None:
        extra(parser)
    return parser.parse_args()


def banner(title: str) -> None:
    """The benchmark's title and the machine it ran on."""
    import openprogram

    where = Path(openprogram.__file__).resolve().parent.parent
    print(f"== {title}")
    print(f"   python {platform.python_version()}, {os.cpu_count()} cpus, openprogram from {where}")


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def timed(fn: Callable[[], Any]) -> float:
    """Seconds one call of `fn` took (with a collection first, so earlier garbage is not billed)."""
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def alternate(runs: int, warmup: bool = True, **variants: Callable[[], Any]) -> dict[str, float]:
    """Run each variant `runs` times, interleaved (one untimed warm-up each); medians in seconds."""
    for fn in variants.values() if warmup else ():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, fn in variants.items():
            samples[name].append(timed(fn))
    return {name: median(values) for name, values in samples.items()}


def us(seconds: float) -> str:
    return f"{seconds * 1e6:8.2f} µs"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms"


def verdict(ratio: float, limit: float, *, at_least: bool = False) -> str:
    """`target met` or `target NOT met` for a ratio that must stay below (or above) `limit`."""
    ok = ratio >= limit if at_least else ratio <= limit
    sign = "≥" if at_least else "≤"
    return (
        f"ratio {ratio:.2f} (target {sign} {limit:g}): {'target met' if ok else 'target NOT met'}"
    )


@contextlib.contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    """A private temporary directory, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"openprogram-bench-{prefix}-"))
    os.chmod(path, 0o700)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# ---- workloads ------------------------------------------------------------------------------

SYSTEM_PROMPT = (
    "You are a careful coding assistant working in a repository. Answer concisely, cite the "
    "files you change, and run the tests before you say you are done."
)


def request_context(call: int) -> Context:
    """A ~1 KB request: a system prompt, a short history with a tool call, a unique last message."""
    messages = [
        UserMessage(
            content="Please look at the failing test in tests/test_io.py.", timestamp=TIMESTAMP
        ),
        AssistantMessage(
            content=[
                TextContent(text="I will read the test first."),
                ToolCall(id="call_1", name="read_file", arguments={"path": "tests/test_io.py"}),
            ],
            api=MODEL.api,
            provider=MODEL.provider,
            model=MODEL.id,
            stop_reason="toolUse",
            timestamp=TIMESTAMP,
        ),
        ToolResultMessage(
            tool_call_id="call_1",
            tool_name="read_file",
            content=[TextContent(text="def test_roundtrip():\n    assert load(dump(x)) == x\n")],
            timestamp=TIMESTAMP,
        ),
        UserMessage(
            content=f"Question {call}: what does the test check, in one line?", timestamp=TIMESTAMP
        ),
    ]
    tools = [
        Tool(
            name="read_file",
            description="Read a file of the repository.",
            parameters={"type": "object", "properties": {"path": {"type": "string"}}},
        )
    ]
    return Context(system_prompt=SYSTEM_PROMPT, messages=messages, tools=tools)


def stream_events(
    deltas: int, *, text: str = "word ", call: int = 0
) -> list[AssistantMessageEvent]:
    """start, text_start, `deltas` text deltas, text_end, done: what a vendor stream folds to."""
    pieces = [f"{text}{call}-{n} " if text else "" for n in range(deltas)]
    partial = AssistantMessage(
        api=MODEL.api, provider=MODEL.provider, model=MODEL.id, timestamp=TIMESTAMP
    )
    whole = "".join(pieces)
    final = AssistantMessage(
        content=[TextContent(text=whole)],
        api=MODEL.api,
        provider=MODEL.provider,
        model=MODEL.id,
        timestamp=TIMESTAMP,
    )
    return [
        StartEvent(partial=partial),
        TextStartEvent(content_index=0),
        *(TextDeltaEvent(content_index=0, delta=piece) for piece in pieces),
        TextEndEvent(content_index=0, content=whole),
        DoneEvent(reason="stop", message=final),
    ]


class ListProvider:
    """A provider that yields pre-built events (no work of its own): the cheapest possible source."""

    requires_credentials = False

    def __init__(self, events: Sequence[AssistantMessageEvent]) -> None:
        self.events = events

    async def stream(
        self, model: Model, context: Context, options: Any = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        for event in self.events:
            yield event

    async def stream_simple(
        self, model: Model, context: Context, options: Any = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        for event in self.events:
            yield event


async def drain(events: AsyncIterator[Any]) -> int:
    """Consume a stream; returns how many items it gave."""
    count = 0
    async for _ in events:
        count += 1
    return count


def recording_bytes(calls: int, deltas: int, *, first_call: int = 0, header: bool = True) -> bytes:
    """A valid recording, as `RecordingSink` writes it: per call a ~1 KB request, a stream of
    `deltas` text deltas (plus start, text_start, text_end, done) and a `call_end`."""
    # Only names every version of openprogram has, so another tree can be measured as well.
    from openprogram.providers.recording import row_encoding as row_codec
    from openprogram.providers.recording.recorder import request_payload
    from openprogram.providers.recording.redaction import remove_secret_values
    from openprogram.providers.recording.row_encoding import encode_row

    version = row_codec.RECORDING_FORMAT_VERSION  # the measured tree's own format
    rows = [encode_row({"format_version": version, "recording_id": "bench", "type": "header"})]
    rows = rows if header else []
    for call in range(first_call, first_call + calls):
        request = request_payload(MODEL, request_context(call), None)
        rows.append(encode_row({**request, "call_index": call, "type": "request"}))
        events = stream_events(deltas, text="tok", call=call)
        for index, event in enumerate(events):
            dumped = remove_secret_values(event.model_dump(mode="json"))
            rows.append(
                encode_row(
                    {"call_index": call, "event": dumped, "event_index": index, "type": "event"}
                )
            )
        end = {"call_index": call, "event_count": len(events), "outcome": "complete"}
        rows.append(encode_row({**end, "type": "call_end"}))
    return b"".join(rows)


def write_private(path: Path, data: bytes) -> Path:
    """Write `data` to a new 0600 file (recordings must not be group/world readable)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return path
