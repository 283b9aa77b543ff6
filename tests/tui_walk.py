"""Walk a recording in the real app as a user would (issue #39): open it, `G` to the last call, its
Request tab with its caption, sort by cost over all calls, `t` for the timeline; then print what
was on screen and how many request rows the call reader parsed, as one JSON line.

    python -m tests.tui_walk FILE [--walk]

`--walk` also moves the cursor up from the last call to the first, one call at a time, waiting
for each call's detail (the reads a user walking the session causes). Run in a subprocess, so the
caller measures its memory (the tests cap its address space; `bench/hostile_files.py` reads its
peak RSS).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from tests.tui.pilot_support import recording_ready, until
from tui.app import OpenProgramTUI
from tui.model.call_order import SortKey
from tui.model.row_reading import reader_of
from tui.widgets.recording.call_list import CallList


async def walk(path: Path, every_call: bool) -> dict[str, object]:
    async with OpenProgramTUI([path]).run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        assert screen.index is not None
        last = len(screen.index.calls) - 1
        calls = screen.query_one(CallList)
        calls.focus()
        await pilot.press("G")
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.span.ordinal == last)
        loaded = screen.loaded
        assert loaded is not None
        request = loaded.request
        news = loaded.news()
        while (calls.ordering or calls.order).key is not SortKey.COST:
            await pilot.press("o")
        await until(pilot, lambda: calls.ordering is None, timeout=120)
        await pilot.press("t")
        await until(
            pilot, lambda: screen.browser is not None and screen.browser.timeline is not None
        )
        await pilot.press("t")
        walked = 0
        if every_call:
            await pilot.press("o")  # back to file order
            await until(pilot, lambda: calls.order.key is SortKey.FILE and calls.ordering is None)
            calls.focus()
            await pilot.press("G")
            for ordinal in range(last - 1, -1, -1):
                await pilot.press("k")
                await until(
                    pilot,
                    lambda o=ordinal: screen.loaded is not None and screen.loaded.span.ordinal == o,
                )
                walked += 1
        reader = reader_of(screen.index)
        return {
            "calls": last + 1,
            "last_call": loaded.call_index,
            "messages": len(request.context.get("messages") or []) if request else None,
            "request_problem": loaded.request_problem,
            "news": type(news).__name__,
            "sorted_by": calls.order.key.value,
            "walked": walked,
            "rows_parsed": reader.rows_parsed,
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", type=Path)
    parser.add_argument("--walk", action="store_true")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(walk(args.path, args.walk))))


if __name__ == "__main__":
    main()
