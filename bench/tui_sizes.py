"""`openprogram-tui FILE` at 100 MB, 1 GB and 5 GB: first rows, peak memory, key latency.

For each size, one recording of `tui_first_rows.py`'s calls (a 40 KB request and 500 events each,
repeated with the call index changed: a 5 GB file is written at disk speed) and, in fresh 120x40
tmux windows as `tui_first_rows.py` starts them:

- **first rows**: the TUI until its first call row is on screen, against an empty Textual app
  started the same way, alternating, one warm-up each, medians of `--runs` (ratio; target <= 1.5x);
- **peak memory** of the whole app: the summed VmRSS of the TUI's process and all its children (the
  strict reader runs in a child process for big files), sampled from `/proc` every 10 ms from the
  start until the strict verdict is on screen (target <= 300 MB at 5 GB);
- **key latency while indexing** (the sizes in `--latency-sizes`, default 1G): once the call
  detail is drawn (the screen's one-time build after the first rows, timed on its own), `j` sent
  while the title still says `indexing`, timed until the call list's cursor is on the next row;
  sessions are started again until `--samples` keys were timed while the index was being built
  (p50, p95; target p95 <= 50 ms). Keys are sent one at a time, each after the previous one showed.
  The same keys are timed once the file is checked, as the baseline of the same run (the time a
  key takes on this machine, tmux and the polling included).

`--sizes session-long` (issue #39): a long agent session recorded through the real recorder by
`long_session.py` (1,000 calls, each adding a 4 KB tool result) and its twin, the same conversation
sent in 10 calls (as many event rows). In fresh windows, for each file: the first rows; `End` until
the cursor is on the last call, and until that call's Request tab shows its caption (`New in this
call (since call N-1)`) and its new messages; sort by cost over all calls (`w` for the wide list, whose
heading has the cost column, then `o` six times, until the heading says `cost↓`); and
`openprogram-tui diff FILE COPY`, the copy with the last tool result sent changed (one word, in the
last call of both files), until the changed call is shown and until every call and answer is compared
(the totals line under the title). Medians of `--runs` after one warm-up round; target: each action on the
1,000-call file <= 2x the same action on the 10-call file.

    python bench/tui_sizes.py [--sizes 100M,1G,5G,session,session-long] [--keep-dir DIR]
                              [--runs 3] [--samples 40]

Files are generated once into `--keep-dir` (reused when the size matches), else into a temporary
directory removed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import tui_first_rows as single
from long_session import record_in_ten_calls, record_long_session
from tui_first_rows import (
    HEADER_ROW,
    Window,
    encoded_call,
    prepare_run,
    tmux,
    tui_command,
)

from openprogram.providers.recording.row_encoding import encode_row

CALL_MARK = 987_654_321
"""A call index no real file reaches, replaced in the encoded template by each call's index."""
UNITS = {"M": 10**6, "G": 10**9}
CURSOR_ROW = re.compile(r"m #(\d+) ")
"""The call list's cursor row is one styled run: its `#N` follows an escape code directly."""
FIRST_ROW = ("#0", "openai/gpt-4o-mini")
LIST_ROWS = single.SIZE[1] - 4
"""Call rows the list shows at once (past the last, a move scrolls the list)."""
DETAIL_DRAWN = "Request JSON"
"""On screen once the call detail is built and shows the first call (after the first rows)."""
SAMPLE_SECONDS = 0.01
MAX_SESSIONS = 12
"""Sessions started at most to time keys while indexing (a small file is indexed too fast)."""
TARGET_RATIO, TARGET_PEAK_MB, TARGET_P95_MS = 1.5, 300, 50


def parse_size(text: str) -> int:
    """`100M`, `1G`, `5G` as bytes (decimal units)."""
    return int(float(text[:-1]) * UNITS[text[-1].upper()])


def generate(path: Path, size: int) -> int:
    """Write about `size` bytes of whole calls to `path` (kept when it already has them); returns calls."""
    template = encoded_call(CALL_MARK)
    calls = max(1, math.ceil(size / len(template)))
    header = encode_row(HEADER_ROW)
    marker = b'"call_index":%d' % CALL_MARK
    expected = len(header) + sum(
        len(template) + len(str(n)) - len(str(CALL_MARK)) for n in range(calls)
    )
    if path.exists() and path.stat().st_size == expected:
        return calls
    temporary = path.with_suffix(".partial")
    with temporary.open("wb", buffering=8 << 20) as out:
        out.write(header)
        for call in range(calls):
            out.write(template.replace(marker, b'"call_index":%d' % call))
    temporary.chmod(0o600)
    temporary.rename(path)
    return calls


SESSION = "session"
"""The `--sizes` label of a 200-call agent session recorded through the real recorder."""
SESSION_CALLS = 200


def record_session(path: Path) -> int:
    """Record a 200-call session into `path` (scripted provider, a scripted clock: each call 80 ms,
    one 30 s; the program 0.5 s between calls), as issue #30's session; returns its calls."""
    import asyncio

    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.recording.writer import RecordingSink
    from openprogram.providers.scripted import ScriptedProvider, ScriptedResponse, echo_responder

    if path.exists():
        return SESSION_CALLS
    now = [0.0]

    def clock() -> float:
        now[0] += 0.01
        return now[0]

    def responder(context: Context, call_number: int) -> ScriptedResponse:
        if call_number == SESSION_CALLS * 2 // 3:
            now[0] += 30.0
        return echo_responder(context, call_number)

    model = Model(id="gpt-4o-mini", name="GPT-4o mini", api="scripted", provider="openai")
    sink = RecordingSink(path, clock=clock)
    provider = RecordingProvider(ScriptedProvider(responder=responder), sink)

    async def run() -> None:
        for n in range(SESSION_CALLS):
            context = Context(messages=[UserMessage(content=f"question {n}")])
            async for _ in provider.stream(model, context):
                pass
            now[0] += 0.5

    asyncio.run(run())
    sink.close()
    return SESSION_CALLS


SESSION_LONG = "session-long"
"""The `--sizes` label of issue #39's long session against its 10-call twin (`long_session.py`)."""
LONG_CALLS, LONG_RESULT = 1000, 4096
CHANGED_RESULT = b"distinct text of result %d" % (LONG_CALLS - 2)
"""The last tool result sent (in the last call of both files), changed in the diff's copy."""
SORT_KEYS = 6
"""`o` presses from file order to cost (duration, first token, gap, tokens in, tokens out, cost)."""
TARGET_LONG_RATIO = 2.0


def long_session_files(folder: Path) -> dict[str, tuple[Path, Path, int]]:
    """The long session and its 10-call twin in `folder` (recorded once, kept when there), each
    with a copy whose last tool result sent has one word changed: {label: (file, copy, calls)}."""
    files: dict[str, tuple[Path, Path, int]] = {}
    for label, record, calls in (
        (f"{LONG_CALLS:,} calls", record_long_session, LONG_CALLS),
        ("10 calls", record_in_ten_calls, 10),
    ):
        path = folder / f"tui-sizes-{SESSION_LONG}-{calls}.jsonl"
        copy = path.with_name(f"{path.stem}-changed.jsonl")
        if not path.exists():
            record(path, LONG_CALLS, LONG_RESULT)
        if not copy.exists():
            data = path.read_bytes()
            at = data.index(CHANGED_RESULT)
            copy.write_bytes(data[:at] + b"CHANGED!" + data[at + len(b"distinct") :])
            copy.chmod(0o600)
        files[label] = (path, copy, calls)
    return files


def wait_for_cursor(window: Window, row: int, since: float) -> float:
    """Seconds from `since` until the call list's cursor is on call `row`."""
    deadline = time.perf_counter() + single.TIMEOUT
    while time.perf_counter() < deadline:
        if cursor_row(window)[0] == row:
            return time.perf_counter() - since
        time.sleep(single.POLL)
    raise TimeoutError(f"{window.name}: the cursor is not on #{row}:\n{window.screen()}")


def session_actions(path: Path, calls: int, env: dict[str, str]) -> dict[str, float]:
    """One window on `path`: seconds to the first rows, then (once checked) `End` to the last call
    and to its Request tab's caption, then sort by cost over all calls."""
    last = calls - 1
    window = Window([*tui_command(), str(path)], env)
    try:
        figures = {"first rows": window.wait_for("#0 ", "bench/bench-model")}
        window.wait_for("✓ valid")
        sent = time.perf_counter()
        window.keys("End")
        figures["End: cursor on the last call"] = wait_for_cursor(window, last, sent)
        figures["End: its Request tab and caption"] = window.wait_for(
            f"New in this call (since call {last - 1})",
            f"earlier messages, same as call {last - 1}",
            "Tool result · read_file",
            since=sent,
        )
        window.keys("w")
        window.wait_for("in/out", "cost ")
        sent = time.perf_counter()
        window.keys(*["o"] * SORT_KEYS)
        figures["sort by cost"] = window.wait_for("cost↓", since=sent)
    finally:
        window.close()
    return figures


def diff_actions(path: Path, copy: Path, calls: int, env: dict[str, str]) -> dict[str, float]:
    """`openprogram-tui diff FILE COPY`: seconds until the changed (last) call is shown, and until
    every call and answer is compared (the totals line, `A → B  in the model …`)."""
    window = Window([*tui_command(), "diff", str(path), str(copy)], env)
    try:
        return {
            "diff: changed call shown": window.wait_for(
                "≠ request (1 field)", f"call {calls - 1} ›"
            ),
            "diff: every call compared": window.wait_for("A → B  in the model"),
        }
    finally:
        window.close()


def report_long_session(folder: Path, env: dict[str, str], runs: int) -> bool:
    """Time every action on the long session and on its twin, alternating; print medians, ratios
    and one target line per action."""
    started = time.perf_counter()
    files = long_session_files(folder)
    print(f"\n== {SESSION_LONG} (ready in {time.perf_counter() - started:.1f} s)")
    for label, (path, _, calls) in files.items():
        print(f"{label}: {path.stat().st_size / 1e6:.2f} MB, {calls:,} calls")
    times: dict[str, dict[str, list[float]]] = {label: {} for label in files}
    for run in range(runs + 1):
        for label, (path, copy, calls) in files.items():
            figures = session_actions(path, calls, env) | diff_actions(path, copy, calls, env)
            if run:  # the first round warms caches and is not counted
                for action, seconds in figures.items():
                    times[label].setdefault(action, []).append(seconds)
    long_label, short_label = files
    met = True
    for action, long_times in times[long_label].items():
        long, short = statistics.median(long_times), statistics.median(times[short_label][action])
        ratio = long / short
        runs_text = ", ".join(f"{t * 1000:.0f}" for t in long_times)
        print(
            f"{action}: {long_label} {long * 1000:.0f} ms ({runs_text}), "
            f"{short_label} {short * 1000:.0f} ms: {ratio:.2f}x"
        )
        print(
            f"TARGET {SESSION_LONG} {action}: {ratio:.2f}x the 10-call file "
            f"(<= {TARGET_LONG_RATIO:g}x): "
            + ("target met" if ratio <= TARGET_LONG_RATIO else "target NOT met")
        )
        met &= ratio <= TARGET_LONG_RATIO
    return met


def process_tree(root: int) -> list[int]:
    """`root` and every process below it (from `/proc/PID/task/TID/children`)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError):  # the task ended meanwhile
                todo += map(int, Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class TreeMemory:
    """Samples the summed resident set of a process tree in a thread; `peak_kb` is the largest sum."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak_kb = self.peak_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = process_tree(self.root)
            total = sum(rss_kb(pid) for pid in pids)
            if total > self.peak_kb:
                self.peak_kb, self.peak_processes = total, len(pids)
            self._stop.wait(SAMPLE_SECONDS)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak_kb


def cursor_row(window: Window) -> tuple[int | None, bool]:
    """The call number under the call list's cursor, and whether the title still says indexing."""
    screen = tmux("capture-pane", "-e", "-p", "-t", window.name)
    found = CURSOR_ROW.search(screen)
    return (int(found.group(1)) if found else None), "indexing" in screen


def time_keys(window: Window, latencies: list[float], samples: int, while_indexing: bool) -> None:
    """Send `j` until `samples` keys are timed (from sending to the cursor on the next row); with
    `while_indexing`, only keys shown while the title says `indexing` count, and it stops there."""
    while len(latencies) < samples:
        row, indexing = cursor_row(window)
        if row is None or (while_indexing and not indexing):
            return
        if row + 1 < LIST_ROWS and f"#{row + 1} " not in window.screen():
            time.sleep(0.01)  # no next row listed yet: `j` would not move
            continue
        sent = time.perf_counter()
        window.keys("j")
        deadline = sent + single.TIMEOUT
        while time.perf_counter() < deadline:
            now_row, indexing = cursor_row(window)
            if now_row == row + 1:
                break
            time.sleep(0.001)
        else:
            raise TimeoutError(f"the cursor did not move from #{row}")
        if indexing or not while_indexing:
            latencies.append((time.perf_counter() - sent) * 1000)


def key_latencies(
    command: list[str], env: dict[str, str], samples: int
) -> tuple[list[float], int, list[float]]:
    """Milliseconds from sending `j` to the cursor on the next row, while the index is built,
    once the screen is whole; and per session, the milliseconds from the first rows to the call
    detail (the screen's one-time build, which keys typed meanwhile wait for)."""
    latencies: list[float] = []
    builds: list[float] = []
    sessions = 0
    while len(latencies) < samples and sessions < MAX_SESSIONS:
        sessions += 1
        window = Window(command, env)
        try:
            first_rows = window.wait_for(*FIRST_ROW)
            builds.append((window.wait_for(DETAIL_DRAWN) - first_rows) * 1000)
            time_keys(window, latencies, samples, while_indexing=True)
        finally:
            window.close()
    return latencies, sessions, builds


def settled_latencies(command: list[str], env: dict[str, str], samples: int) -> list[float]:
    """The same keys once the file is indexed and checked: the baseline of the same run."""
    latencies: list[float] = []
    window = Window(command, env)
    try:
        window.wait_for("✓ valid")
        time_keys(window, latencies, samples, while_indexing=False)
    finally:
        window.close()
    return latencies


def report_latency(label: str, command: list[str], env: dict[str, str], samples: int) -> bool:
    """Time keys while `command` indexes its file; print p50/p95 and whether the target is met."""
    latencies, sessions, builds = key_latencies(command, env, samples)
    print(
        f"call detail drawn {statistics.median(builds):.0f} ms after the first rows "
        f"(median of {len(builds)}; keys typed before it wait for it)"
    )
    if not latencies:
        print(f"key latency {label}: the index finished before any key could be timed")
        return True
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    print(
        f"key latency while indexing ({len(latencies)} keys, {sessions} sessions): "
        f"p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {max(latencies):.0f} ms"
    )
    settled = settled_latencies(command, env, samples)
    s50, s95 = percentile(settled, 0.5), percentile(settled, 0.95)
    print(
        f"the same keys once the file is checked (baseline, {len(settled)} keys): "
        f"p50 {s50:.0f} ms, p95 {s95:.0f} ms, max {max(settled):.0f} ms; "
        f"while indexing / baseline: p95 {p95 / s95:.2f}x"
    )
    print(
        f"TARGET key latency p95 {label}: {p95:.0f} ms (<= {TARGET_P95_MS} ms): "
        + ("target met" if p95 <= TARGET_P95_MS else "target NOT met")
    )
    return p95 <= TARGET_P95_MS


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes",
        default="100M,1G,5G",
        help=(
            f"recording sizes (default 100M,1G,5G; `{SESSION}`: a recorded 200-call session; "
            f"`{SESSION_LONG}`: 1,000 calls x 4 KB results against the same in 10 calls)"
        ),
    )
    parser.add_argument("--keep-dir", type=Path, help="generate the recordings here and keep them")
    parser.add_argument("--runs", type=int, default=3, help="timed first-rows runs (default 3)")
    parser.add_argument(
        "--latency-sizes", default="1G", help="sizes to time keys at while indexing (default 1G)"
    )
    parser.add_argument("--samples", type=int, default=40, help="keys timed per size (default 40)")
    parser.add_argument("--quick", action="store_true", help="100M only, 1 run, 30 key samples")
    parser.add_argument(
        "--latency-only",
        action="store_true",
        help="time keys only (no first rows, no memory): to try a change to the key path",
    )
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.latency_sizes, args.runs, args.samples = "100M", "100M", 1, 30
    if shutil.which("tmux") is None:
        print("tmux is required", file=sys.stderr)
        return 2
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    latency_sizes = {s.strip().upper() for s in args.latency_sizes.split(",") if s.strip()}
    work = Path(tempfile.mkdtemp(prefix="optui-sizes-"))
    keep_dir = args.keep_dir or work
    keep_dir.mkdir(parents=True, exist_ok=True)
    keeper = f"optui-sizes-server-{os.getpid()}"
    single.TIMEOUT = 600.0  # a 5 GB file takes a while to check
    met = True
    try:
        empty_app, env = prepare_run(work)
        tmux("new-session", "-d", "-s", keeper, "sleep 3600")  # a warm server for every window
        for label in sizes:
            if label == SESSION_LONG:
                met &= report_long_session(keep_dir, env, args.runs)
                continue
            recording = keep_dir / f"tui-sizes-{label}.jsonl"
            started = time.perf_counter()
            if label == SESSION:
                calls = record_session(recording)
            else:
                calls = generate(recording, parse_size(label))
            print(
                f"\n== {label}: {recording.stat().st_size / 1e6:.1f} MB, {calls:,} calls"
                + ("" if label == SESSION else f", {calls * single.EVENTS_PER_CALL:,} events")
                + f" (ready in {time.perf_counter() - started:.1f} s)"
            )
            command = [*tui_command(), str(recording)]
            if args.latency_only:
                met &= report_latency(label, command, env, args.samples)
                continue
            empty_times, tui_times = [], []
            for run in range(args.runs + 1):
                for program, texts, times in (
                    ([sys.executable, str(empty_app)], ("empty app ready",), empty_times),
                    (command, FIRST_ROW, tui_times),
                ):
                    window = Window(program, env)
                    try:
                        seconds = window.wait_for(*texts)
                    finally:
                        window.close()
                    if run:
                        times.append(seconds)
            empty, tui = statistics.median(empty_times), statistics.median(tui_times)
            ratio = tui / empty
            print(
                f"first rows: {tui * 1000:.0f} ms vs empty app {empty * 1000:.0f} ms: "
                f"ratio {ratio:.2f}x (runs {', '.join(f'{t * 1000:.0f}' for t in tui_times)})"
            )
            print(
                f"TARGET first rows {label}: {ratio:.2f}x the empty app (<= {TARGET_RATIO}x): "
                + ("target met" if ratio <= TARGET_RATIO else "target NOT met")
            )
            met &= ratio <= TARGET_RATIO

            window = Window(command, env)
            memory = TreeMemory(window.pid())
            try:
                window.wait_for(*FIRST_ROW)
                indexed = window.wait_for(f"{calls:,} calls")
                verdict = window.wait_for("✓ valid")
            finally:
                peak_kb = memory.stop()
                window.close()
            peak_mb = peak_kb / 1024
            print(
                f"whole file indexed after {indexed:.2f} s, strict verdict after {verdict:.2f} s; "
                f"peak memory of the app and its children: {peak_mb:.0f} MB "
                f"({memory.peak_processes} processes at the peak)"
            )
            if label != SESSION and parse_size(label) >= 5 * UNITS["G"]:
                print(
                    f"TARGET peak memory {label}: {peak_mb:.0f} MB (<= {TARGET_PEAK_MB} MB): "
                    + ("target met" if peak_mb <= TARGET_PEAK_MB else "target NOT met")
                )
                met &= peak_mb <= TARGET_PEAK_MB

            if label.upper() in latency_sizes:
                met &= report_latency(label, command, env, args.samples)
        return 0 if met else 1
    finally:
        tmux("kill-session", "-t", keeper)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
