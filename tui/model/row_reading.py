"""The opened call's request and `call_end` rows, read with the library's strict row parser."""

from __future__ import annotations

from pydantic import ValidationError

from openprogram.providers.recording.format import CallEndRow, RequestRow, parse_row
from openprogram.providers.recording.request_references import (
    RequestReferenceError,
    rebuild_chain,
)
from tui.model.recording_index import CallSpan, RecordingIndex
from tui.model.text_preview import preview_line


def row_problem(exc: ValidationError) -> str:
    """A one-line reason for a row the strict row parser refused."""
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"] if part not in ("request", "event"))
    message = first["msg"]
    return preview_line(f"{location}: {message}" if location else message, 120)


def read_request(index: RecordingIndex, span: CallSpan) -> RequestRow | str:
    """The call's full request (its references followed), or the reason it cannot be read."""
    row = _request_row(index, span)
    if isinstance(row, str):
        return row

    def earlier(call_index: int) -> RequestRow | None:
        if call_index >= len(index.calls):
            return None
        found = _request_row(index, index.calls[call_index])
        return found if isinstance(found, RequestRow) else None

    try:
        return rebuild_chain(row, earlier)
    except RequestReferenceError as exc:
        return f"line {span.request_line + 1}: {exc}"


def _request_row(index: RecordingIndex, span: CallSpan) -> RequestRow | str:
    try:
        row = parse_row(index.line(span.request_line))
    except ValidationError as exc:
        return f"line {span.request_line + 1}: request row {row_problem(exc)}"
    return row if isinstance(row, RequestRow) else f"line {span.request_line + 1}: not a request"


def read_call_end(index: RecordingIndex, span: CallSpan) -> CallEndRow | str | None:
    """The call's `call_end` row, the reason it cannot be read, or None when there is none."""
    if span.end_line is None:
        return None
    try:
        row = parse_row(index.line(span.end_line))
    except ValidationError as exc:
        return f"line {span.end_line + 1}: call_end row {row_problem(exc)}"
    return row if isinstance(row, CallEndRow) else f"line {span.end_line + 1}: not a call_end"
