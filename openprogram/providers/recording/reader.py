"""The strict reader: the one parser of recording files, used by replay, the CLI, check and the TUI.

`read_recording` refuses a file on its first problem; `scan_recording` reads on and reports every
problem with the calls that are still whole, for tools that show or salvage damaged files;
`read_header` reads the header alone.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from openprogram.providers.recording.errors import (
    TRUNCATED_LAST_LINE_REASON,
    UNFINISHED_CALL_REASON,
    RecordingFileError,
    RecordingProblem,
    open_for_reading,
)
from openprogram.providers.recording.request_references import (
    RequestChain,
    StoredRequests,
    reference_problem,
)
from openprogram.providers.recording.row_encoding import (
    RECORDING_FORMAT_VERSION,
    ROW_TYPES,
    classify_row_tail,
    migrate_command,
)
from openprogram.providers.recording.row_models import (
    CallEndRow,
    CallOutcome,
    EventRow,
    HeaderRow,
    RequestRow,
    Row,
    parse_row,
)
from openprogram.providers.recording.scan_facts import MAX_PROBLEMS, ScanFacts
from openprogram.providers.types import EVENT_TYPES, AssistantMessageEvent
from openprogram.text import one_line, plural


@dataclass(frozen=True)
class RecordedCall:
    """One whole recorded call: its request row, its validated events and how it ended.

    `stored` is the request row as the file holds it (with format 2, what changed since its base
    call); `request` materializes the full request from `requests`, the file's shared chain, each
    time it is read: keep it only as long as it is needed."""

    call_index: int
    stored: RequestRow
    events: tuple[AssistantMessageEvent, ...]
    outcome: CallOutcome
    error: str | None
    first_line: int
    last_line: int
    start_ms: int | None = None
    """When the call began, in milliseconds after the session's start; None: not recorded."""
    duration_ms: int | None = None
    """How long the call took, in milliseconds; None: not recorded (a migrated call)."""
    event_ms: tuple[int | None, ...] = ()
    """When each event arrived, in milliseconds after the call began (None: not recorded)."""
    requests: RequestChain | None = None
    """The file's requests, to follow `stored`'s references; None: `stored` is the full request."""

    @property
    def request(self) -> RequestRow:
        """The full request (references followed), built now and not kept by the call."""
        if self.requests is None or self.stored.base is None:
            return self.stored
        return self.requests.full(self.call_index)

    @property
    def model(self) -> dict[str, Any]:
        """The request's model, found without building the full request."""
        if self.requests is None or self.stored.base is None:
            return self.stored.model
        return self.requests.model(self.call_index)

    def request_payload(self) -> dict[str, Any]:
        """The request as compared by replay: `{"model": …, "context": …, "options": …}`."""
        request = self.request
        return {"model": request.model, "context": request.context, "options": request.options}


@dataclass(frozen=True)
class Recording:
    """A strictly valid recording file."""

    path: Path
    header: HeaderRow
    calls: tuple[RecordedCall, ...]


@dataclass(frozen=True)
class RecordingScan:
    """What a tolerant read found: the whole calls, every problem (empty when valid), and the
    file's `facts` (totals and the first problems, what every view shows)."""

    path: Path
    header: HeaderRow | None
    calls: tuple[RecordedCall, ...]
    problems: tuple[RecordingProblem, ...]
    facts: ScanFacts

    @property
    def valid(self) -> bool:
        """True when the strict reader would accept the file."""
        return not self.problems


def _facts(
    header: HeaderRow | None,
    size: int,
    calls: int,
    events: int,
    unfinished_calls: tuple[int, ...],
    problems: _Problems,
) -> ScanFacts:
    """The facts of one reading: calls and events are the rows found, whole or not."""
    created = (header.model_extra or {}).get("created_at") if header else None
    return ScanFacts(
        size=size,
        created_at=created if _is_timestamp(created) else None,
        format_version=header.format_version if header else None,
        calls=calls,
        events=events,
        unfinished_calls=unfinished_calls,
        problems=tuple(problems.found[:MAX_PROBLEMS]),
        problem_count=len(problems.found) + problems.dropped,
    )


def _is_timestamp(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


@dataclass
class _OpenCall:
    request: RequestRow
    first_line: int
    events: list[AssistantMessageEvent] = field(default_factory=list)
    event_ms: list[int | None] = field(default_factory=list)
    event_count: int = 0
    damaged: bool = False


class _Problems:
    def __init__(self, path: Path, strict: bool, keep: int | None = None) -> None:
        self.path, self.strict, self.keep = path, strict, keep
        self.found: list[RecordingProblem] = []
        self.dropped = 0
        """Problems past the `keep` first ones (counted, not kept)."""

    def add(self, line_number: int | None, call_index: int | None, reason: str) -> None:
        if self.strict:
            raise RecordingFileError(self.path, line_number, call_index, reason)
        if self.keep is not None and len(self.found) >= self.keep:
            self.dropped += 1
        else:
            problem = RecordingProblem(
                line_number=line_number, call_index=call_index, reason=reason
            )
            self.found.append(problem)


def read_recording_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes; refuses directories, FIFOs and other non-regular files with a clear error."""
    fd, _ = open_for_reading(path)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 24):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _explain(line: bytes, exc: ValidationError) -> tuple[int | None, str]:
    """Turn a failed row validation into (call_index, reason) a user can act on."""
    try:
        value = json.loads(line)
    except UnicodeDecodeError:
        return None, "line is not valid UTF-8"
    except json.JSONDecodeError as decode_error:
        return None, f"line is not valid JSON ({decode_error.msg} at column {decode_error.colno})"
    except RecursionError:
        return None, "line nests JSON too deeply to be a recording row"
    except ValueError:  # Python refuses to parse an integer of more than 4,300 digits
        return None, "line holds a number too long to be a recording value"
    if not isinstance(value, dict):
        return None, f"row must be a JSON object, found {type(value).__name__}"
    call_index = value.get("call_index") if type(value.get("call_index")) is int else None
    kind = value.get("type")
    if kind not in ROW_TYPES:
        return call_index, f"unknown row type {kind!r}"
    event = value.get("event")
    if kind == "event" and isinstance(event, dict) and event.get("type") not in EVENT_TYPES:
        return call_index, f"unknown event type {event.get('type')!r}"
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"][1:]) or "row"
    if first["type"] == "extra_forbidden":
        return call_index, f"{kind} row has an unknown key {location!r}"
    return call_index, f"{kind} row field {location}: {first['msg']}"


_NUMBER_SHAPE = bytes.maketrans(b"0123456789E-", b"0000000000e+")
"""Every digit as `0`, every exponent as `e`, every sign as `+` (the rest as it is)."""
_HUGE_SHAPES = (b"0e000", b"0e+000", b"0" * 200)
"""What a literal too large for a float (`1e999`, 400 digits; it parses as infinity) must hold, in
`_NUMBER_SHAPE`: a 3-digit exponent or a run of 200 digits. Searched with `bytes` methods in C: a
regular expression tried at every digit took 76 µs on a 4.8 KB tool result full of numbers."""


def _holds_no_float(annotation: Any) -> bool:
    """True when a field of this type holds only text, a strict integer, a bool or None: nothing a
    JSON literal like `NaN` or `1e999` can become (strict validation refuses a float for an int)."""
    if annotation in (str, int, bool, type(None)):
        return True
    origin = get_origin(annotation)
    if origin is Annotated:  # a bounded integer (`Count`, `CallMs`)
        return _holds_no_float(get_args(annotation)[0])
    if origin is Literal:
        return not any(isinstance(value, float) for value in get_args(annotation))
    if origin in (Union, UnionType):
        return all(_holds_no_float(member) for member in get_args(annotation))
    return False


def _numberless(model: type[BaseModel], but: str = "") -> bool:
    return all(_holds_no_float(f.annotation) for n, f in model.model_fields.items() if n != but)


_EVENT_CLASSES: tuple[type[BaseModel], ...] = get_args(get_args(AssistantMessageEvent)[0])
_ROW_CLASSES: tuple[type[BaseModel], ...] = (
    (CallEndRow, *_EVENT_CLASSES) if _numberless(EventRow, but="event") else (CallEndRow,)
)
_NUMBERLESS_ROWS: frozenset[type[BaseModel]] = frozenset(filter(_numberless, _ROW_CLASSES))
"""The call-end row and the event classes (text and thinking deltas, a tool call's start…) that
cannot hold a non-finite number, read from their fields: `_non_finite` skips them (most of the
rows of a streamed answer)."""


def _non_finite(line: bytes, row: Row) -> str | None:
    """What is wrong when the parsed `row` holds a NaN or an infinity (JSON has none), naming the
    number as written in `line`; None when it holds none. Cheap for most rows: a row of a
    `_NUMBERLESS_ROWS` class is not searched, and only a row whose bytes could hold one has its
    parsed values walked."""
    kind = type(row.event) if type(row) is EventRow else type(row)
    if kind in _NUMBERLESS_ROWS:
        return None
    if b"NaN" not in line and b"Infinity" not in line:
        shape = line.translate(_NUMBER_SHAPE)
        if not any(huge in shape for huge in _HUGE_SHAPES):
            return None
    values: list[Any] = [row.model_dump()]
    while values:
        value = values.pop()
        if isinstance(value, dict):
            values.extend(value.values())
        elif isinstance(value, list):
            values.extend(value)
        elif isinstance(value, float) and not math.isfinite(value):
            written = _non_finite_literal(line) or repr(value)
            if written.lstrip("-")[:1].isdigit():
                return f"the number {written}, beyond a float's range (it reads as infinity)"
            return f"the non-finite number {written}, which JSON cannot hold"
    return None


def _non_finite_literal(line: bytes) -> str | None:
    """How the first non-finite number of a JSON `line` is written (`1e999`), cut to 40 chars."""
    found: list[str] = []

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            found.append(text)
        return value

    try:
        json.loads(line, parse_float=number, parse_constant=number)
    except ValueError:  # an integer too long for Python beside it
        return None
    return one_line(found[0], 40) if found else None


CallVisitor = Callable[[RecordedCall], None]
"""Handed each whole call of a recording as the reader finishes it (see `scan_recording`)."""


def _read(path: str | os.PathLike[str], strict: bool) -> RecordingScan:
    """Every whole call, kept; the file's lines are read as they are parsed, so the file's bytes
    are never held whole beside its typed calls (a tenth of the peak of opening a replay)."""
    calls: list[RecordedCall] = []
    scan = _read_each(path, strict, calls.append, keeps_every_call=True)
    calls.sort(key=lambda call: call.call_index)
    return dataclasses.replace(scan, calls=tuple(calls))


def _read_each(
    path: str | os.PathLike[str],
    strict: bool,
    each: CallVisitor | None,
    keeps_every_call: bool = False,
) -> RecordingScan:
    """`_parse` over the file's lines as they are read (memory bounded by what `each` keeps)."""
    target = Path(path)
    fd, info = open_for_reading(target)
    with os.fdopen(fd, "rb", buffering=1 << 16) as rows:
        return _parse(target, rows, info.st_size, strict, each, keeps_every_call)


def streamed_facts(path: str | os.PathLike[str]) -> ScanFacts:
    """`scan_recording(path).facts` in memory bounded by the longest line, not the file: the
    same rows validated the same way, with no event kept (for list, show, status and the TUI)."""
    return _read_each(path, strict=False, each=None).facts


def read_header(path: str | os.PathLike[str]) -> HeaderRow:
    """The header of a recording, strictly validated, reading no row after it (for callers that
    need only the header: the recorded command, rules, provenance). Raises `RecordingFileError`
    with the strict reader's message when the file does not begin with a supported header; the
    calls are not checked."""
    target = Path(path)
    fd, info = open_for_reading(target)
    with os.fdopen(fd, "rb") as rows:
        scan = _parse(target, _through_first_row(rows), info.st_size, strict=True, each=None)
    assert scan.header is not None
    return scan.header


def _through_first_row(rows: Iterable[bytes]) -> Iterator[bytes]:
    """The lines up to and including the first that is not blank."""
    for line in rows:
        yield line
        if line.strip():
            return


def _parse(
    target: Path,
    rows: Iterable[bytes],
    size: int,
    strict: bool,
    each: CallVisitor | None,
    keeps_every_call: bool = False,
) -> RecordingScan:
    """The one reading of a recording's rows. `rows` are its lines, each with its newline (but a
    truncated last one). Each whole call is handed to `each` when its `call_end` is read, in the
    order calls end; the scan's `calls` is empty. Without `each` no call (request, events) is kept
    once read, only counted, and no more than `MAX_PROBLEMS` problems: memory bounded by the
    longest line. `keeps_every_call`: `each` keeps every call it is handed, so the request rows
    kept for references are the typed rows those calls hold, not a copy (`StoredRequests`)."""
    keep_calls = each is not None
    problems = _Problems(target, strict, keep=None if keep_calls else MAX_PROBLEMS)
    lines = _numbered_lines(rows)
    truncated = False
    header: HeaderRow | None = None
    open_calls: dict[int, _OpenCall] = {}
    stored = StoredRequests(typed=keeps_every_call)
    """Every call's request row as stored, for the references of later ones (`keep_calls`)."""
    requests = RequestChain(stored.get)
    message_counts: dict[int, int | None] = {}
    """Every call's number of messages (None: not a list), to check references."""
    next_call = 0
    foreign = False
    line_count = 0  # the last line's number
    calls_found = events_found = 0
    for number, line, ended in lines:
        line_count = number
        if not ended:  # the text after the last newline
            truncated = True
            break
        if line[:1] != b"{" and not line.strip():  # rows start with "{"; others may be blank
            continue
        try:
            row: Row = parse_row(line)
        except ValidationError as exc:
            call_index, reason = _explain(line, exc)
            if call_index in open_calls:
                open_calls[call_index].damaged = True
            if header is None and reason.startswith("unknown row type"):
                # Another tool's JSON lines: say what the file is, and show how it begins.
                first = line.decode("utf-8", errors="replace")
                reason = f"not an OpenProgram recording (first row: {one_line(first, 80)})"
            elif header is None and not reason.startswith("header row"):
                reason += " (the first row must be the header)"
            problems.add(number, call_index, reason)
            if header is None:
                break
            continue
        constant = _non_finite(line, row)
        if constant is not None:
            call_index = getattr(row, "call_index", None)
            if call_index in open_calls:
                open_calls[call_index].damaged = True
            problems.add(
                number,
                call_index,
                f"{row.type} row holds {constant}",
            )
            if header is None:
                break
            continue
        if isinstance(row, HeaderRow):
            if header is not None:
                problems.add(number, None, "duplicate header (only the first row may be a header)")
                continue
            header = row
            if row.format_version != RECORDING_FORMAT_VERSION:
                way_forward = f"; run: {migrate_command(target)}" if row.format_version == 1 else ""
                problems.add(
                    number,
                    None,
                    f"format_version {row.format_version} is not supported "
                    f"(this openprogram reads format_version {RECORDING_FORMAT_VERSION})"
                    + way_forward,
                )
                foreign = True
                # Not read, but counted as the TUI counts them: every view says the same totals.
                calls_found, events_found = _count_rows(line for _, line, ended in lines if ended)
                break
            continue
        if header is None:
            problems.add(number, None, f"the first row must be the header, found a {row.type} row")
            break
        if isinstance(row, RequestRow):
            calls_found += 1
            if row.call_index != next_call:
                problems.add(
                    number,
                    row.call_index,
                    f"request indexes must be contiguous from 0 (expected {next_call})",
                )
                continue
            next_call += 1
            base = row.base
            problem = reference_problem(
                row,
                message_counts.get(base) if base is not None else None,
                base in message_counts,
            )
            if problem is not None:
                problems.add(number, row.call_index, problem)
                open_calls[row.call_index] = _OpenCall(row, number, damaged=True)
                continue
            message_counts[row.call_index] = _message_count(row, message_counts)
            if keep_calls:
                stored.add(row, line)
            open_calls[row.call_index] = _OpenCall(row, number)
            continue
        current = open_calls.get(row.call_index)
        if current is None:
            problems.add(number, row.call_index, f"{row.type} row for a call with no open request")
            continue
        if isinstance(row, EventRow):
            events_found += 1
            if row.event_index != current.event_count:
                current.damaged = True
                problems.add(
                    number,
                    row.call_index,
                    f"event indexes must be contiguous (expected {current.event_count}, "
                    f"found {row.event_index})",
                )
                continue
            current.event_count += 1
            if keep_calls:
                current.events.append(row.event)
                current.event_ms.append(row.ms)
            continue
        assert isinstance(row, CallEndRow)
        del open_calls[row.call_index]
        if row.event_count != current.event_count:
            problems.add(
                number,
                row.call_index,
                f"call_end event_count {row.event_count} does not match the "
                f"{plural(current.event_count, 'event')} recorded",
            )
        elif not current.damaged:
            if each is None:
                continue
            each(
                RecordedCall(
                    row.call_index,
                    current.request,
                    tuple(current.events),
                    row.outcome,
                    row.error,
                    current.first_line,
                    number,
                    start_ms=current.request.start_ms,
                    duration_ms=row.duration_ms,
                    event_ms=tuple(current.event_ms),
                    requests=requests,
                )
            )
    if truncated:
        problems.add(line_count, None, TRUNCATED_LAST_LINE_REASON)
    if header is None and not problems.found:
        problems.add(None, None, "file is empty (no header)")
    if not foreign:
        for call_index, unfinished in sorted(open_calls.items()):
            problems.add(unfinished.first_line, call_index, UNFINISHED_CALL_REASON)
    return RecordingScan(
        path=target,
        header=header,
        calls=(),
        problems=tuple(problems.found),
        facts=_facts(header, size, calls_found, events_found, tuple(sorted(open_calls)), problems),
    )


def _count_rows(lines: Iterable[bytes]) -> tuple[int, int]:
    """The request and event rows among `lines` of a file of another format, by their `type`."""
    requests = events = 0
    for line in lines:
        kind = classify_row_tail(line)
        if kind is None and line.strip():
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):
                continue
            kind = row.get("type") if isinstance(row, dict) else None
        requests += kind == "request"
        events += kind == "event"
    return requests, events


def _message_count(row: RequestRow, counts: dict[int, int | None]) -> int | None:
    """How many messages the full request of `row` holds (its reference already checked)."""
    messages = row.context.get("messages")
    if row.base is None:
        return len(messages) if isinstance(messages, list) else None
    if counts.get(row.base) is None:
        return len(messages) if isinstance(messages, list) else None
    return (row.keep or 0) + (len(messages) if isinstance(messages, list) else 0)


def _numbered_lines(rows: Iterable[bytes]) -> Iterator[tuple[int, bytes, bool]]:
    """(line number from 1, the line without its newline, whether it ended with one)."""
    for number, line in enumerate(rows, start=1):
        if line.endswith(b"\n"):
            yield number, line[:-1], True
        else:
            yield number, line, False


def read_recording(path: str | os.PathLike[str]) -> Recording:
    """Read and strictly validate a whole recording; raises `RecordingFileError` on the first problem."""
    scan = _read(path, strict=True)
    assert scan.header is not None
    return Recording(path=scan.path, header=scan.header, calls=scan.calls)


def scan_recording(path: str | os.PathLike[str], each: CallVisitor | None = None) -> RecordingScan:
    """Read a recording tolerantly: every problem, and every call that is still whole.

    With `each`, every whole call is handed to it as soon as its `call_end` is read (in the order
    calls end, which is the order of `call_index` unless calls overlapped) and is not kept: the
    scan's `calls` is empty, and memory is the calls' request rows as stored plus one call's
    events, not the whole file's (`show`, `--textconv`). Raises `RecordingFileError` only when
    the file cannot be opened at all.
    """
    if each is not None:
        return _read_each(path, strict=False, each=each)
    return _read(path, strict=False)


def verify_recording(
    path: str | os.PathLike[str], each: CallVisitor | None = None
) -> RecordingScan:
    """Validate a whole recording as strictly as `read_recording` (raising `RecordingFileError` on
    its first problem) and keep no call: its header and facts, in memory bounded by the longest
    line, or by what `each` keeps when every whole call is handed to it as `scan_recording` does
    (`check` reads this much of the recording it hands to the program it runs; `--textconv`
    prints each call's block)."""
    return _read_each(path, strict=True, each=each)
