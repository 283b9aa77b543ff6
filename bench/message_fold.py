"""Folding a long stream into its message: the accumulator of this tree against a baseline revision.

A call of N text deltas (7 characters each), one of N thinking deltas, and a tool call whose
arguments arrive in N/10 pieces, with no `done` event (so the message is built from the deltas,
as the TUI does for a call cut short). Each is folded with `assemble_message` of this tree and of
`--baseline REV` (its `openprogram/providers/accumulator.py` loaded from git), and the two
messages are compared. The baseline is cut off after `--limit` seconds (it was quadratic).

    python bench/message_fold.py                          # N = 1,000,000, baseline 8de99cb
    python bench/message_fold.py --quick --baseline HEAD~1
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, banner, parse_args

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    StartEvent,
    TextDeltaEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
)

Fold = Callable[[Iterable[AssistantMessageEvent]], AssistantMessage | None]


def baseline_fold(revision: str) -> Fold:
    """`assemble_message` as `revision` wrote it."""
    source = subprocess.run(
        ["git", "show", f"{revision}:openprogram/providers/accumulator.py"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    module = types.ModuleType("baseline_accumulator")
    exec(compile(source, f"{revision}:accumulator.py", "exec"), module.__dict__)
    fold: Fold = module.assemble_message
    return fold


def start() -> StartEvent:
    partial = AssistantMessage(
        content=[], api="bench", provider="bench", model="bench-model", timestamp=0
    )
    return StartEvent(partial=partial)


def streams(count: int) -> dict[str, list[AssistantMessageEvent]]:
    text: list[AssistantMessageEvent] = [start(), TextStartEvent(content_index=0)]
    text += [TextDeltaEvent(content_index=0, delta=f"w{n % 10000:04d} ") for n in range(count)]
    thinking: list[AssistantMessageEvent] = [start(), ThinkingStartEvent(content_index=0)]
    thinking += [
        ThinkingDeltaEvent(content_index=0, delta=f"t{n % 10000:04d} ") for n in range(count)
    ]
    arguments = json.dumps({"items": [f"item {n}" for n in range(count // 10)]})
    size = max(1, len(arguments) // (count // 10))
    pieces = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    tool: list[AssistantMessageEvent] = [
        start(),
        ToolCallStartEvent(content_index=0, id="call_1", name="collect"),
    ]
    tool += [ToolCallDeltaEvent(content_index=0, delta=piece) for piece in pieces]
    return {"text": text, "thinking": thinking, f"tool call ({len(pieces):,} pieces)": tool}


def time_fold(fold: Fold, events: list[AssistantMessageEvent], limit: float) -> tuple[float, Any]:
    """Seconds to fold `events` (None past `limit`: the fold is stopped there) and the message."""
    deadline = time.perf_counter() + limit
    began = time.perf_counter()

    def cut_off() -> Iterable[AssistantMessageEvent]:
        for number, event in enumerate(events):
            if number % 4096 == 0 and time.perf_counter() > deadline:
                raise TimeoutError
            yield event

    try:
        message = fold(cut_off())
    except TimeoutError:
        return float("inf"), None
    return time.perf_counter() - began, message


def main() -> None:
    def options(parser: Any) -> None:
        parser.add_argument("--baseline", default="8de99cb", help="git revision to compare with")
        parser.add_argument("--limit", type=float, default=60.0, help="baseline cut-off, seconds")

    args = parse_args(__doc__, options)
    count = 100_000 if args.quick else 1_000_000
    banner(f"Folding {count:,} deltas: this tree vs {args.baseline}")
    old = baseline_fold(args.baseline)
    print(f"{'stream':<28} {'baseline':>12} {'now':>10} {'ratio':>8}  same message")
    for name, events in streams(count).items():
        now, message = time_fold(assemble_message, events, float("inf"))
        before, old_message = time_fold(old, events, args.limit)
        shown = f"> {args.limit:.0f} s" if before == float("inf") else f"{before:.2f} s"
        same = "n/a" if old_message is None else str(old_message == message)
        ratio = f"{before / now:.0f}×" if before != float("inf") else f"> {args.limit / now:.0f}×"
        print(f"{name:<28} {shown:>12} {now:>8.2f} s {ratio:>8}  {same}")


if __name__ == "__main__":
    main()
