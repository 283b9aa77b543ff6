"""The strict reader's verdict on a whole recording file: valid, or every problem with its line.

Small files are scanned in the calling thread. A big file is scanned in a child process
(`python -m tui.model.verdict PATH`): the check (`streamed_facts`: every row parsed and validated,
one call at a time, nothing kept but counts and the first problems) takes the interpreter for
seconds to minutes, and a child leaves the UI thread its interpreter lock.

A check that cannot finish says why (`stopped`: the file changed while it was read, or memory ran
out) and is never taken for a verdict on the file. While the file is followed, what a recorder
still writing looks like (a call without `call_end`, a half-written last line) is a call in
progress, not a problem.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

import tui
from openprogram.providers.recording.errors import RecordingFileError, RecordingProblem
from openprogram.providers.recording.reader import streamed_facts
from openprogram.providers.recording.scan_facts import INVALID, ScanFacts
from openprogram.recordings import stamp_of
from openprogram.text import plural
from tui.model.call_rows import format_headline
from tui.model.file_stamp import FileChange, compare

IN_PROCESS_LIMIT = 4 << 20
"""Files up to this size are scanned in-process; bigger ones in a child process."""
POLL_SECONDS = 0.1
FILE_CHANGED = "file changed"
"""Why a check stopped when the file's size, mtime or inode differ from when it started."""
OUT_OF_MEMORY = "out of memory"


class Verdict(BaseModel):
    """What the strict reader says about the file at `path`: the library's `ScanFacts`. The child
    process of `check_file_isolated` prints it as JSON and the parent reads it back."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    path: Path
    facts: ScanFacts
    stopped: str | None = None
    """Why the check did not finish (`file changed`, `out of memory`): then nothing is known."""
    following: bool = False
    """The file is followed: calls without `call_end` are in progress, not problems."""

    @classmethod
    def stopped_by(cls, path: Path, reason: str) -> Verdict:
        """A check that could not finish, and why."""
        return cls(path=path, facts=ScanFacts(size=0), stopped=reason)

    def while_following(self, following: bool) -> Verdict:
        """The same facts, read as a file being written (`following`) or as a finished one."""
        return self.model_copy(update={"following": following})

    @property
    def problem_count(self) -> int:
        """Problems found, counting those beyond the ones kept."""
        if self.stopped is not None:
            return 0
        return self.facts.problem_count - (len(self.facts.problems) - len(self.problems))

    @property
    def valid(self) -> bool:
        """True when the strict reader accepts the file (so far, while following)."""
        return self.stopped is None and self.problem_count == 0

    @property
    def problems(self) -> tuple[RecordingProblem, ...]:
        """Every problem found (line, call, reason); none when the check stopped."""
        if self.stopped is not None:
            return ()
        if self.following:
            return tuple(p for p in self.facts.problems if not p.write_in_progress)
        return self.facts.problems

    @property
    def unfinished_calls(self) -> tuple[int, ...]:
        """Calls the recording stopped in the middle of (none while it is being written)."""
        return () if self.following or self.stopped else self.facts.unfinished_calls

    @property
    def calls_in_progress(self) -> tuple[int, ...]:
        """Calls without `call_end` in a file being written."""
        return self.facts.unfinished_calls if self.following and not self.stopped else ()

    def problems_by_line(self) -> dict[int, RecordingProblem]:
        """The first problem reported for each 1-based line number."""
        found: dict[int, RecordingProblem] = {}
        for problem in self.problems:
            if problem.line_number is not None:
                found.setdefault(problem.line_number, problem)
        return found

    def damaged_calls(self) -> frozenset[int]:
        """Call indexes that any problem names."""
        return self.facts.damaged_calls()

    def headline(self) -> str:
        """`Invalid: the strict reader found 2 problems; damaged: call 3 (marked in red)`, or
        what a file of another format is (not invalid: not checked)."""
        if self.stopped is not None:
            return f"Check stopped: {self.stopped}; validity unknown until it runs again"
        other_format = format_headline(self.facts.format_version)
        if other_format is not None:
            return other_format
        found = plural(self.problem_count, "problem")
        text = f"{INVALID.capitalize()}: the strict reader found {found}"
        damaged = sorted(self.damaged_calls())
        if damaged:
            calls = ", ".join(map(str, damaged))
            text += f"; damaged: call{'s' if len(damaged) != 1 else ''} {calls} (marked in red)"
        return text

    def to_json(self) -> str:
        """The verdict as JSON (what the child process prints)."""
        return self.model_dump_json(exclude={"following"})

    @classmethod
    def from_json(cls, path: Path, text: str) -> Verdict:
        """Rebuild a verdict printed by `to_json` for `path`; raises `ValueError` for anything else."""
        return cls.model_validate_json(text).model_copy(update={"path": path})


def check_file(path: str | os.PathLike[str]) -> Verdict:
    """Scan `path` with the strict reader in this thread (a file that cannot be opened is one problem).

    The file's stamp is taken before and after: a file written to meanwhile was read in a state
    no one wrote, so the check says it stopped instead of judging it."""
    target = Path(path)
    before = stamp_of(target)
    try:
        facts = streamed_facts(target)  # memory bounded by the longest line, not the file
    except RecordingFileError as exc:
        return Verdict(path=target, facts=ScanFacts.refused(0, exc.reason))
    except MemoryError:
        return Verdict.stopped_by(target, OUT_OF_MEMORY)
    if before is None or compare(before, stamp_of(target)) is not FileChange.SAME:
        return Verdict.stopped_by(target, FILE_CHANGED)
    return Verdict(path=target, facts=facts)


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
        # The child could not report: say why it stopped, never that the file is not valid.
        last = stderr.strip().splitlines()[-1:]
        if child.returncode == -signal.SIGKILL or (last and "MemoryError" in last[0]):
            return Verdict.stopped_by(target, OUT_OF_MEMORY)
        detail = last[0] if last else f"exit code {child.returncode}"
        return Verdict.stopped_by(target, f"the checker failed ({detail})")


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
