"""The strict reader's verdict on a whole recording file: valid, or every problem with its line.

Small files are scanned in the calling thread. A big file is scanned in a child process
(`python -m tui.model.verdict PATH`): the strict reader holds the whole file and every parsed
event in memory (about 3.5x the file size), which must not stay in the TUI's process, and a child
leaves the UI thread its interpreter lock.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tui
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import scan_facts
from openprogram.providers.recording.scan_facts import INVALID, ScanFacts, ScanProblem
from openprogram.text import plural

IN_PROCESS_LIMIT = 4 << 20
"""Files up to this size are scanned in-process; bigger ones in a child process."""
POLL_SECONDS = 0.1


@dataclass(frozen=True)
class Verdict:
    """What the strict reader says about the file at `path`: the library's `ScanFacts`."""

    path: Path
    facts: ScanFacts

    @property
    def valid(self) -> bool:
        """True when the strict reader accepts the file."""
        return self.facts.valid

    @property
    def problems(self) -> tuple[ScanProblem, ...]:
        """Every problem found (line, call, reason)."""
        return self.facts.problems

    @property
    def unfinished_calls(self) -> tuple[int, ...]:
        """Calls the recording stopped in the middle of."""
        return self.facts.unfinished_calls

    def problems_by_line(self) -> dict[int, ScanProblem]:
        """The first problem reported for each 1-based line number."""
        found: dict[int, ScanProblem] = {}
        for problem in self.problems:
            if problem.line_number is not None:
                found.setdefault(problem.line_number, problem)
        return found

    def damaged_calls(self) -> frozenset[int]:
        """Call indexes that any problem names."""
        return self.facts.damaged_calls()

    def headline(self) -> str:
        """`Invalid: the strict reader found 2 problems; damaged: call 3 (marked in red)`."""
        found = plural(self.facts.problem_count, "problem")
        text = f"{INVALID.capitalize()}: the strict reader found {found}"
        damaged = sorted(self.damaged_calls())
        if damaged:
            calls = ", ".join(map(str, damaged))
            text += f"; damaged: call{'s' if len(damaged) != 1 else ''} {calls} (marked in red)"
        return text

    def to_json(self) -> str:
        """The verdict as JSON (what the child process prints)."""
        return self.facts.model_dump_json()

    @classmethod
    def from_json(cls, path: Path, text: str) -> Verdict:
        """Rebuild a verdict printed by `to_json`."""
        return cls(path, ScanFacts.model_validate_json(text))


def check_file(path: str | os.PathLike[str]) -> Verdict:
    """Scan `path` with the strict reader in this thread (a file that cannot be opened is one problem)."""
    target = Path(path)
    try:
        facts = scan_facts(target)  # memory bounded by the longest line, not the file
    except RecordingFileError as exc:
        return Verdict(target, ScanFacts.refused(0, exc.reason))
    return Verdict(target, facts)


def check_file_isolated(
    path: str | os.PathLike[str], cancelled: Callable[[], bool] | None = None
) -> Verdict | None:
    """The same verdict, computed in a child process so its memory is returned when it exits.

    Returns None when `cancelled` turned true before the child finished (the child is killed).
    """
    target = Path(path)
    source_root = str(Path(tui.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [source_root, env.get("PYTHONPATH")]))
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "tui.model.verdict", str(target)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
    except OSError:
        return check_file(target)
    while True:
        try:
            stdout, stderr = child.communicate(timeout=POLL_SECONDS)
            break
        except subprocess.TimeoutExpired:
            if cancelled is not None and cancelled():
                child.kill()
                child.communicate()
                return None
    try:
        return Verdict.from_json(target, stdout)
    except ValueError:
        # The child could not report (killed, out of memory...): say so rather than guess.
        detail = stderr.strip().splitlines()[-1:] or [f"exit code {child.returncode}"]
        return Verdict(target, ScanFacts.refused(0, f"validation did not finish ({detail[0]})"))


def check_recording(
    path: str | os.PathLike[str],
    size: int | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Verdict | None:
    """The verdict on `path`, in this thread for small files and in a child process for big ones."""
    if size is None:
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
    if size <= IN_PROCESS_LIMIT:
        return check_file(path)
    return check_file_isolated(path, cancelled)


def main(argv: list[str] | None = None) -> int:
    """Print the verdict on one file as JSON (used by `check_file_isolated`)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tui.model.verdict PATH", file=sys.stderr)
        return 2
    print(check_file(args[0]).to_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
