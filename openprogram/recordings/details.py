"""What `show` needs about one recording: its summary, header, one row per call and every problem."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.summary import (
    RecordingSummary,
    configured_mode_and_file,
    scan_location,
    summary_from_scan,
)
from openprogram.text import one_line

FIRST_TEXT_LIMIT = 80
"""At most this many characters of a call's first user text are shown."""


@dataclass(frozen=True)
class CallRow:
    """One recorded call as `show` lists it."""

    call_index: int
    api: str | None
    provider: str | None
    model: str | None
    events: int
    outcome: str
    first_user_text: str | None
    """The first user message's text, on one line and bounded to `FIRST_TEXT_LIMIT`."""


@dataclass(frozen=True)
class RecordingDetails:
    """What `show` prints: the summary, the header metadata, every whole call and every problem."""

    summary: RecordingSummary
    header: dict[str, Any] | None
    calls: tuple[CallRow, ...]
    problems: tuple[str, ...]
    unfinished_calls: tuple[int, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """Stable JSON fields for `show --json`."""
        return {
            **self.summary.to_json(),
            "header": self.header,
            "calls": [asdict(row) for row in self.calls],
            "problems": list(self.problems),
            "unfinished_calls": list(self.unfinished_calls),
        }


def _string(values: dict[str, Any], key: str) -> str | None:
    value = values.get(key)
    return value if isinstance(value, str) else None


def _first_user_text(call: RecordedCall) -> str | None:
    messages = call.request.context.get("messages")
    for message in messages if isinstance(messages, list) else []:  # a file may hold any JSON
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            parts = [b.get("text") for b in content if isinstance(b, dict)]
            content = " ".join(part for part in parts if isinstance(part, str))
        if not isinstance(content, str):
            return None
        return one_line(content, FIRST_TEXT_LIMIT)
    return None


def describe_calls(calls: tuple[RecordedCall, ...]) -> tuple[CallRow, ...]:
    """One row per call: index, api, provider, model id, event count, outcome, first user text."""
    return tuple(
        CallRow(
            call_index=call.call_index,
            api=_string(call.request.model, "api"),
            provider=_string(call.request.model, "provider"),
            model=_string(call.request.model, "id"),
            events=len(call.events),
            outcome=call.outcome,
            first_user_text=_first_user_text(call),
        )
        for call in calls
    )


def describe_recording(selector: str) -> RecordingDetails:
    """Everything `show` needs about a managed ID or a path, from one scan of the file."""
    location = locate_recording(selector)
    config, _ = configured_mode_and_file()
    info, scan = scan_location(location)
    summary = summary_from_scan(location, info, scan, config)
    if isinstance(scan, str):
        return RecordingDetails(summary, None, (), (scan,))
    header = scan.header.model_dump(mode="json") if scan.header else None
    return RecordingDetails(
        summary,
        header,
        describe_calls(scan.calls),
        tuple(problem.describe() for problem in summary.facts.problems),
        scan.facts.unfinished_calls,
    )
