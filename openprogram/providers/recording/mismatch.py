"""`ReplayMismatch`: where a run diverged from its recording, and its stable serialised form.

Four kinds, a `Literal` everyone compares instead of sentinel field names:

- `request`: call `call_index` was asked with a request that differs at `field_path`;
- `extra_call`: the run made call `call_index`, past the last recorded call (`field_path` is
  `call_index`);
- `unconsumed`: the run ended with recorded calls never requested (from `call_index` on);
- `read_past_end`: the run read past where the recorded stream of `call_index` stopped
  (`event_index` says where).

`field_path` is the real path of the differing field for `request`, `call_index` for
`extra_call`, and None for the others; `difference_kind` says how a `request` field differs
(`changed`, `inserted`...). `MismatchReport` is the one value: built once (message, suggestion,
secrets removed) by `of_difference` or `of_call`, it is what the exception holds and the JSON
form used by `check --json`, the TUI's check view and the plugin.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.difference_text import (
    format_path,
    mismatch_values,
)
from openprogram.providers.recording.differences import (
    MISSING,
    DifferenceKind,
    FieldDifference,
)
from openprogram.providers.recording.redaction import remove_secret_values
from openprogram.providers.recording.rules import RuleSuggestion, suggest_rule

MismatchKind = Literal["request", "extra_call", "unconsumed", "read_past_end"]

EXTRA_CALL_FIELD = "call_index"
"""The `field_path` of an `extra_call` mismatch: the call index itself is what diverged."""


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
    suggestion: RuleSuggestion | None = None
    """For a value that changes by itself (two dates, two UUIDs...): the rules that would absorb
    it (as one line, `suggestion.line`, in the message and in `json_value`)."""

    @property
    def one_line(self) -> str:
        """The message on one line."""
        return self.message.replace("\n", " ")

    def json_value(self, exclude: set[str] | None = None) -> dict[str, Any]:
        """The stable JSON form users read (`check --json`, the HTML report): every field but
        those in `exclude`, the suggestion as its one line."""
        value = self.model_dump(mode="json", exclude=exclude)
        if "suggestion" in value:
            value["suggestion"] = None if self.suggestion is None else self.suggestion.line
        return value

    @classmethod
    def of_difference(
        cls,
        call_index: int,
        difference: FieldDifference,
        recorded_request: dict[str, Any],
        incoming_request: dict[str, Any],
    ) -> MismatchReport:
        """The `request` mismatch for the first differing field of two requests: its message,
        the rule that would absorb it (if any), every value redacted."""
        recorded, incoming = difference.recorded, difference.incoming
        suggestion = None
        if recorded is not MISSING and incoming is not MISSING:
            suggestion = suggest_rule(
                FieldDifference(difference.path_tokens, recorded, incoming, "changed")
            )
        hint = (
            f"\nthis value looks like one that changes by itself; the rule "
            f"`{format_path(suggestion.line)}` would absorb it "
            "(docs/replay-and-mismatches.md)"
            if suggestion
            else ""
        )
        return cls(
            kind="request",
            call_index=call_index,
            field_path=difference.field_path,
            path_tokens=list(difference.path_tokens),
            difference_kind=difference.kind,
            recorded=None if recorded is MISSING else remove_secret_values(recorded),
            recorded_present=recorded is not MISSING,
            incoming=None if incoming is MISSING else remove_secret_values(incoming),
            incoming_present=incoming is not MISSING,
            message=f"replay mismatch at call {call_index}, field "
            f"{format_path(difference.field_path)}:\n"
            f"{mismatch_values(difference.kind, recorded, incoming)}{hint}",
            recorded_request=remove_secret_values(recorded_request),
            incoming_request=remove_secret_values(incoming_request),
            suggestion=suggestion,
        )

    @classmethod
    def of_call(
        cls,
        kind: Literal["extra_call", "unconsumed", "read_past_end"],
        call_index: int,
        detail: str,
        *,
        event_index: int | None = None,
        incoming_request: dict[str, Any] | None = None,
    ) -> MismatchReport:
        """A mismatch of a whole call (`detail` says what happened), not of one request field."""
        where = f"call {call_index}"
        if event_index is not None:
            where += f", event {event_index}"
        return cls(
            kind=kind,
            call_index=call_index,
            event_index=event_index,
            field_path=EXTRA_CALL_FIELD if kind == "extra_call" else None,
            recorded=None,
            recorded_present=False,
            incoming=None,
            incoming_present=False,
            message=f"replay mismatch at {where}:\n{detail}",
            incoming_request=remove_secret_values(incoming_request),
        )


class ReplayMismatch(OpenProgramError, AssertionError):
    """The run diverged from the recording at call `call_index` (see the module's kinds).

    It holds one frozen `MismatchReport` (`report`), built once where replay found the divergence;
    the attributes below read it. `recorded` and `incoming` keep both values whole (redacted);
    the message shows them bounded and escaped.
    """

    def __init__(self, report: MismatchReport) -> None:
        self._report = report
        super().__init__(report.message)

    def __reduce__(self) -> tuple[type[ReplayMismatch], tuple[MismatchReport]]:
        return type(self), (self._report,)

    @property
    def report(self) -> MismatchReport:
        """The stable JSON form: every fact of the mismatch, secrets removed."""
        return self._report

    @property
    def kind(self) -> MismatchKind:
        """What diverged: `request`, `extra_call`, `unconsumed` or `read_past_end`."""
        return self._report.kind

    @property
    def call_index(self) -> int:
        """The call where the run diverged."""
        return self._report.call_index

    @property
    def field_path(self) -> str | None:
        """The differing field (`request`), `call_index` (`extra_call`), else None."""
        return self._report.field_path

    @property
    def event_index(self) -> int | None:
        """Where the recorded stream stopped (`read_past_end` only)."""
        return self._report.event_index

    @property
    def recorded(self) -> Any:
        """The recorded value of the field, or `MISSING` where the recording lacks it."""
        return self._report.recorded if self._report.recorded_present else MISSING

    @property
    def incoming(self) -> Any:
        """The incoming value of the field, or `MISSING` where the request lacks it."""
        return self._report.incoming if self._report.incoming_present else MISSING
