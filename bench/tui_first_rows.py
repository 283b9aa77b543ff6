"""How fast `openprogram-tui FILE` shows the first rows of a 100 MB, 100k-event recording.

Method (fair by construction): both programs are started the same way, as real processes in a
fresh tmux window of 120x40 on an already running tmux server, and timed from the moment the
window is created until `tmux capture-pane` first shows their text:

- baseline: an empty Textual app (one `Static` label), `python empty_app.py`;
- subject: `openprogram-tui FILE`, until the first call row (`#0 … openai/gpt-4o-mini`) is on screen.

So both times include interpreter start, imports and Textual's first paint; the ratio is what the
recording costs on top of Textual itself. Runs alternate (one warm-up each, not counted) and the
medians of `--runs` runs are compared. Then, in one more session: the time until the whole file is
indexed (`200 calls` in the title), the strict verdict (`✓ valid`), jumping to the last event with
`:199.499` (from sending the keys to `499  done` on screen; for scale, also a key echoed in the
prompt and a second jump), and the TUI's memory: its resident set with this file minus the same
with a tiny recording (growth), and its peak. The strict reader runs in a child process for big files; its
peak is reported separately. The import of the row models (pydantic) is timed on its own as
well: the TUI pays it once the first rows are drawn, when it loads the call detail.

    python bench/tui_first_rows.py [--runs 5] [--keep FILE]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION, encode_row
from tui.model.verdict import check_file_isolated

CALLS, EVENTS_PER_CALL = 200, 500
SECOND_JUMP = "150.250"
SIZE = (120, 40)
POLL = 0.005
TIMEOUT = 30.0
EMPTY_APP = """\
from textual.app import App
from textual.widgets import Static


class Empty(App):
    def compose(self):
        yield Static("empty app ready")


Empty().run()
"""


HEADER_ROW = {
    "type": "header",
    "format_version": RECORDING_FORMAT_VERSION,  # the measured tree's own format
    "recording_id": "bench",
}


def encoded_call(call: int) -> bytes:
    """One call's rows (a 40 KB request, 500 events, `call_end`), encoded as the library writes them."""
    model = {"api": "openai-completions", "provider": "openai", "id": "gpt-4o-mini", "name": "GPT"}
    partial = {
        "role": "assistant",
        "content": [],
        "api": "openai-completions",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "stop_reason": "stop",
        "timestamp": 0,
    }
    messages = [
        {"role": "user", "content": f"message {n} " + "lorem ipsum " * 165, "timestamp": 0}
        for n in range(20)
    ]
    context = {"system_prompt": "You help.", "messages": messages, "tools": None}
    rows = [
        encode_row(
            {
                "type": "request",
                "call_index": call,
                "model": model,
                "context": context,
                "options": None,
            }
        )
    ]
    events: list[dict[str, object]] = [{"type": "start", "partial": partial}]
    blocks = []
    while len(events) + 12 <= EVENTS_PER_CALL - 1:
        index = len(blocks)
        pieces = [f"block {index} piece {k} " + "word " * 58 for k in range(10)]
        events.append({"type": "text_start", "content_index": index})
        events += [{"type": "text_delta", "content_index": index, "delta": p} for p in pieces]
        events.append({"type": "text_end", "content_index": index, "content": "".join(pieces)})
        blocks.append({"type": "text", "text": "".join(pieces)})
    while len(events) < EVENTS_PER_CALL - 1:
        events.append({"type": "text_start", "content_index": len(blocks)})
        blocks.append({"type": "text", "text": ""})
    events.append({"type": "done", "reason": "stop", "message": {**partial, "content": blocks}})
    for number, event in enumerate(events):
        rows.append(
            encode_row({"type": "event", "call_index": call, "event_index": number, "event": event})
        )
    end = {
        "type": "call_end",
        "call_index": call,
        "event_count": len(events),
        "outcome": "complete",
    }
    rows.append(encode_row(end))
    return b"".join(rows)


def generate(path: Path) -> None:
    """~100 MB: 200 calls, each a 40 KB request and 500 events, written with the library's encoder."""
    with path.open("wb") as out:
        out.write(encode_row(HEADER_ROW))
        for call in range(CALLS):
            out.write(encoded_call(call))
    path.chmod(0o600)


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def prepare_run(work: Path) -> tuple[Path, dict[str, str]]:
    """In `work`: the empty Textual app's script, and the environment every timed program gets
    (a private, empty OpenProgram home; no animations)."""
    empty_app = work / "empty_app.py"
    empty_app.write_text(EMPTY_APP)
    home = work / "home"
    home.mkdir(mode=0o700)
    env = {"TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none", "OPENPROGRAM_HOME": str(home)}
    if os.environ.get("PYTHONPATH"):  # another tree measured with this one's bench (before/after)
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return empty_app, env


class Window:
    """One program in its own tmux session of 120x40."""

    count = 0

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        Window.count += 1
        self.name = f"optui-bench-{os.getpid()}-{Window.count}"
        assignments = [f"{k}={v}" for k, v in env.items()]
        line = " ".join(["exec", "env", "-u", "COLUMNS", "-u", "LINES", *assignments, *command])
        self.started = time.perf_counter()
        tmux("new-session", "-d", "-s", self.name, "-x", str(SIZE[0]), "-y", str(SIZE[1]), line)

    def screen(self) -> str:
        return tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, *texts: str, since: float | None = None) -> float:
        """Seconds from `since` (default: start) until every text is on screen."""
        start = self.started if since is None else since
        deadline = time.perf_counter() + TIMEOUT
        while time.perf_counter() < deadline:
            screen = self.screen()
            if all(text in screen for text in texts):
                return time.perf_counter() - start
            time.sleep(POLL)
        raise TimeoutError(f"{self.name}: {texts} not on screen after {TIMEOUT}s:\n{self.screen()}")

    def wait_while(self, text: str, since: float) -> float:
        """Seconds from `since` until `text` is no longer on screen."""
        deadline = time.perf_counter() + TIMEOUT
        while time.perf_counter() < deadline:
            if text not in self.screen():
                return time.perf_counter() - since
            time.sleep(POLL)
        raise TimeoutError(f"{self.name}: {text!r} still on screen after {TIMEOUT}s")

    def pid(self) -> int:
        return int(tmux("list-panes", "-t", self.name, "-F", "#{pane_pid}").split()[0])

    def memory_kb(self) -> tuple[int, int]:
        """(VmRSS, VmHWM) of the program, in KB."""
        fields = {}
        for line in Path(f"/proc/{self.pid()}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else "0"
        return int(fields["VmRSS"]), int(fields["VmHWM"])

    def keys(self, *keys: str) -> None:
        tmux("send-keys", "-t", self.name, *keys)

    def close(self) -> None:
        tmux("kill-session", "-t", self.name)


def import_seconds(modules: str, runs: int) -> float:
    """Median wall time of a fresh interpreter importing `modules` (comma-separated)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {modules}"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def tui_command() -> list[str]:
    script = Path(sys.executable).with_name("openprogram-tui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tui.app"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--runs", type=int, default=5, help="timed runs of each program (default 5)"
    )
    parser.add_argument("--keep", type=Path, help="write the generated recording here and keep it")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is required", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="optui-bench-"))
    keeper = f"optui-bench-server-{os.getpid()}"
    try:
        recording = args.keep or work / "big.jsonl"
        started = time.perf_counter()
        generate(recording)
        print(
            f"recording: {recording.stat().st_size / 1e6:.1f} MB, {CALLS * EVENTS_PER_CALL:,} events "
            f"in {CALLS} calls (generated in {time.perf_counter() - started:.1f} s)"
        )
        empty_app, env = prepare_run(work)
        tmux("new-session", "-d", "-s", keeper, "sleep 3600")  # a warm server for every window
        empty_times, tui_times = [], []
        for run in range(args.runs + 1):
            for command, texts, times in (
                ([sys.executable, str(empty_app)], ("empty app ready",), empty_times),
                ([*tui_command(), str(recording)], ("#0", "openai/gpt-4o-mini"), tui_times),
            ):
                window = Window(command, env)
                try:
                    seconds = window.wait_for(*texts)
                finally:
                    window.close()
                if run:  # the first round warms caches and is not counted
                    times.append(seconds)
        empty, tui = statistics.median(empty_times), statistics.median(tui_times)
        print(
            f"empty Textual app, first paint: median {empty * 1000:.0f} ms  "
            f"({', '.join(f'{t * 1000:.0f}' for t in empty_times)})"
        )
        print(
            f"openprogram-tui, first rows:    median {tui * 1000:.0f} ms  "
            f"({', '.join(f'{t * 1000:.0f}' for t in tui_times)})"
        )
        print(f"ratio: {tui / empty:.2f}x (target <= 1.5x)")
        textual_only = import_seconds("textual.app", args.runs)
        with_library = import_seconds(
            "textual.app, openprogram.providers.recording.row_models", args.runs
        )
        library = with_library - textual_only
        print(
            f"importing the row models (pydantic): {library * 1000:.0f} ms, paid after the first "
            "rows are on screen (the index and the first call rows need no models)"
        )

        small = work / "small.jsonl"
        from tui.model.demo import write_demo_recording

        write_demo_recording(small)
        window = Window([*tui_command(), str(small)], env)
        window.wait_for("✓ valid")
        time.sleep(0.3)
        small_rss, _ = window.memory_kb()
        window.close()

        window = Window([*tui_command(), str(recording)], env)
        try:
            window.wait_for("#0", "openai/gpt-4o-mini")
            indexed = window.wait_for(f"{CALLS} calls")
            verdict = window.wait_for("✓ valid")
            time.sleep(0.3)
            big_rss, peak = window.memory_kb()
            window.keys(":")
            window.wait_for("Go to a call")
            jump_start = time.perf_counter()
            window.keys("199.499", "Enter")
            jump = window.wait_for(f"{EVENTS_PER_CALL - 1}  done", since=jump_start)
            # Two more, to read the one above: a key echoed in the prompt (the round trip through
            # tmux and one small Textual frame), and a jump once the Events tab has been shown.
            time.sleep(0.3)
            window.keys(":")
            window.wait_for("Go to a call")
            echo_start = time.perf_counter()
            window.keys("1")
            echo = window.wait_while(": 12 or 12.40", since=echo_start)
            window.keys("BSpace")
            window.wait_for(": 12 or 12.40")
            second_start = time.perf_counter()
            window.keys(SECOND_JUMP, "Enter")
            second = window.wait_for(
                f"Assembled from events 0–{SECOND_JUMP.split('.')[1]} of", since=second_start
            )
        finally:
            window.close()
        print(
            f"whole file indexed after {indexed * 1000:.0f} ms; strict verdict after {verdict:.2f} s"
        )
        print(f"jump to the last event (:{CALLS - 1}.{EVENTS_PER_CALL - 1}): {jump * 1000:.0f} ms")
        print(
            f"  for scale: a key typed into the prompt is on screen after {echo * 1000:.0f} ms; "
            f"a second jump (:{SECOND_JUMP}) takes {second * 1000:.0f} ms"
        )
        print(
            f"TUI memory: {small_rss / 1024:.0f} MB with a tiny recording, {big_rss / 1024:.0f} MB with "
            f"this one: growth {(big_rss - small_rss) / 1024:.0f} MB (target < 100 MB); "
            f"peak {peak / 1024:.0f} MB"
        )
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        check_file_isolated(recording)
        child_peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        print(f"strict reader's child process (not the TUI): peak {child_peak / 1024:.0f} MB")
        return 0 if tui / empty <= 1.5 and big_rss - small_rss < 100 * 1024 else 1
    finally:
        tmux("kill-session", "-t", keeper)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
