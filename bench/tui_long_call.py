"""`openprogram-tui` on one call of 1,000,000 events: the peak memory of each view.

One recording of a single call of `--events` text deltas (`tests/tui/long_call.py`, about 145 MB at
a million), and for each view a fresh process that opens it headless (Textual's Pilot, 120x40),
shows the view and waits until its work is done: the Response tab, the Events tab, `G` in the event
list (the message folded to the last event), the Raw tab, the wide call list (its numbers), a sort
(`o`) and the timeline (`t`). The summed VmRSS of that process and its children (the strict reader
runs in a child for big files) is sampled from `/proc` every 10 ms, as `tui_sizes.py` does; the
baseline of the same run is the app opened on the Request tab only. Target: <= 300 MB per view.

    python bench/tui_long_call.py [--events 1000000] [--keep-dir DIR] [--views response,raw]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path

from tui_sizes import TARGET_PEAK_MB, TreeMemory

ROOT = Path(__file__).resolve().parent.parent
VIEWS = ("open", "response", "events", "events-end", "raw", "numbers", "sort", "timeline")
TIMEOUT = 600.0


async def show(path: Path, view: str) -> None:
    """Open `path` and show `view` until its work is over (run in the measured child)."""
    sys.path.insert(0, str(ROOT))
    from tests.tui.pilot_support import recording_ready, screen_text, until
    from tui.app import OpenProgramTUI
    from tui.widgets.recording.call_detail import CallDetail

    app = OpenProgramTUI([path])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        detail = screen.query_one(CallDetail)
        if view == "response":
            detail.show_tab("tab-response")
        elif view in ("events", "events-end"):
            detail.open_event(0)
            if view == "events-end":
                await pilot.pause()
                await pilot.press("G")
                await until(pilot, lambda: "Assembled from" in "\n".join(screen_text(app)), TIMEOUT)
        elif view == "raw":
            detail.show_tab("tab-raw")
        elif view in ("numbers", "sort"):
            await pilot.press("h", "w")
            if view == "sort":
                await pilot.press("o", "o")
        elif view == "timeline":
            await pilot.press("h", "t")
        await until(pilot, lambda: True, TIMEOUT)  # waits for the workers the view started
        await pilot.pause()
        await pilot.press("ctrl+q")


def measure(path: Path, view: str) -> float:
    """Peak MB of a fresh process showing `view` of `path`."""
    command = [sys.executable, __file__, "--show", view, str(path)]
    child = subprocess.Popen(command, cwd=ROOT)
    memory = TreeMemory(child.pid)
    code = child.wait()
    peak = memory.stop() / 1024
    if code:
        raise SystemExit(f"{view}: the app exited {code}")
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--keep-dir", type=Path)
    parser.add_argument("--views", default=",".join(VIEWS))
    parser.add_argument("--show", help=argparse.SUPPRESS)
    parser.add_argument("path", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.show:
        asyncio.run(show(args.path, args.show))
        return
    sys.path.insert(0, str(ROOT))
    from tests.tui.long_call import write_long_call

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep_dir or Path(scratch)
        path = folder / f"long-{args.events}.jsonl"
        if not path.exists():
            write_long_call(path, args.events)
        print(f"one call of {args.events:,} events, {path.stat().st_size / 1e6:.0f} MB")
        for view in args.views.split(","):
            peak = measure(path, view)
            verdict = "ok" if peak <= TARGET_PEAK_MB else "OVER"
            print(f"{view:>12}: peak {peak:6.0f} MB  {verdict}", flush=True)


if __name__ == "__main__":
    main()
