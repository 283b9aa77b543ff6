"""The peak memory of a command, measured from a small process of its own.

A child's peak resident memory (`ru_maxrss`) starts at its parent's: Linux keeps the peak across
`exec`, so every command started from a large process (a pytest worker that built its files, a
benchmark) would seem to need at least what that process once held, and a memory bound measured
so could not fail. The command is started by a fresh interpreter that holds ~10 MB, and that
interpreter reports its child's peak.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

_MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, code)\n"
)


def peak_rss(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: Path, timeout: float = 600
) -> tuple[int, int]:
    """(peak resident memory in bytes, exit code) of `argv` run alone (its output discarded)."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv],
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    peak, code = done.stdout.split()
    return int(peak), int(code)
