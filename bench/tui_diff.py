"""How fast `openprogram-tui diff A B` shows its first screen for two 100 MB recordings that differ
in one call, against opening one of them (`openprogram-tui A`, first rows) and an empty Textual app.

Same method as `tui_first_rows.py`: real processes in fresh tmux windows of 120x40 on an already
running tmux server, timed from the window's creation until `tmux capture-pane` shows the text:

- baseline: an empty Textual app;
- one file: `openprogram-tui A`, until its first call row is on screen;
- the diff: `openprogram-tui diff A B`, until its first screen is drawn: the first call rows (the
  calls both files have, listed as they are indexed, before they are compared), as the one file is
  timed to its first rows; and, in the same runs, until the first call's requests are side by side
  (the comparison's modules imported, the first call compared and shown).

Then, in one more window, the time until the changed call is listed and shown (the view goes to the
first call that differs by itself) and until every call and answer is compared.

Runs alternate (one warm-up round, not counted); medians of `--runs` runs. Target (issue #18):
the diff's first screen within 2x of opening one file.

    python bench/tui_diff.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from tui_first_rows import CALLS, Window, generate, prepare_run, tmux, tui_command

CHANGED_CALL = 120
MARKER = b'"call_index":%d,"context":{"messages":[{"content":"message 0 ' % CHANGED_CALL


def changed_copy(source: Path, target: Path) -> None:
    """`source` with one word of call `CHANGED_CALL`'s first message changed (same length)."""
    data = source.read_bytes()
    at = data.index(MARKER) + len(MARKER)
    target.write_bytes(data[:at] + b"CHANGED " + data[at + 8 :])
    target.chmod(0o600)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each program")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is required", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="optui-bench-diff-"))
    keeper = f"optui-bench-diff-server-{os.getpid()}"
    try:
        a, b = work / "a.jsonl", work / "b.jsonl"
        generate(a)
        changed_copy(a, b)
        print(f"recordings: 2 x {a.stat().st_size / 1e6:.1f} MB, {CALLS} calls, one call differs")
        empty_app, env = prepare_run(work)
        tmux("new-session", "-d", "-s", keeper, "sleep 3600")
        subjects = {
            "empty Textual app, first paint": (
                [sys.executable, str(empty_app)],
                ("empty app ready",),
            ),
            "openprogram-tui A, first rows": (
                [*tui_command(), str(a)],
                ("#0", "openai/gpt-4o-mini"),
            ),
            "openprogram-tui diff A B, first screen": (
                [*tui_command(), "diff", str(a), str(b)],
                ("calls", "#0 ", "#9 "),
            ),
        }
        side_by_side = "openprogram-tui diff A B, first requests side by side"
        times: dict[str, list[float]] = {name: [] for name in [*subjects, side_by_side]}
        for run in range(args.runs + 1):
            for name, (command, texts) in subjects.items():
                window = Window(command, env)
                try:
                    seconds = window.wait_for(*texts)
                    later = window.wait_for("A · call #") if name.endswith("screen") else None
                finally:
                    window.close()
                if run:
                    times[name].append(seconds)
                    if later is not None:
                        times[side_by_side].append(later)
        window = Window([*tui_command(), "diff", str(a), str(b)], env)
        try:
            changed = window.wait_for("≠ request (1 field)", f"call {CHANGED_CALL} ›")
            whole = window.wait_for("tokens")  # the title's token totals: every answer compared
        finally:
            window.close()
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, values in times.items():
            listed = ", ".join(f"{value * 1000:.0f}" for value in values)
            print(f"{name}: median {medians[name] * 1000:.0f} ms  ({listed})")
        names = list(subjects)
        one, diff = medians[names[1]], medians[names[2]]
        print(f"ratio diff / one file: {diff / one:.2f}x (target <= 2x)")
        print(f"ratio first requests side by side / one file: {medians[side_by_side] / one:.2f}x")
        print(
            f"then: the changed call {CHANGED_CALL} listed and shown after {changed * 1000:.0f} ms; "
            f"every call and answer compared after {whole * 1000:.0f} ms"
        )
        print(f"ratio diff / empty app: {diff / medians[names[0]]:.2f}x")
        return 0 if diff / one <= 2 else 1
    finally:
        tmux("kill-session", "-t", keeper)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
