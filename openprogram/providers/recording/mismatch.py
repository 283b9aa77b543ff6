"""`ReplayMismatch`: where a run diverged from its recording, and its stable serialised form.

Four kinds, a `Literal` everyone compares instead of sentinel field names:

- `request`: call `call_index` was asked with a request that differs at `field_path`;
- `extra_call`: the run made call `call_index`, past the last recorded call;
- `unconsumed`: the run ended with recorded calls never requested (from `call_index` on);
- `read_past_end`: the run read past where the recorded stream of `call_index` stopped
  (`event_index` says where).

`field_path` is the real path of the differing field for `request`, and None for the others;
`difference_kind` says how that field differs (`changed`, `inserted`...).
`MismatchReport` is the JSON form used by `check --json`, the TUI's rerun view and the plugin.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.differences import (
    MISSING,
    DifferenceKind,
    FieldDifference,
    PathToken,
)
from openprogram.providers.recording.redaction import remove_secret_values
from openprogram.providers.recording.rules import suggest_rule
from openprogram.text import shorten

MismatchKind = Literal["request", "extra_call", "unconsumed", "read_past_end"]

VALUE_LIMIT = 200


def format_value(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A value for a one-glance message: escaped, secrets removed, at most `limit` characters."""
    if value is MISSING:
        return "<missing>"
    clean = remove_secret_values(value)
    text = repr(clean) if isinstance(clean, str) else json.dumps(clean, ensure_ascii=False)
    if len(text) <= limit:
        return text
    return f"{shorten(text, limit)} ({len(text)} characters)"


class MismatchReport(BaseModel):
    """A `ReplayMismatch` as stable JSON (`recorded_present`/`incoming_present` mark missing)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: MismatchKind
    call_index: int
    event_index: int | None = None
    field_path: str | None = None
    path_tokens: list[str | int] = []
    difference_kind: DifferenceKind | None = None
    """How the field differs (`request` only): `changed`, `type_changed`, `missing`, `added`,
    `inserted` or `removed` (a list item on one side only)."""
    recorded: Any = None
    recorded_present: bool = True
    incoming: Any = None
    incoming_present: bool = True
    message: str
    recorded_request: dict[str, Any] | None = None
    incoming_request: dict[str, Any] | None = None
    suggestion: str | None = None
    """For a value that changes by itself (two dates, two UUIDs...): the rule that would absorb it."""

    @property
    def one_line(self) -> str:
        """The message on one line."""
        return self.message.replace("\n", " ")


class ReplayMismatch(OpenProgramError, AssertionError):
    """The run diverged from the recording at call `call_index` (see the module's kinds).

    `recorded` and `incoming` keep both values whole; the message shows them bounded and escaped.
    `recorded_request`/`incoming_request` hold both whole (redacted) requests when known.
    """

    def __init__(
        self,
        kind: MismatchKind,
        call_index: int,
        *,
        field_path: str | None = None,
        path_tokens: tuple[PathToken, ...] = (),
        recorded: Any = MISSING,
        incoming: Any = MISSING,
        event_index: int | None = None,
        detail: str | None = None,
        recorded_request: dict[str, Any] | None = None,
        incoming_request: dict[str, Any] | None = None,
        difference_kind: DifferenceKind | None = None,
    ) -> None:
        self.kind: MismatchKind = kind
        self.difference_kind = difference_kind
        self.call_index = call_index
        self.field_path = field_path
        self.path_tokens = path_tokens
        self.recorded = recorded
        self.incoming = incoming
        self.event_index = event_index
        self.detail = detail
        self.recorded_request = recorded_request
        self.incoming_request = incoming_request
        self.suggestion: str | None = None
        if kind == "request" and recorded is not MISSING and incoming is not MISSING:
            self.suggestion = suggest_rule(
                FieldDifference(path_tokens, recorded, incoming, "changed")
            )
        where = f"call {call_index}"
        if event_index is not None:
            where += f", event {event_index}"
        if field_path is not None:
            where += f", field {field_path}"
        values = detail or _values(difference_kind, recorded, incoming)
        hint = (
            f"\nthis value looks like one that changes by itself; the rule `{self.suggestion}` "
            "would absorb it (docs/replay-and-mismatches.md)"
            if self.suggestion
            else ""
        )
        super().__init__(f"replay mismatch at {where}:\n{values}{hint}")

    def report(self) -> MismatchReport:
        """The stable JSON form, secrets removed from every value."""
        return MismatchReport(
            kind=self.kind,
            call_index=self.call_index,
            event_index=self.event_index,
            field_path=self.field_path,
            path_tokens=list(self.path_tokens),
            difference_kind=self.difference_kind,
            recorded=None if self.recorded is MISSING else remove_secret_values(self.recorded),
            recorded_present=self.recorded is not MISSING,
            incoming=None if self.incoming is MISSING else remove_secret_values(self.incoming),
            incoming_present=self.incoming is not MISSING,
            message=str(self),
            recorded_request=remove_secret_values(self.recorded_request),
            incoming_request=remove_secret_values(self.incoming_request),
            suggestion=self.suggestion,
        )

    @classmethod
    def from_report(cls, report: MismatchReport) -> ReplayMismatch:
        """Rebuild a mismatch from its report (e.g. one a child process wrote)."""
        mismatch = cls(
            report.kind,
            report.call_index,
            field_path=report.field_path,
            path_tokens=tuple(report.path_tokens),
            recorded=report.recorded if report.recorded_present else MISSING,
            incoming=report.incoming if report.incoming_present else MISSING,
            event_index=report.event_index,
            recorded_request=report.recorded_request,
            incoming_request=report.incoming_request,
            difference_kind=report.difference_kind,
        )
        mismatch.args = (report.message,)
        return mismatch

    @classmethod
    def from_difference(
        cls,
        call_index: int,
        difference: FieldDifference,
        recorded_request: dict[str, Any],
        incoming_request: dict[str, Any],
    ) -> ReplayMismatch:
        """The `request` mismatch for the first differing field of two requests."""
        return cls(
            "request",
            call_index,
            field_path=difference.field_path,
            path_tokens=difference.path_tokens,
            recorded=difference.recorded,
            incoming=difference.incoming,
            recorded_request=recorded_request,
            incoming_request=incoming_request,
            difference_kind=difference.kind,
        )


def _values(kind: DifferenceKind | None, recorded: Any, incoming: Any) -> str:
    """Both values, or for a list item on one side only, which side has it."""
    if kind == "inserted":
        return f"the incoming request inserted {format_value(incoming)} here (not recorded)"
    if kind == "removed":
        return f"the incoming request removed the recorded {format_value(recorded)}"
    return f"recorded {format_value(recorded)}, incoming {format_value(incoming)}"
