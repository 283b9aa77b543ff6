"""Check a recording against the current code: `openprogram recordings check` and the TUI's check.

The program runs in a fresh child process whose state directory is a private temporary one, so it
never sees the user's next-start configuration; replay is forced on the recording there. Replay in
the child reports each consumed call and any mismatch to a file the parent owns, so a mismatch is
reported even when the program catches the exception and exits 0.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.check_protocol import (
    AbsorbedDifference,
    AbsorbedRow,
    AcceptedCall,
    AcceptedRow,
    ChildRunSpec,
    ConsumedRow,
    FaultRow,
    MismatchRow,
    ReportReader,
    RerecordSpec,
    RulesRow,
    write_run_spec,
)
from openprogram.providers.recording.errors import RecordingFileError, RecordingProblem
from openprogram.providers.recording.file_policy import require_usable
from openprogram.providers.recording.mismatch import MismatchReport
from openprogram.providers.recording.reader import Recording, read_header, verify_recording
from openprogram.providers.recording.redaction import remove_secret_text
from openprogram.providers.recording.row_models import HeaderRow
from openprogram.providers.recording.rules import MatchingRules, validate_rules
from openprogram.providers.recording.rules_sources import (
    project_rules,
    rules_from_header,
)
from openprogram.providers.recording.store import locate_recording
from openprogram.providers.recording.stream_faults import StreamFault
from openprogram.recordings.child_process import die_with_parent
from openprogram.text import plural

CheckStatus = Literal["ok", "mismatch", "incomplete", "error"]
OUTPUT_TAIL_LINES = 20
"""How many last lines of the program's stdout and of its stderr a result keeps."""
OUTPUT_LINE_CHARS = 1_000
"""Longer output lines are cut to this many characters (and end in `…`)."""
POLL_SECONDS = 0.05
READER_JOIN_SECONDS = 2.0


class RecordingEntry(BaseModel):
    """How to run a recording's program again: the command line (redacted) and its working directory."""

    argv: list[str]
    cwd: str


class CheckProgress(BaseModel):
    """Calls consumed so far out of those recorded."""

    calls_consumed: int
    calls_recorded: int


class CheckResult(BaseModel):
    """What a check found; `status` is `ok`, `mismatch`, `incomplete` or `error`."""

    status: CheckStatus
    recording: str
    argv: list[str]
    cwd: str
    calls_recorded: int
    calls_consumed: int
    never_requested: list[int]
    duration_seconds: float
    exit_code: int | None
    mismatch: MismatchReport | None
    """The mismatch's kind, call, event, field path and tokens, both values and requests."""
    error: str | None
    stderr_tail: list[str]
    stdout_tail: list[str] = []
    """The program's last lines of standard output (a test runner reports its failures there)."""
    problem: RecordingProblem | None = None
    """When the recording itself cannot be used: the strict reader's line, call and reason."""
    rules: list[str] = []
    """The matching rules in force, each with where it comes from."""
    absorbed: list[AbsorbedDifference] = []
    """Every request difference the rules absorbed, per call."""
    accepted: list[AcceptedCall] = []
    """In accept mode (`openprogram recordings accept`): each call whose new request was kept."""
    fault: FaultRow | None = None
    """With a stream fault (`check --fault`): where replay broke the stream; None when the
    program never read that far."""

    def json_value(self) -> dict[str, Any]:
        """The `--json` form: every field, the absorbing rules as their one-line description
        (`rule`, `source`) as before, without the structured rule the TUI reads in process (nor
        `fault`: `check --fault` reports its runs in its own JSON), and the mismatch and the
        accepted calls as their `json_value` gives them."""
        value = self.model_dump(
            mode="json",
            exclude={"absorbed": {"__all__": {"absorbed_by", "path_tokens"}}, "fault": True},
        )
        if self.mismatch is not None:
            value["mismatch"] = self.mismatch.json_value()
        value["accepted"] = [call.json_value() for call in self.accepted]
        return value

    def absorbed_summary(self) -> str | None:
        """`3 differences in 2 calls by the rules` (None when the rules absorbed nothing)."""
        if not self.absorbed:
            return None
        calls = len({a.call_index for a in self.absorbed})
        return f"{plural(len(self.absorbed), 'difference')} in {plural(calls, 'call')} by the rules"

    def summary(self) -> str:
        """One line a person reads first."""
        if self.status == "ok":
            return f"ok: {self.calls_consumed}/{self.calls_recorded} calls replayed and consumed"
        if self.status == "mismatch" and self.mismatch:
            return self.mismatch.one_line
        if self.status == "incomplete":
            return (
                f"incomplete: the program made {self.calls_consumed} of "
                f"{self.calls_recorded} recorded calls"
            )
        return f"error: {self.error}"


class CheckUsageError(OpenProgramError, ValueError):
    """The check cannot start: no command to run, or an unusable recording."""


def check_refused(selector: str, argv: Sequence[str] | None, error: BaseException) -> CheckResult:
    """The result of a check that could not start: status `error`, nothing run."""
    problem = error.problem if isinstance(error, RecordingFileError) else None
    return CheckResult(
        status="error",
        recording=str(getattr(error, "path", None) or selector),
        argv=list(argv or ()),
        cwd=os.getcwd(),
        calls_recorded=0,
        calls_consumed=0,
        never_requested=[],
        duration_seconds=0.0,
        exit_code=None,
        mismatch=None,
        error=" ".join(str(error).split()),
        stderr_tail=[],
        problem=problem,
    )


def entry_of(recording: Path | Recording | HeaderRow) -> RecordingEntry | None:
    """The `entry` header metadata of a recording (a path, whose header alone is read, a
    recording already read, or its header), when it has a usable one."""
    if isinstance(recording, HeaderRow):
        header = recording
    else:
        header = recording.header if isinstance(recording, Recording) else read_header(recording)
    raw = (header.model_extra or {}).get("entry")
    try:
        return RecordingEntry.model_validate(raw) if raw else None
    except ValueError:
        return None


CREDENTIAL_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_CREDENTIALS")
"""Environment variables ending so are left out of a replaying child's environment."""


def child_environment(home: Path, *, live: bool) -> dict[str, str]:
    """The child's environment: ours with its private state directory and, unless some calls go
    live (rerecord), without credential variables: replay never needs them."""
    env = {
        name: value
        for name, value in os.environ.items()
        if live or not name.upper().endswith(CREDENTIAL_SUFFIXES)
    }
    env["OPENPROGRAM_HOME"] = str(home)
    return env


class OutputTail:
    """The last `OUTPUT_TAIL_LINES` lines of a child's output stream, read to its end in a thread
    so the child never blocks on a full pipe; memory stays bounded whatever the child writes."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._lines: deque[str] = deque(maxlen=OUTPUT_TAIL_LINES)
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _keep(self, line: bytes, cut: bool) -> None:
        text = line.decode("utf-8", errors="replace").rstrip("\r")
        self._lines.append(f"{text[:OUTPUT_LINE_CHARS]}…" if cut else text)

    def _read(self, stream: IO[bytes]) -> None:
        limit = OUTPUT_LINE_CHARS * 4  # bytes: enough for that many characters of UTF-8
        partial, cut = b"", False
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(65_536):  # type: ignore[attr-defined]
                *ended, rest = chunk.split(b"\n")
                for piece in ended:
                    whole = partial if cut else partial + piece
                    self._keep(whole[:limit], cut or len(whole) > limit)
                    partial, cut = b"", False
                if not cut:
                    partial += rest
                    if len(partial) > limit:
                        partial, cut = partial[:limit], True
        if partial or cut:
            self._keep(partial, cut)
        stream.close()

    def lines(self, deadline: float) -> list[str]:
        """The lines kept, once the stream ended (or at `deadline`, a `time.monotonic()`), with
        secrets removed: every surface shows or stores these (plain, `--json`, the TUI)."""
        self._thread.join(timeout=max(0.0, deadline - time.monotonic()))
        return [remove_secret_text(line) for line in self._lines]


COMMAND_LINE_RULES = "the command line's rules"
"""The source a check's own rules are reported with (`rule: ignore PATH  (the command line's rules)`)."""


def _as_given_to_the_child(rules: MatchingRules) -> MatchingRules:
    """`rules` as the child applies and reports them: each with the source `COMMAND_LINE_RULES`."""
    source = {"source": COMMAND_LINE_RULES}
    return MatchingRules(
        ignore=tuple(rule.model_copy(update=source) for rule in rules.ignore),
        normalize=tuple(rule.model_copy(update=source) for rule in rules.normalize),
        scrub=tuple(rule.model_copy(update=source) for rule in rules.scrub),
    )


def _child_home() -> Path:
    return Path(tempfile.mkdtemp(prefix="openprogram-check-"))  # mkdtemp makes it 0700


def run_check(
    selector: str,
    argv: Sequence[str] | None = None,
    *,
    cwd: str | None = None,
    timeout: float | None = None,
    on_progress: Callable[[CheckProgress], None] | None = None,
    cancel: threading.Event | None = None,
    rules: MatchingRules | None = None,
    accept_into: Path | None = None,
    rerecord: RerecordSpec | None = None,
    pace: float | None = None,
    fault: StreamFault | None = None,
) -> CheckResult:
    """Run the program that made a recording again (or `argv`) with replay forced on it; report how it went.

    `on_progress` is called from this thread as calls are consumed; setting `cancel` stops the child.
    With `accept_into`, replay runs in accept mode: a request that differs is accepted, and every
    call is written into that file with its recorded answer (`openprogram.recordings.accept`).
    With `rerecord`, calls replay while they match, then go live into a new file
    (`openprogram.recordings.rerecord`). `pace` replays at the recorded pace times that factor.
    `fault` breaks one call's stream once (`openprogram.providers.recording.stream_faults`).
    """
    location = locate_recording(selector)
    require_usable(location, tighten=True)
    recording = verify_recording(location.path)  # validated whole, no call kept: the child reads it
    assert recording.header is not None
    total = recording.facts.calls
    entry = entry_of(recording.header)
    if not argv:
        if entry is None:
            raise CheckUsageError(
                f"{location.path} has no recorded command to run; give one after `--`, "
                "e.g. openprogram recordings check ID -- python my_agent.py"
            )
        argv, cwd = entry.argv, cwd or entry.cwd
    run_cwd = cwd or os.getcwd()
    # The rules the child merges, read here first: one it cannot use (an expression RE2 refuses,
    # a header rule that ignores whole messages) is one line before anything runs.
    project_rules(Path(run_cwd)).merged(
        rules_from_header(recording.header.model_extra or {}, str(location.path))
    )
    home = _child_home()
    report = ReportReader(home / "replay-report.jsonl")
    spec = ChildRunSpec(
        mode="replay",
        recording=str(location.path.resolve()),
        report=str(report.path),
        rules=_as_given_to_the_child(validate_rules(rules)) if rules else None,
        accept_into=str(accept_into) if accept_into is not None else None,
        rerecord=rerecord,
        pace=pace,
        fault=fault,
    )
    write_run_spec(home, spec)
    env = child_environment(home, live=rerecord is not None)
    started = time.monotonic()
    error: str | None = None
    exit_code: int | None = None
    consumed = 0
    try:
        child = subprocess.Popen(
            list(argv),
            cwd=run_cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=die_with_parent(signal.SIGKILL),
        )
    except OSError as exc:
        shutil.rmtree(home, ignore_errors=True)
        return CheckResult(
            status="error",
            recording=str(location.path),
            argv=list(argv),
            cwd=run_cwd,
            calls_recorded=total,
            calls_consumed=0,
            never_requested=list(range(total)),
            duration_seconds=0.0,
            exit_code=None,
            mismatch=None,
            error=f"cannot start {argv[0]!r}: {exc.strerror}",
            stderr_tail=[],
        )
    assert child.stdout is not None and child.stderr is not None
    stdout_tail, stderr_tail = OutputTail(child.stdout), OutputTail(child.stderr)
    try:
        while True:
            try:
                exit_code = child.wait(timeout=POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                pass
            if timeout is not None and time.monotonic() - started > timeout:
                error = f"timed out after {timeout:g} s"
            elif cancel is not None and cancel.is_set():
                error = "cancelled"
            if error:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
                exit_code = child.wait()
                break
            if any(isinstance(row, ConsumedRow) for row in report.read_new()):
                consumed = consumed_calls(report)
                if on_progress is not None:
                    on_progress(CheckProgress(calls_consumed=consumed, calls_recorded=total))
        # A grandchild may hold the pipes open after the child ended: wait for it a little only.
        deadline = time.monotonic() + READER_JOIN_SECONDS
        stdout_lines, stderr_lines = stdout_tail.lines(deadline), stderr_tail.lines(deadline)
        report.read_new()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    consumed = consumed_calls(report)
    mismatch = next((row.mismatch for row in report.of_type(MismatchRow)), None)
    status: CheckStatus
    if mismatch is not None:
        status = "mismatch"
    elif error is None and exit_code == 0:
        status = "ok" if consumed == total else "incomplete"
    else:
        status = "error"
        error = error or f"the program exited with code {exit_code}"
    if on_progress is not None:
        on_progress(CheckProgress(calls_consumed=consumed, calls_recorded=total))
    return CheckResult(
        status=status,
        recording=str(location.path),
        argv=list(argv),
        cwd=run_cwd,
        calls_recorded=total,
        calls_consumed=consumed,
        never_requested=list(range(consumed, total)) if status != "ok" else [],
        duration_seconds=round(time.monotonic() - started, 3),
        exit_code=exit_code,
        mismatch=mismatch,
        error=error,
        stderr_tail=stderr_lines,
        stdout_tail=stdout_lines,
        rules=next((row.rules for row in report.of_type(RulesRow)), []),
        absorbed=[row.absorbed for row in report.of_type(AbsorbedRow)],
        accepted=[row.accepted for row in report.of_type(AcceptedRow)],
        fault=next(iter(report.of_type(FaultRow)), None),
    )


def consumed_calls(report: ReportReader) -> int:
    """How many recorded calls the child consumed: a call whose stream a fault broke counts only
    once the program asked for it again."""
    calls: set[int] = set()
    for row in report.rows:
        if isinstance(row, ConsumedRow):
            calls.add(row.call_index)
        elif isinstance(row, FaultRow) and row.broke:
            calls.discard(row.fault.call)
    return len(calls)
