"""What a check's parent tells its child process, and what the child reports back: one type each.

`openprogram recordings check`, `record -- COMMAND`, accept and rerecord run the program in a child
process whose state directory (`OPENPROGRAM_HOME`) is a private temporary one the parent made.
The parent writes one `ChildRunSpec` there (`write_run_spec`); the child's runtime reads it at
activation (`read_run_spec`) instead of the next-start configuration. No environment variable
carries any part of it: a variable set in the user's shell can never change what replay does, and
in particular never turns it live. The spec is honoured only as a private regular file (0600,
ours, not a symlink) in a private state directory (0700, ours).

The child answers with `ReportRow`s, one JSON line each, appended to `ChildRunSpec.report`; the
parent reads them with a `ReportReader` that keeps its offset, so each poll reads only what is new.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.mismatch import MismatchReport
from openprogram.providers.recording.rules import IgnoreRule, MatchingRules, NormalizeRule
from openprogram.providers.recording.state_files import RUN_SPEC_NAME, run_spec_left
from openprogram.providers.recording.stream_faults import StreamFault

RowT = TypeVar("RowT", bound=BaseModel)


class RunSpecError(OpenProgramError, ValueError):
    """A run spec file that cannot be honoured (unsafe, or not a valid spec)."""


class RerecordSpec(BaseModel):
    """Rerecord: replay while the calls match (and come before `from_call`), then go live into
    `into` (a candidate file the parent put in place as a new version when the run succeeds)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    into: str
    from_call: int | None = None


class ChildRunSpec(BaseModel):
    """Everything the parent tells the child; only our parent writes it, into the child's home."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    mode: Literal["record", "replay"]
    """`record` into `recording` (`record -- COMMAND`) or `replay` it (check, accept, rerecord)."""
    recording: str
    """A managed recording ID (of the child's home) or an absolute path."""
    report: str | None = None
    """Where replay appends its `ReportRow`s (a file in the child's home)."""
    rules: MatchingRules | None = None
    """The caller's matching rules (a check's `--ignore` and `--normalize`), merged last."""
    accept_into: str | None = None
    """Accept mode: every call is written there, a differing request taken as the new one."""
    rerecord: RerecordSpec | None = None
    pace: float | None = None
    """Replay at the recorded pace times this factor (None: events at once)."""
    fault: StreamFault | None = None
    """Break one call's stream once (`check --fault`)."""


def _private(path: Path, is_dir: bool) -> bool:
    with contextlib.suppress(OSError):
        info = path.lstat()
        kind = stat.S_ISDIR if is_dir else stat.S_ISREG
        return (
            kind(info.st_mode)
            and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IRWXG | stat.S_IRWXO)
        )
    return False


def write_run_spec(home: Path, spec: ChildRunSpec) -> Path:
    """Write `spec` into the child's private home (created 0600, never over an existing file)."""
    path = home / RUN_SPEC_NAME
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(spec.model_dump_json() + "\n")
    return path


def read_run_spec(home: Path) -> ChildRunSpec | None:
    """The spec our parent left in `home`, None when there is none; `RunSpecError` when the file
    is there but unsafe (not a private regular file of ours in a private home) or not a spec."""
    if not run_spec_left(home):
        return None
    path = home / RUN_SPEC_NAME
    if not (_private(home, is_dir=True) and _private(path, is_dir=False)):
        raise RunSpecError(f"{path} is not a private file in a private state directory: ignored")
    try:
        return ChildRunSpec.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise RunSpecError(f"{path} is not a run spec: {exc.errors()[0]['msg']}") from None


AbsorbingRule = Annotated[IgnoreRule | NormalizeRule, Field(discriminator="kind")]
"""The rule that absorbed a difference: its kind, path, preset (or pattern) and source."""


class AbsorbedDifference(BaseModel):
    """A request difference a matching rule absorbed during the check."""

    call_index: int
    field_path: str
    path_tokens: list[str | int] = []
    """`field_path` as its keys and indices: what a difference is matched by."""
    rule: str | None
    """The rule, as `describe()` writes it: `ignore options.metadata.request_id`."""
    source: str | None = None
    """Where the rule was declared: a `pyproject.toml` path, `recording header` or `caller`."""
    absorbed_by: AbsorbingRule | None = None
    """The rule itself (kind, path, preset, source), for callers that show what it did."""


class AcceptedDifference(BaseModel):
    """One field of a request that accept mode took as the new recorded value (both bounded)."""

    field_path: str
    recorded: str
    incoming: str
    absorbed_by: AbsorbingRule | None = None
    """The rule that already absorbs this difference: it would not have mismatched, but the new
    version stores the incoming value too, so it is listed."""


class AcceptedCall(BaseModel):
    """A call whose incoming request accept mode kept, with every field the new version changes
    (those a rule absorbs included: the same fields a diff of the two versions counts)."""

    call_index: int
    differences: list[AcceptedDifference]

    def json_value(self) -> dict[str, Any]:
        """The stable JSON form users read (`check --json`, `accept --json`): each absorbing rule
        as its one-line description (`ignore options.metadata.id`)."""
        value = self.model_dump(mode="json")
        for shown, difference in zip(value["differences"], self.differences, strict=True):
            rule = difference.absorbed_by
            shown["absorbed_by"] = None if rule is None else rule.describe()
        return value


class ConsumedRow(BaseModel):
    """Progress: call `call_index` matched and was answered from the recording."""

    type: Literal["consumed"] = "consumed"
    call_index: int
    calls_recorded: int


class RulesRow(BaseModel):
    """The matching rules in force, one line each with its source (the first row)."""

    type: Literal["rules"] = "rules"
    rules: list[str]


class AbsorbedRow(BaseModel):
    """A difference a rule absorbed."""

    type: Literal["absorbed"] = "absorbed"
    absorbed: AbsorbedDifference


class AcceptedRow(BaseModel):
    """Accept mode kept the incoming request of a call."""

    type: Literal["accepted"] = "accepted"
    accepted: AcceptedCall


class MismatchRow(BaseModel):
    """Replay refused a call (reported even when the program catches the exception)."""

    type: Literal["mismatch"] = "mismatch"
    mismatch: MismatchReport


class FaultRow(BaseModel):
    """Replay reached the fault at event `event_index`; `broke`: the stream broke (all but a stall
    shorter than the read timeout) and the call counts as not consumed until asked again (unless
    a concurrent call was matched meanwhile)."""

    type: Literal["fault"] = "fault"
    fault: StreamFault
    event_index: int
    broke: bool = True


ReportRow = Annotated[
    ConsumedRow | RulesRow | AbsorbedRow | AcceptedRow | MismatchRow | FaultRow,
    Field(discriminator="type"),
]
REPORT_ROW: TypeAdapter[ReportRow] = TypeAdapter(ReportRow)


def report_writer(path: str) -> Callable[[ReportRow], None]:
    """Append each row as one JSON line (0600, whole lines in one write) to `path`."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)

    def report(row: ReportRow) -> None:
        os.write(fd, REPORT_ROW.dump_json(row) + b"\n")

    return report


class ReportReader:
    """The rows of a child's report read so far; `read_new` reads from where it stopped."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: list[ReportRow] = []
        self._offset = 0

    def read_new(self) -> list[ReportRow]:
        """The whole lines appended since the last read (a line still being written waits)."""
        try:
            with self.path.open("rb") as file:
                file.seek(self._offset)
                data = file.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self._offset += end
        new: list[ReportRow] = []
        for line in data[:end].splitlines():
            with contextlib.suppress(ValidationError, json.JSONDecodeError):
                new.append(REPORT_ROW.validate_json(line))
        self.rows += new
        return new

    def of_type(self, kind: type[RowT]) -> list[RowT]:
        """The rows read so far of one kind."""
        return [row for row in self.rows if isinstance(row, kind)]
