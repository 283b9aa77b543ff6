"""Every surface on the shapes that expand (issue #39): small valid files whose references, followed
naively, rebuild far more than the file holds.

Shapes (`tests/hostile_recordings.py`): fan-out (call 0 holds M short messages, calls 1..N-1 each
keep all of them) and chain (call i keeps every message of call i-1 and adds one). For each shape
and each surface, one fresh process: its peak RSS (`tests/peak_memory.py`: measured from a small
process, as a child's peak starts at its parent's) above the same surface's on a one-call file (the
interpreter and its imports), against the file's size (target ≤ 10×), and its wall time against a
plain `json.loads` of every line of the same file measured in this process (target ≤ 20×).
`diff` reads two files (the file and its copy): its figures are against one file, as the target
says, and also against the two it reads (`÷ inputs`), the cost of reading its input.

Surfaces: `show`, `show --json`, `show --html`, `show --textconv`, `list`, `scan`,
`check ID -- CMD` (a program making no call: the read of the recording is what is measured),
`diff A B` (the file against a copy; also `--json` and `--html`), opening a `ReplayProvider`, and the TUI walked by
`tests/tui_walk.py` (open, `G`, the last call's Request tab and caption, sort by cost, `t`).

    python bench/hostile_files.py [--quick] [--shapes fan-out:3000x3000,chain:8000] [--only show,tui]
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from _common import REPO_ROOT, banner, median, parse_args, scratch_dir

from tests.hostile_recordings import write_chain, write_fan_out
from tests.peak_memory import peak_rss

Surface = Callable[[Path, Path, Path], list[str]]
"""(the recording, a copy of it, the state directory) -> the command line."""


def _cli(*args: str) -> Surface:
    def line(path: Path, copy: Path, home: Path) -> list[str]:
        words = [
            str(path)
            if a == "FILE"
            else str(copy)
            if a == "COPY"
            else str(home / "page.html")
            if a == "HTML"
            else a
            for a in args
        ]
        return [sys.executable, "-m", "openprogram", "recordings", *words]

    return line


def _replay_open(path: Path, copy: Path, home: Path) -> list[str]:
    code = (
        "import sys\nfrom openprogram.providers.replay import ReplayProvider\n"
        "ReplayProvider(sys.argv[1])\n"
    )
    return [sys.executable, "-c", code, str(path)]


def _tui(path: Path, copy: Path, home: Path) -> list[str]:
    return [sys.executable, "-m", "tests.tui_walk", str(path)]


READS_TWO = {"diff A B", "diff --json", "diff --html"}
"""The surfaces whose input is two files."""

SURFACES: dict[str, Surface] = {
    "show": _cli("show", "FILE"),
    "show --json": _cli("show", "--json", "FILE"),
    "show --html": _cli("show", "--html", "HTML", "FILE"),
    "show --textconv": _cli("show", "--textconv", "FILE"),
    "list": _cli("list"),
    "scan": _cli("scan", "FILE"),
    "check ID -- CMD": _cli("check", "hostile", "--", sys.executable, "-c", "pass"),
    "diff A B": _cli("diff", "FILE", "COPY"),
    "diff --json": _cli("diff", "--json", "FILE", "COPY"),
    "diff --html": _cli("diff", "--html", "HTML", "FILE", "COPY"),
    "ReplayProvider open": _replay_open,
    "tui": _tui,
}


def run(argv: list[str], home: Path) -> tuple[float, int, int]:
    """(seconds, peak RSS in bytes, exit code) of one fresh process."""
    # Another tree given by PYTHONPATH is the one measured (before/after); this one's tests/
    # (the shapes, tests/tui_walk.py) come after it (a tree older than `tests/peak_memory.py`
    # needs that file copied in). Not run from this tree: `-m` and `-c` put the working
    # directory before PYTHONPATH.
    path = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(REPO_ROOT)]))
    env = {**os.environ, "OPENPROGRAM_HOME": str(home), "PYTHONPATH": path}
    started = time.perf_counter()
    peak, code = peak_rss(argv, env=env, cwd=home)  # measured from a small process
    return time.perf_counter() - started, peak, code


def json_loads_seconds(path: Path, runs: int) -> float:
    lines = path.read_bytes().splitlines()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        for line in lines:
            json.loads(line)
        samples.append(time.perf_counter() - started)
    return median(samples)


def place(directory: Path, name: str, writer: Callable[[Path], Path]) -> tuple[Path, Path, Path]:
    """The file as a managed recording `hostile` of a private state directory, and a copy."""
    home = directory / name
    managed = home / "recordings"
    managed.mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    path = writer(managed / "hostile.jsonl")
    copy = directory / f"{name}-copy.jsonl"
    shutil.copyfile(path, copy)
    return path, copy, home


def shapes(spec: str) -> dict[str, Callable[[Path], Path]]:
    made: dict[str, Callable[[Path], Path]] = {}
    for item in spec.split(","):
        kind, _, size = item.partition(":")
        if kind == "fan-out":
            calls, _, messages = size.partition("x")
            made[item] = lambda p, c=int(calls), m=int(messages): write_fan_out(p, c, m)
        elif kind == "chain":
            made[item] = lambda p, c=int(size): write_chain(p, c)
        else:
            raise SystemExit(f"unknown shape {kind!r} (fan-out:CALLSxMESSAGES or chain:CALLS)")
    return made


def main() -> None:
    args = parse_args(
        __doc__,
        lambda p: (
            p.add_argument("--shapes", default=None),
            p.add_argument("--only", default=None, help="surfaces, comma-separated"),
        ),
    )
    banner("hostile files: every surface, memory against the file, time against json.loads")
    spec = args.shapes or (
        "fan-out:1000x1000,chain:3000" if args.quick else "fan-out:3000x3000,chain:8000"
    )
    wanted = args.only.split(",") if args.only else list(SURFACES)
    met = True
    with scratch_dir("hostile") as directory:
        small_path, small_copy, small_home = place(directory, "one", lambda p: write_chain(p, 1))
        baseline = {
            name: run(SURFACES[name](small_path, small_copy, small_home), small_home)
            for name in wanted
        }
        for shape, writer in shapes(spec).items():
            path, copy, home = place(directory, shape.replace(":", "-"), writer)
            size = path.stat().st_size
            loads = json_loads_seconds(path, 3)
            print(f"\n{shape}: {size / 1e6:.2f} MB, json.loads of every line {loads * 1e3:.0f} ms")
            print("  (time and memory above the same surface on a one-call file)")
            for name in wanted:
                seconds, peak, code = run(SURFACES[name](path, copy, home), home)
                above = max(peak - baseline[name][1], 0)
                memory = above / size
                time_ratio = max(seconds - baseline[name][0], 0) / loads
                ok = memory <= 10 and time_ratio <= 20
                met = met and ok
                inputs = (
                    f"  (÷ inputs: {time_ratio / 2:.1f}× loads, {memory / 2:.1f}× files)"
                    if name in READS_TWO
                    else ""
                )
                print(
                    f"  {name:22} exit {code:3}  {seconds:6.2f} s, +{time_ratio:6.1f}× loads  "
                    f"peak +{above / 1e6:7.1f} MB ({memory:5.1f}× file)"
                    f"{'' if ok else '  <- over'}{inputs}"
                )
    print()
    print(
        f"TARGET hostile: every surface ≤ 10× the file in memory and ≤ 20× json.loads in time: "
        f"{'target met' if met else 'target NOT met'}"
    )


if __name__ == "__main__":
    main()
