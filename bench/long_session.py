"""Long sessions: an agent loop of N calls, each adding one tool result of S bytes, recorded and replayed.

The loop is what a coding agent does: call the model, which asks for a tool; run the tool (its
result is S bytes of text distinct from every other result); send the whole conversation again.
It runs through the real `RecordingProvider` over a scripted provider (a stream of 7 events per
call ending in a tool call), then replays the file through `ReplayProvider` (every request matched).

For each N in (50, 200, 1000) and S in (4 KB, 32 KB) it prints:

- file size, the bytes of the distinct content the requests carry (every message, the system prompt,
  the tools and the model once, as compact JSON), their ratio, and the same ratio for everything but
  the event rows (the format-2 target: ≤ 1.3);
- event-row bytes per event;
- record cost of call 10 and of call N, and their ratio (target ≤ 2: the cost of a call must not
  grow with the context). Measured in the same minutes, since the machine's load moves by 2× from
  one minute to the next: once the session has made its N calls, a second session is brought to
  call 10, then each makes one more call (one more S-byte result), in turn (which goes first alternates),
  20 times; medians. On
  the clock and in CPU time (`time.thread_time`, which leaves out the wait for the disk's fsync:
  the same for every call, but on a shared disk it moves by milliseconds from one call to the
  next). The target is judged on the CPU time, the work the recorder does; the clock's ratio is
  printed beside it;
- replay open (`read_recording`), whole replay (open + every call matched and streamed), and `check`'s
  reading of the file (`scan_recording`, what `check`/`verify`/the summary read), each also against
  a file of the same conversation sent in 10 calls (before each, a tenth of the answers and results
  added at once): the target asks `check` of a long session to be as fast as of a short one with
  the same content (best of 3 reads each).

A session whose version-1 file would exceed `--max-mb` (default 300 MB: 1000 × 32 KB makes ~30 GB)
is not recorded; the line says so.

    python bench/long_session.py [--quick] [--max-mb MB] [--sizes 50,200,1000] [--results 4096,32768]
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import MODEL, TIMESTAMP, banner, parse_args, scratch_dir, stream_events

from openprogram.providers.recording.reader import read_recording, scan_recording
from openprogram.providers.recording.recorder import RecordingProvider
from openprogram.providers.recording.replayer import ReplayProvider
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    Message,
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

SYSTEM_PROMPT = (
    "You are a coding agent working in a repository. Read files with read_file, change them with "
    "write_file, run the tests with run_tests, and stop when they pass."
)
TOOLS = [
    Tool(
        name=name,
        description=f"{name.replace('_', ' ')} in the repository.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
    )
    for name in ("read_file", "write_file", "run_tests")
]


def answer(call: int) -> AssistantMessage:
    return AssistantMessage(
        content=[
            TextContent(text=f"Step {call}: I will read the next file."),
            ToolCall(id=f"call_{call}", name="read_file", arguments={"path": f"src/m{call}.py"}),
        ],
        api=MODEL.api,
        provider=MODEL.provider,
        model=MODEL.id,
        stop_reason="toolUse",
        timestamp=TIMESTAMP,
    )


def events_for(call: int) -> list[AssistantMessageEvent]:
    """start, text_start, 3 deltas, text_end, done (with the tool call): 7 events."""
    message = answer(call)
    text = f"Step {call}: I will read the next file."
    pieces = [text[:10], text[10:20], text[20:]]
    partial = AssistantMessage(
        api=MODEL.api, provider=MODEL.provider, model=MODEL.id, timestamp=TIMESTAMP
    )
    return [
        StartEvent(partial=partial),
        TextStartEvent(content_index=0),
        *(TextDeltaEvent(content_index=0, delta=piece) for piece in pieces),
        TextEndEvent(content_index=0, content=text),
        DoneEvent(reason="toolUse", message=message),
    ]


class ScriptedProvider:
    """Answers call k with `events_for(k)`, counting its calls."""

    requires_credentials = False

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, model: Any, context: Any, options: Any = None) -> Any:
        events = events_for(self.calls)
        self.calls += 1
        for event in events:
            yield event

    stream_simple = stream


class LongAnswers:
    """Answers each call with `events` events (start, text_start, deltas, text_end, done): the
    answers of the long session's calls, streamed in fewer calls."""

    requires_credentials = False

    def __init__(self, events: int) -> None:
        self.events, self.calls = events, 0

    async def stream(self, model: Any, context: Any, options: Any = None) -> Any:
        self.calls += 1
        for event in stream_events(self.events - 4, text="step ", call=self.calls):
            yield event

    stream_simple = stream


def tool_result(call: int, size: int, session: str = "") -> ToolResultMessage:
    line = f"# {session}src/m{call}.py line {{}}: distinct text of result {call}\n"
    text = "".join(line.format(n) for n in range(size // len(line) + 1))[:size]
    return ToolResultMessage(
        tool_call_id=f"call_{call}",
        tool_name="read_file",
        content=[TextContent(text=text)],
        timestamp=TIMESTAMP,
    )


class AgentSession:
    """The agent loop one call at a time: `step()` makes the next call, then adds the answer and
    the tool's result (S bytes) to the conversation."""

    def __init__(self, provider: Any, size: int, name: str = "") -> None:
        self.provider, self.size, self.calls, self.name = provider, size, 0, name
        """`name` makes the results distinct from another session's (redaction remembers the
        strings it has seen, so equal results would be cheaper the second time)."""
        self.messages: list[Message] = [
            UserMessage(content="Fix the failing tests.", timestamp=TIMESTAMP)
        ]

    async def step(self) -> tuple[float, float]:
        """One call; its time (request to done, the tool's work excluded) on the clock and in CPU
        (`time.thread_time`: without the wait for the disk's fsync)."""
        context = Context(system_prompt=SYSTEM_PROMPT, messages=list(self.messages), tools=TOOLS)
        start, cpu_start = time.perf_counter(), time.thread_time()
        final: AssistantMessage | None = None
        async for event in self.provider.stream(MODEL, context, None):
            if isinstance(event, DoneEvent):
                final = event.message
        wall, cpu = time.perf_counter() - start, time.thread_time() - cpu_start
        assert final is not None
        self.messages += [final, tool_result(self.calls, self.size, self.name)]
        self.calls += 1
        return wall, cpu


def session_name(calls: int, size: int) -> str:
    return f"{calls}x{size}/"


async def agent_loop(provider: Any, calls: int, size: int) -> list[Message]:
    """Run the loop for `calls` calls (the session `session_name` names); the conversation."""
    session = AgentSession(provider, size, session_name(calls, size))
    for _ in range(calls):
        await session.step()
    return session.messages


async def call_costs(long: AgentSession, folder: Path, rounds: int = 20) -> dict[str, float]:
    """Call 10 and call N at equal new content, in the same minutes: a second session is brought
    to call 10, then the two make one call each, in turn, `rounds` times (medians)."""
    recorder = RecordingProvider(ScriptedProvider(), folder / "short.jsonl")
    short = AgentSession(recorder, long.size, name=f"short {long.name}")
    for _ in range(10):
        await short.step()
    early: list[tuple[float, float]] = []
    late: list[tuple[float, float]] = []
    for number in range(rounds):  # which goes first alternates: the first of a pair costs more
        if number % 2:
            late.append(await long.step())
            early.append(await short.step())
        else:
            early.append(await short.step())
            late.append(await long.step())
    short.provider.sink.close()
    (folder / "short.jsonl").unlink()
    return {
        "call10": statistics.median(wall for wall, _ in early),
        "callN": statistics.median(wall for wall, _ in late),
        "cpu10": statistics.median(cpu for _, cpu in early),
        "cpuN": statistics.median(cpu for _, cpu in late),
    }


def content_bytes(messages: list[Message]) -> int:
    """The distinct content the requests carry, each once, as compact JSON."""

    def size(value: Any) -> int:
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())

    total = size(MODEL.model_dump(mode="json")) + size(SYSTEM_PROMPT)
    total += size([tool.model_dump(mode="json") for tool in TOOLS])
    # The last request carries every message but the last two (the answer and result that follow it).
    return total + sum(size(message.model_dump(mode="json")) for message in messages[:-2])


def row_bytes(path: Path) -> tuple[int, int, int]:
    """(bytes of event rows, number of event rows, bytes of every other row)."""
    event_bytes = events = other = 0
    with open(path, "rb") as rows:
        for line in rows:
            if line.rstrip().endswith(b'"type":"event"}'):
                event_bytes += len(line)
                events += 1
            else:
                other += len(line)
    return event_bytes, events, other


def timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def replay_all(path: Path, calls: int, size: int) -> None:
    replay = ReplayProvider(path, project_rules=False)
    asyncio.run(agent_loop(replay, calls, size))
    replay.assert_consumed()


def measure(folder: Path, calls: int, size: int) -> dict[str, float]:
    path = folder / f"session-{calls}-{size}.jsonl"
    recorder = RecordingProvider(ScriptedProvider(), path)
    session = AgentSession(recorder, size, session_name(calls, size))

    async def record() -> None:
        for _ in range(calls):
            await session.step()

    asyncio.run(record())
    file_size = path.stat().st_size
    content = content_bytes(session.messages)
    event_bytes, events, other = row_bytes(path)
    figures = {
        "file": file_size,
        "content": content,
        "ratio": file_size / content,
        "other_ratio": other / content,
        "event_row": event_bytes / events,
        "open": timed(lambda: read_recording(path)),
        "replay": timed(lambda: replay_all(path, calls, size)),
        "check": min(timed(lambda: scan_recording(path)) for _ in range(3)),
    }
    figures.update(same_content_in_ten_calls(folder, calls, size))
    figures.update(asyncio.run(call_costs(session, folder)))
    recorder.sink.close()
    path.unlink()
    return figures


def same_content_in_ten_calls(folder: Path, calls: int, size: int) -> dict[str, float]:
    """The same conversation in 10 calls: before each, `calls / 10` answers and S-byte results are
    added at once, and each call streams as many events as `calls / 10` calls of the long session
    (the same number of rows); check's read and the open of that file."""
    path = folder / f"ten-{calls}-{size}.jsonl"
    record_in_ten_calls(path, calls, size)
    figures = {
        "ten_file": path.stat().st_size,
        "ten_check": min(timed(lambda: scan_recording(path)) for _ in range(3)),
        "ten_open": min(timed(lambda: read_recording(path)) for _ in range(3)),
    }
    path.unlink()
    return figures


def record_long_session(path: Path, calls: int, size: int) -> None:
    """The agent loop of `calls` calls with S-byte results, recorded into `path` (no timing)."""
    recorder = RecordingProvider(ScriptedProvider(), path)
    asyncio.run(agent_loop(recorder, calls, size))
    recorder.sink.close()


def record_in_ten_calls(path: Path, calls: int, size: int) -> None:
    """The conversation of `record_long_session(path, calls, size)` sent in 10 calls, recorded into
    `path`: before each call, `calls / 10` answers and results are added at once, and each call
    streams as many events as `calls / 10` calls of the long session."""
    recorder = RecordingProvider(LongAnswers(7 * calls // 10), path)
    name = session_name(calls, size)
    messages: list[Message] = [UserMessage(content="Fix the failing tests.", timestamp=TIMESTAMP)]

    async def record() -> None:
        added = 0
        for _ in range(10):
            for _ in range(calls // 10):
                messages.extend([answer(added), tool_result(added, size, name)])
                added += 1
            context = Context(system_prompt=SYSTEM_PROMPT, messages=list(messages), tools=TOOLS)
            async for _ in recorder.stream(MODEL, context, None):
                pass

    asyncio.run(record())
    recorder.sink.close()


def old_format_estimate(calls: int, size: int) -> float:
    """Bytes a version-1 file of this session takes (every request repeats the conversation)."""
    per_message = size + 400
    return per_message * calls * calls  # two messages per call, half the calls on average


def main() -> None:
    def extra(parser: Any) -> None:
        parser.add_argument("--max-mb", type=float, default=300.0)
        parser.add_argument("--sizes", default="50,200,1000")
        parser.add_argument("--results", default="4096,32768")

    args = parse_args(__doc__, extra)
    sizes = [int(n) for n in args.sizes.split(",")]
    results = [int(n) for n in args.results.split(",")]
    if args.quick:
        sizes, results = [50], [4096]
    banner("long sessions: an agent loop recorded and replayed")
    import openprogram.providers.recording.row_encoding as rows

    version = getattr(rows, "RECORDING_FORMAT_VERSION", "?")
    print(f"   recording format_version {version}")
    targets: list[str] = []
    with scratch_dir("long-session") as folder:
        for size in results:
            for calls in sizes:
                label = f"N={calls:5d} S={size // 1024:2d} KB"
                if version == 1 and old_format_estimate(calls, size) > args.max_mb * 1e6:
                    estimate = old_format_estimate(calls, size) / 1e6
                    print(f"{label}: not measured (a version-1 file of ~{estimate:,.0f} MB)")
                    continue
                f = measure(folder, calls, size)
                print(
                    f"{label}: file {f['file'] / 1e6:9.2f} MB  content {f['content'] / 1e6:7.2f} MB"
                    f"  ratio {f['ratio']:7.2f}  non-event rows/content {f['other_ratio']:7.2f}"
                    f"  event row {f['event_row']:5.0f} B"
                )
                print(
                    f"{'':21s}record call 10 {f['call10'] * 1e3:7.3f} ms  call N "
                    f"{f['callN'] * 1e3:7.3f} ms ({f['callN'] / f['call10']:5.2f}×)  CPU: call 10 "
                    f"{f['cpu10'] * 1e3:7.3f} ms  call N {f['cpuN'] * 1e3:7.3f} ms "
                    f"({f['cpuN'] / f['cpu10']:5.2f}×)\n{'':21s}open "
                    f"{f['open']:7.3f} s  replay {f['replay']:7.3f} s  check read {f['check']:7.3f} s"
                    f"\n{'':21s}the same content in 10 calls: file {f['ten_file'] / 1e6:.2f} MB, "
                    f"check read {f['ten_check']:.3f} s ({f['check'] / f['ten_check']:.2f}×), "
                    f"open {f['ten_open']:.3f} s ({f['open'] / f['ten_open']:.2f}×)"
                )
                sys.stdout.flush()
                targets.append(
                    f"{label}: non-event rows {f['other_ratio']:.2f}× content "
                    f"({'target met' if f['other_ratio'] <= 1.3 else 'target NOT met'}); "
                    f"call N {f['cpuN'] / f['cpu10']:.2f}× call 10 in CPU "
                    f"({'target met' if f['cpuN'] / f['cpu10'] <= 2 else 'target NOT met'}; "
                    f"{f['callN'] / f['call10']:.2f}× on the clock); check read "
                    f"{f['check'] / f['ten_check']:.2f}× the same content in 10 calls"
                )
    for number, line in enumerate(targets, start=1):
        print(f"TARGET long-session {number}: {line}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
