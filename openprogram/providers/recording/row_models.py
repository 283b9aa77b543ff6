"""The recording file format, version 2: one JSON object per line, in the order things happen.

The row models live here; how rows are written as bytes (and classified from their last bytes) is in
`row_encoding`, which needs no models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from openprogram.providers.types import AssistantMessageEvent, CallMs, Count, SessionMs

CallOutcome = Literal["complete", "error", "cancelled", "abandoned"]


class _Row(BaseModel):
    # A strict reader refuses what it was not written as: unknown keys of a request, event or
    # call_end row are errors (only the header carries optional metadata), and `parse_row`
    # validates in strict mode (no "1", 1.0 or true where an integer belongs).
    model_config = ConfigDict(extra="forbid", frozen=True)


class HeaderRow(_Row):
    """The first line. Optional metadata (`recording_id`, `created_at`, `entry`, ...) is kept."""

    model_config = ConfigDict(extra="allow", frozen=True)
    type: Literal["header"]
    format_version: int


class RequestRow(_Row):
    """A provider call begins: the redacted JSON dumps of its arguments, or (with `base`) what
    changed since call `base` of the same file (`request_references` rebuilds the full request).

    Readers hand out full requests only: `base` and `keep` are None there."""

    type: Literal["request"]
    call_index: Count
    model: dict[str, Any] = Field(default_factory=dict)
    context: dict[str, Any]
    options: dict[str, Any] | None = None
    base: Count | None = None
    """The earlier call this request builds on; absent: the row is the full request."""
    keep: Count | None = None
    """With `base`: how many of call `base`'s messages come first (absent: none)."""
    start_ms: SessionMs | None = None
    """Milliseconds from the session's start (the writer opening the file); None: not recorded."""


class EventRow(_Row):
    """One streamed event of call `call_index`."""

    type: Literal["event"]
    call_index: Count
    event_index: Count
    event: AssistantMessageEvent
    ms: CallMs | None = None
    """Milliseconds from the call's request to this event's arrival; None: not recorded."""


class CallEndRow(_Row):
    """The call's stream finished; `event_count` makes truncation visible."""

    type: Literal["call_end"]
    call_index: Count
    event_count: Count
    outcome: CallOutcome
    error: str | None = None
    """For `error` and `cancelled`: the exception, redacted and bounded (optional)."""
    duration_ms: CallMs | None = None
    """Milliseconds from the call's request to its end; None: not recorded."""


Row = Annotated[HeaderRow | RequestRow | EventRow | CallEndRow, Field(discriminator="type")]
ROW_ADAPTER: TypeAdapter[Row] = TypeAdapter(Row)
"""The row union; parse lines with `parse_row`, which validates strictly."""


_VALIDATE_JSON = ROW_ADAPTER.validator.validate_json
"""The adapter's validator itself: `TypeAdapter.validate_json` adds ~2 µs a row in Python around it
(a fifth of opening a recording)."""


def parse_row(line: bytes | str) -> Row:
    """Parse and strictly validate one stored line into its row class (raises `ValidationError`)."""
    row: Row = _VALIDATE_JSON(line, strict=True)
    return row
