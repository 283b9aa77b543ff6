"""Run every benchmark in `bench/`, one after another, and list which targets each met.

    python bench/run_all.py [--quick] [--only NAME ...] [--skip NAME ...]

`--quick` is passed on to each script that has it. Every script's own output is shown as it runs;
at the end the lines that name a target are gathered in one summary. Exit status 0 unless a
script exited non-zero (the other scripts exit 0 whatever their figures; `tui_first_rows.py` and
`tui_diff.py` exit 1 when their target is missed).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = (
    "record_overhead",
    "call_cost",
    "file_size",
    "replay_throughput",
    "recordings_list",
    "tui_first_rows",
    "tui_sizes",
    "tui_diff",
    "peers",
)


def scripts() -> list[str]:
    """Every benchmark script here, in `ORDER` first, then any others by name."""
    found = sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_"))
    found.remove("run_all")
    return [name for name in ORDER if name in found] + [n for n in found if n not in ORDER]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="pass --quick to every script")
    parser.add_argument("--only", nargs="*", default=None, help="run only these scripts")
    parser.add_argument("--skip", nargs="*", default=[], help="do not run these scripts")
    args = parser.parse_args()
    names = [n for n in scripts() if (args.only is None or n in args.only) and n not in args.skip]
    summary: list[str] = []
    failed: list[str] = []
    for name in names:
        command = [sys.executable, str(HERE / f"{name}.py")]
        if args.quick and "--quick" in (HERE / f"{name}.py").read_text():
            command.append("--quick")
        print(f"\n$ {' '.join(command[1:])}", flush=True)
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert child.stdout is not None
        for line in child.stdout:
            print(line, end="", flush=True)
            if "TARGET" in line or ("target" in line.lower() and "ratio" in line):
                summary.append(f"{name}: {line.strip()}")
        if child.wait() != 0:
            failed.append(name)
            summary.append(f"{name}: exited {child.returncode}")
        print(f"   ({name} took {time.perf_counter() - start:.1f} s)", flush=True)
    print("\n== summary")
    for line in summary:
        print(f"   {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
