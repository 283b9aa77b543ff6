"""One test's recording: replay it, or record it into a partial file committed only on success.

The pytest plugin (`openprogram.pytest_plugin`) builds one `OpenProgramRecording` per test
and drives `start()` and `finish()`; everything here is plain Python so it can be tested and reused
without pytest.
"""

from __future__ import annotations

import os
import shlex
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any, Literal, get_args

from openprogram.errors import OpenProgramError
from openprogram.providers.api_registry import ApiProvider, wrap_api_providers
from openprogram.providers.recording.check_protocol import (
    AcceptedRow,
    ReportRow,
    RunSpecError,
    read_run_spec,
)
from openprogram.providers.recording.config import RecordReplayMode, state_dir
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.recorder import RecordingProvider
from openprogram.providers.recording.redaction import REDACTION_VERSION
from openprogram.providers.recording.rerecord import RerecordingApi, RerecordState
from openprogram.providers.recording.rules import MatchingRules
from openprogram.providers.recording.rules_sources import project_rules
from openprogram.providers.recording.stream_faults import StreamFault
from openprogram.providers.recording.writer import NOW, RecordingSink, TimeField
from openprogram.providers.replay import ReplayMismatch, ReplayProvider
from openprogram.recordings.entry import entry_scrub_rules, kept_entry
from openprogram.recordings.versions import write_version
from openprogram.text import plural

RecordMode = Literal["none", "once", "rewrite", "accept", "rerecord"]
"""`none`: replay only; `once`: record when the file is missing; `rewrite`: always record again;
`accept`: replay offline, keeping the recorded answers and accepting requests that changed;
`rerecord`: replay while the calls match, then call the real providers and record the rest."""

RECORD_MODES: tuple[RecordMode, ...] = get_args(RecordMode)
RECORD_MODE_ALIASES: dict[str, RecordMode] = {"resume": "rerecord"}
"""Older names still accepted (users have `--openprogram-record=resume` in CI files)."""


class RecordingUnavailable(OpenProgramError):
    """The test cannot start: its recording is missing or unreadable (the message says what to do)."""


def tui_command(display_path: str, mismatch: ReplayMismatch | None = None) -> str:
    """`openprogram-tui <path> --call N --field '<path>'`: the command that opens the divergence.

    `--field` is given only when the mismatch is inside a request (model, context or options);
    `--call` only when the call exists in the recording.
    """
    parts = ["openprogram-tui", shlex.quote(display_path)]
    if mismatch is None:
        return " ".join(parts)
    if mismatch.kind != "extra_call":  # past the last recorded call: nothing to point at
        parts += ["--call", str(mismatch.call_index)]
        if mismatch.kind == "request" and mismatch.field_path is not None:
            parts += ["--field", shlex.quote(mismatch.field_path)]
    return " ".join(parts)


class _CountingSink(RecordingSink):
    """A sink that counts the calls it begins."""

    calls = 0

    def begin_call(self, request: dict[str, Any], *, start_ms: TimeField = NOW) -> int:
        index = super().begin_call(request, start_ms=start_ms)
        self.calls = max(self.calls, index + 1)  # indexes are contiguous in a file we own
        return index


class OpenProgramRecording:
    """What the `openprogram_recording` fixture gives a test: its recording and how it is used.

    `path` is the recording file; `record_mode` the session's mode; `recording` is True when this
    test calls the real providers and records them (`mode == "record"`), False when it replays
    (`mode == "replay"`). `mismatches` collects every `ReplayMismatch` replay raised, even ones the
    code under test caught.
    """

    def __init__(
        self,
        path: Path,
        record_mode: RecordMode,
        *,
        node_id: str,
        display_path: str | None = None,
        rewrite_command: str | None = None,
        record_command: str | None = None,
        accept_command: str | None = None,
        mode_reason: str | None = None,
        rules: MatchingRules | None = None,
        pace: float | None = None,
        fault: StreamFault | None = None,
        check_command: Sequence[str] = (),
        check_cwd: Path | None = None,
    ) -> None:
        self.path = path
        self.check_command = list(check_command)
        """How `openprogram recordings check` runs this one test again (`python -m pytest NODE_ID`),
        from `check_cwd` (the rootdir): kept in the header as its `entry`."""
        self.check_cwd = check_cwd
        self.pace = pace
        """Replay at the recorded pace times this factor (None: events at once)."""
        self.fault = fault
        """Replay with this call's stream broken once (`pytest --openprogram-faults`): the run may
        then stop early, so calls left unconsumed do not fail the test."""
        self.rules = rules
        """The caller's matching rules (the marker's), merged after pyproject's and the header's."""
        self.record_mode: RecordMode = record_mode
        self.node_id = node_id
        self.display_path = display_path or str(path)
        self.rewrite_command = rewrite_command
        """How to record this test again (`pytest --openprogram-record=rewrite '<test>'`)."""
        self.record_command = record_command
        """How to record this test when its file is missing (`... --openprogram-record=once`)."""
        self.accept_command = accept_command
        """How to accept this test's changed requests offline (`... --openprogram-record=accept`)."""
        self.mode_reason = mode_reason
        self.recording = record_mode == "rewrite" or (
            record_mode in ("once", "rerecord") and not _exists(path)
        )
        self.replay: ReplayProvider | None = None
        self.accepting = record_mode == "accept"
        """Accept mode: requests that differ are accepted into a new version of the recording,
        saved (like a recording) only when the test passes and every recorded call was made."""
        self.rerecording = record_mode == "rerecord" and _exists(path)
        """Rerecord mode: the matching calls replayed, the rest live, all written to a new file
        saved only when the test passes."""
        self._rerecord: RerecordState | None = None
        """In rerecord mode: the replay, the new file, and whether the run has gone live yet."""
        self.accepted_calls: list[int] = []
        """In accept mode: the calls whose new request was accepted."""
        self.committed = False
        self.written: str | None = None
        """What a committed run wrote, on one line (`recorded PATH (3 calls)`), else None."""
        self._existed = _exists(path)
        self._sink: _CountingSink | None = None
        self._partial: Path | None = None
        self._stack = ExitStack()

    @property
    def mismatches(self) -> list[ReplayMismatch]:
        """Every `ReplayMismatch` replay raised, even ones the code under test caught."""
        return self.replay.mismatches if self.replay is not None else []

    @property
    def mode(self) -> RecordReplayMode:
        """`record` when this test records live calls, `replay` when it answers from the file."""
        return "record" if self.recording else "replay"

    @property
    def call_count(self) -> int:
        """Provider calls made so far: replayed (matched) or recorded."""
        if self.rerecording:
            return self._sink.calls if self._sink is not None else 0
        if self.replay is not None:
            return self.replay.call_count
        return self._sink.calls if self._sink is not None else 0

    def assert_consumed(self) -> None:
        """Raise `ReplayMismatch` while recorded calls remain (a no-op when recording)."""
        if self.replay is not None:
            self.replay.assert_consumed()

    # -- lifecycle --

    def start(self) -> None:
        """Install replay (or recording) for every provider api; raises `RecordingUnavailable`.

        Under `openprogram recordings check` (a run spec in the state directory) nothing is
        installed: the runtime replays what the check's parent named, and reports to it, as for
        any program a check runs."""
        try:
            checked = read_run_spec(state_dir()) is not None
        except RunSpecError as exc:
            raise RecordingUnavailable(str(exc)) from None
        if checked:
            self.recording = self.rerecording = self.accepting = False
            return
        if self.recording:
            self._start_recording()
        else:
            self._start_replay()

    def _start_replay(self) -> None:
        if not _exists(self.path):
            raise RecordingUnavailable(self._missing_message())

        def on_report(row: ReportRow) -> None:
            if isinstance(row, AcceptedRow):
                self.accepted_calls.append(row.accepted.call_index)

        try:
            if self.accepting:
                self._partial = self._new_partial()
            replay = ReplayProvider(
                self.path,
                project_rules=project_rules(),
                rules=self.rules,
                on_report=on_report,
                accept_into=self._partial,
                pace=self.pace,
                fault=self.fault,
            )
        except (RecordingFileError, OSError) as exc:
            if self._partial is not None:
                self._partial.unlink(missing_ok=True)
                self._partial = None
            lines = [f"cannot replay {self.display_path}: {exc}"]
            if self.rewrite_command:
                lines += [
                    "record it again (makes real provider calls):",
                    f"    {self.rewrite_command}",
                ]
            raise RecordingUnavailable("\n".join(lines)) from None
        self.replay = replay
        if self.rerecording:
            self._partial = self._new_partial()
            sink = _CountingSink(self._partial, dict(replay.recording.header.model_extra or {}))
            self._sink = sink
            sink.ensure_header()
            state = self._rerecord = RerecordState(replay, sink, None)

            def rerecord(api: str, provider: ApiProvider) -> ApiProvider:
                return RerecordingApi(state, provider)

            self._stack.enter_context(wrap_api_providers(rerecord))
            return

        def serve(api: str, provider: ApiProvider) -> ApiProvider:
            return replay

        self._stack.enter_context(wrap_api_providers(serve))

    def _new_partial(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file 0600 with O_EXCL, next to the target so the rename is atomic.
        fd, name = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".partial", dir=self.path.parent
        )
        os.close(fd)
        return Path(name)

    def _start_recording(self) -> None:
        self._partial = self._new_partial()
        header: dict[str, Any] = {
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "recorded_by": "openprogram pytest plugin",
            "redaction_version": REDACTION_VERSION,
            "test": self.node_id,
        }
        if self.check_command and self.check_cwd is not None:
            cwd = str(self.check_cwd)
            header["entry"] = kept_entry(self.check_command, cwd, entry_scrub_rules(cwd))
        try:
            sink = _CountingSink(self._partial, header)
            self._sink = sink
            sink.ensure_header()
            rules = project_rules()  # read once, not once per api

            def record(api: str, provider: ApiProvider) -> ApiProvider:
                return RecordingProvider(provider, sink, rules=rules)

            self._stack.enter_context(wrap_api_providers(record))
        except BaseException:
            self.abort()
            raise

    def finish(self, passed: bool) -> str | None:
        """Take the record/replay wrapper off the providers, then settle the file; returns why the test must fail, if it must.

        Recording: on success the partial file is validated and renamed over `path` atomically;
        otherwise it is deleted and any earlier recording stays as it was. Replay, after a passing
        test: a mismatch the code under test swallowed, or recorded calls never made, fail it.
        """
        self._stack.close()
        if self.recording or self.rerecording:
            return self._finish_recording(passed)
        if self.accepting:
            return self._finish_accepting(passed)
        if not passed:
            return None  # the test already failed, and its report names any mismatch
        if self.mismatches:
            return (
                "openprogram: replay reported a mismatch that the test caught and ignored\n"
                + self.mismatch_report(self.mismatches[0])
            )
        if self.fault is not None:
            return None  # a broken stream may end the run early
        try:
            self.assert_consumed()
        except ReplayMismatch as mismatch:
            assert self.replay is not None
            remaining = self.replay.recorded_call_count - self.replay.call_count
            return (
                f"openprogram: {plural(remaining, 'recorded call')} unconsumed\n"
                + self.mismatch_report(mismatch)
            )
        return None

    def _finish_accepting(self, passed: bool) -> str | None:
        """Save the accepted version when the test passed, made every recorded call and no
        more; otherwise the recording stays as it was (and the reason fails the test)."""
        assert self.replay is not None

        def settle(partial: Path) -> str | None:
            if self.mismatches:  # more calls than recorded, or a read past a stream's end
                return (
                    "openprogram: not accepted, the run needs a live answer (record again)\n"
                    + self.mismatch_report(self.mismatches[0])
                )
            try:
                self.assert_consumed()
            except ReplayMismatch as mismatch:
                return "openprogram: not accepted\n" + self.mismatch_report(mismatch)
            if self.accepted_calls:  # otherwise every request matched: nothing to write
                self._commit(partial, {"how": "accept", "accepted_calls": len(self.accepted_calls)})
            return None

        return self._commit_or_discard(passed, "the accepted version", self.replay.close, settle)

    def _finish_recording(self, passed: bool) -> str | None:
        assert self._sink is not None
        sink = self._sink

        def settle(partial: Path) -> str | None:
            if not self.rerecording:
                self._commit(partial)
                return None
            state = self._rerecord
            assert state is not None
            if state.live_from is not None or sink.calls != state.replay.recorded_call_count:
                self._commit(partial, {"how": "rerecord", "from_call": state.live_from})
            return None  # otherwise every call replayed as recorded: nothing new to write

        return self._commit_or_discard(passed, "the recording", sink.close, settle)

    def _commit_or_discard(
        self,
        passed: bool,
        what: str,
        close: Callable[[], None],
        settle: Callable[[Path], str | None],
    ) -> str | None:
        """The frame of both rewrites: `close` the writer; after a passing test, `settle` the
        partial file (commit it, or return why the test fails); a file error is the reason
        `what` was not saved; the partial file is removed unless it was committed."""
        assert self._partial is not None
        partial, self._partial = self._partial, None
        try:
            close()
            return settle(partial) if passed else None
        except (RecordingFileError, OSError) as exc:
            return f"openprogram: {what} was not saved to {self.display_path}: {exc}"
        finally:
            if not self.committed:
                partial.unlink(missing_ok=True)

    def _commit(self, partial: Path, produced_by: dict[str, Any] | None = None) -> None:
        """Put a finished partial file in place of the recording (atomically, synced).

        A new version of an existing recording (accept, rerecord) goes through
        `versions.write_version`, as `openprogram recordings accept` does: checked by the strict
        reader once, its header saying what produced it. A new recording is checked and renamed.
        """
        if produced_by is not None:
            write_version(
                self.path,
                None,
                partial,
                self._command(),
                produced_by,
                check_command=self.check_command,
            )
            partial.unlink(missing_ok=True)
        else:
            read_recording(partial)  # never commit what replay would refuse
            os.replace(partial, self.path)
        _fsync_directory(self.path.parent)
        self.committed = True
        self.written = self._what_was_written(produced_by)

    def _what_was_written(self, produced_by: dict[str, Any] | None) -> str:
        calls = plural(self._sink.calls, "call") if self._sink is not None else None
        how = (produced_by or {}).get("how")
        if how == "accept":
            return (
                f"accepted {plural(len(self.accepted_calls), 'changed request')} into "
                f"{self.display_path}"
            )
        if how == "rerecord":
            start = (produced_by or {}).get("from_call")
            return f"rerecorded {self.display_path} from call {start} ({calls})"
        verb = "rewrote" if self._existed else "recorded"
        return f"{verb} {self.display_path} ({calls})"

    def _command(self) -> list[str]:
        command = self.accept_command if self.accepting else self.rewrite_command
        return shlex.split(command) if command else []

    def abort(self) -> None:
        """Take the wrapper off and remove any partial file without saving (interrupted runs)."""
        self._stack.close()
        if self.replay is not None:
            self.replay.close()
        if self._sink is not None:
            with suppress(OSError):
                self._sink.close()
        if self._partial is not None:
            self._partial.unlink(missing_ok=True)
            self._partial = None

    # -- messages --

    def mismatch_report(self, mismatch: ReplayMismatch) -> str:
        """The mismatch message, the recording path and the commands that open and redo it."""
        lines = [
            str(mismatch),
            "",
            f"recording: {self.display_path}",
            f"open it in the TUI {_where(mismatch)}:",
            f"    {tui_command(self.display_path, mismatch)}",
        ]
        if self.accept_command and mismatch.kind == "request" and not self.accepting:
            lines += [
                "if the change is intended and the answers still fit, accept it (offline):",
                f"    {self.accept_command}",
            ]
        if self.rewrite_command:
            lines += ["if the change is intended, record it again:", f"    {self.rewrite_command}"]
        return "\n".join(lines)

    def _missing_message(self) -> str:
        lines = [
            f"no recording for this test at {self.display_path} "
            f"(record mode {self.record_mode}: replay only)"
        ]
        if self.mode_reason:
            lines[0] += f"; {self.mode_reason}"
        if self.record_command:
            lines += [
                "record it once (this makes real provider calls and may need their API keys):",
                f"    {self.record_command}",
            ]
        return "\n".join(lines)


def _where(mismatch: ReplayMismatch) -> str:
    if mismatch.kind == "request":
        return "at the mismatching field"
    if mismatch.kind == "unconsumed":
        return "at the first call the run never made"
    if mismatch.kind == "extra_call":
        return "(the run made more calls than it holds)"
    return "at the call"


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
