"""Rerun a recording against the current code: `openprogram recordings check` and the TUI's rerun.

The program runs in a fresh child process whose state directory is a private temporary one, so it
never sees the user's next-start configuration; replay is forced on the recording there. Replay in
the child reports each consumed call and any mismatch to a file the parent owns, so a mismatch is
reported even when the program catches the exception and exits 0.
"""

from __future__ import annotations

import contextlib
import json
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
from typing import Any, Literal

from pydantic import BaseModel

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.config import (
    REPLAY_ACCEPT_ENV,
    REPLAY_REPORT_ENV,
    REPLAY_RESUME_ENV,
    REPLAY_RULES_ENV,
    RecordReplayConfig,
)
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.mismatch import MismatchReport
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.rules import MatchingRules, validate_rules
from openprogram.providers.recording.rules_sources import header_rules_value
from openprogram.providers.recording.scan_facts import ScanProblem
from openprogram.providers.recording.store import check_recording_file, locate_recording

CheckStatus = Literal["ok", "mismatch", "incomplete", "error"]
STDERR_TAIL_LINES = 20
POLL_SECONDS = 0.05


class RecordingEntry(BaseModel):
    """How to rerun a recording: the command line (redacted) and its working directory."""

    argv: list[str]
    cwd: str


class CheckProgress(BaseModel):
    """Calls consumed so far out of those recorded."""

    calls_consumed: int
    calls_recorded: int


class AbsorbedDifference(BaseModel):
    """A request difference a matching rule absorbed during the rerun."""

    call_index: int
    field_path: str
    rule: str | None
    """The rule, as `describe()` writes it: `ignore options.metadata.request_id`."""
    source: str | None = None
    """Where the rule was declared: a `pyproject.toml` path, `recording header` or `caller`."""


class AcceptedDifference(BaseModel):
    """One field of a request that accept mode took as the new recorded value (both bounded)."""

    field_path: str
    recorded: str
    incoming: str


class AcceptedCall(BaseModel):
    """A call whose incoming request accept mode kept, with every difference it accepted."""

    call_index: int
    differences: list[AcceptedDifference]


class CheckResult(BaseModel):
    """What a rerun found; `status` is `ok`, `mismatch`, `incomplete` or `error`."""

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
    problem: ScanProblem | None = None
    """When the recording itself cannot be used: the strict reader's line, call and reason."""
    rules: list[str] = []
    """The matching rules in force, each with where it comes from."""
    absorbed: list[AbsorbedDifference] = []
    """Every request difference the rules absorbed, per call."""
    accepted: list[AcceptedCall] = []
    """In accept mode (`openprogram recordings accept`): each call whose new request was kept."""

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
    problem = None
    if isinstance(error, RecordingFileError):
        problem = ScanProblem(
            line_number=error.line_number, call_index=error.call_index, reason=error.reason
        )
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


def entry_of(path: Path) -> RecordingEntry | None:
    """The `entry` header metadata of a recording, when it has a usable one."""
    entry = read_recording(path).header.model_extra or {}
    raw = entry.get("entry")
    try:
        return RecordingEntry.model_validate(raw) if raw else None
    except ValueError:
        return None


def _read_report(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    rows = []
    for line in text.splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            rows.append(json.loads(line))
    return rows


def _child_home(recording: Path) -> Path:
    home = Path(tempfile.mkdtemp(prefix="openprogram-check-"))
    config = RecordReplayConfig(mode="replay", file=str(recording))
    (home / "config.json").write_text(json.dumps({"record_replay": config.model_dump()}) + "\n")
    (home / "config.json").chmod(0o600)
    return home


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
    resume: str | None = None,
) -> CheckResult:
    """Rerun the program that made a recording (or `argv`) with replay forced on it; report how it went.

    `on_progress` is called from this thread as calls are consumed; setting `cancel` stops the child.
    With `accept_into`, replay runs in accept mode: a request that differs is accepted, and every
    call is written into that file with its recorded answer (`openprogram.recordings.accept`).
    """
    location = locate_recording(selector)
    check_recording_file(location, repair_managed=True)
    recording = read_recording(location.path)
    total = len(recording.calls)
    entry = entry_of(location.path)
    if not argv:
        if entry is None:
            raise CheckUsageError(
                f"{location.path} has no recorded command to rerun; give one after `--`, "
                "e.g. openprogram recordings check ID -- python my_agent.py"
            )
        argv, cwd = entry.argv, cwd or entry.cwd
    run_cwd = cwd or os.getcwd()
    home = _child_home(location.path.resolve())
    report = home / "replay-report.jsonl"
    env = {**os.environ, "OPENPROGRAM_HOME": str(home), REPLAY_REPORT_ENV: str(report)}
    if rules:
        env[REPLAY_RULES_ENV] = json.dumps(header_rules_value(validate_rules(rules)))
    if accept_into is not None:
        env[REPLAY_ACCEPT_ENV] = str(accept_into)
    if resume is not None:  # `openprogram.recordings.rerecord`: its JSON setting
        env[REPLAY_RESUME_ENV] = resume
    started = time.monotonic()
    stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
    error: str | None = None
    exit_code: int | None = None
    consumed = 0
    try:
        child = subprocess.Popen(
            list(argv),
            cwd=run_cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
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
    assert child.stderr is not None
    reader = threading.Thread(target=lambda: stderr_tail.extend(child.stderr or ()), daemon=True)
    reader.start()
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
            now = sum(row.get("type") == "consumed" for row in _read_report(report))
            if now != consumed and on_progress is not None:
                on_progress(CheckProgress(calls_consumed=now, calls_recorded=total))
            consumed = now
        reader.join(timeout=2)
        rows = _read_report(report)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    consumed = sum(row.get("type") == "consumed" for row in rows)
    reported = next((row for row in rows if row.get("type") == "mismatch"), None)
    mismatch = (
        MismatchReport.model_validate({k: v for k, v in reported.items() if k != "type"})
        if reported is not None
        else None
    )
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
        stderr_tail=[line.rstrip("\n") for line in stderr_tail],
        rules=next((row["rules"] for row in rows if row.get("type") == "rules"), []),
        absorbed=[
            AbsorbedDifference.model_validate({k: v for k, v in row.items() if k != "type"})
            for row in rows
            if row.get("type") == "absorbed"
        ],
        accepted=[
            AcceptedCall.model_validate({k: v for k, v in row.items() if k != "type"})
            for row in rows
            if row.get("type") == "accepted"
        ],
    )
