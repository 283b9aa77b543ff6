"""Salvaging a damaged managed recording into a valid one holding every whole call.

The original is kept as a previous version (`versions/ID/`, listed by `history`, put back by
`restore`) before anything changes, and the salvaged file replaces it atomically, so nothing is
ever lost and no second `*.jsonl` is left among the managed recordings. Calls after a dropped
one are renumbered to stay contiguous; the report says which.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from pydantic import BaseModel

from openprogram.providers.recording.errors import RecordingProblem
from openprogram.providers.recording.file_policy import require_usable
from openprogram.providers.recording.reader import scan_recording
from openprogram.providers.recording.replayer import copy_call
from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION
from openprogram.providers.recording.writer import RecordingSink
from openprogram.recordings.removal import RecordingRemovalError, locate_managed, refusal_reason
from openprogram.recordings.versions import keep_version


class RepairReport(BaseModel):
    """What `repair` kept, dropped and renumbered, and where the original went."""

    recording_id: str
    path: str
    already_valid: bool
    damaged_copy: str | None
    """The original, kept as a previous version (`history`, `restore`); None when valid."""
    kept_calls: int
    kept_events: int
    dropped: list[RecordingProblem]
    """Every problem the salvage left behind: where, which call, and why."""
    renumbered: dict[int, int]
    """Old call index → new one, for calls that moved up past a dropped call."""


def repair_recording(recording_id: str) -> RepairReport:
    """Rewrite a damaged managed recording with every whole call; keep the original as a previous version."""
    location = locate_managed(recording_id, action="repair")
    require_usable(location, view_only=True)  # missing: worded as every command words it
    reason = refusal_reason(location)
    if reason is not None:
        raise RecordingRemovalError(location.path, reason, action="repair")
    require_usable(location, tighten=True)
    scan = scan_recording(location.path)
    dropped = list(scan.problems)
    report: dict[str, Any] = {
        "recording_id": recording_id,
        "path": str(location.path),
        "kept_calls": len(scan.calls),
        "kept_events": sum(len(call.events) for call in scan.calls),
        "dropped": dropped,
    }
    if scan.valid:
        return RepairReport(**report, already_valid=True, damaged_copy=None, renumbered={})
    if scan.header is None:
        raise RecordingRemovalError(
            location.path, f"nothing can be salvaged: {scan.problems[0].reason}", action="repair"
        )
    if scan.header.format_version != RECORDING_FORMAT_VERSION:
        # Another format is not damage: rewriting it in ours would drop every call it holds.
        raise RecordingRemovalError(
            location.path,
            f"it is written in format_version {scan.header.format_version}, which this "
            f"openprogram cannot read (it reads format_version {RECORDING_FORMAT_VERSION}); "
            "nothing was changed",
            action="repair",
        )
    header = scan.header.model_dump(mode="json")
    metadata = {k: v for k, v in header.items() if k not in ("type", "format_version")}
    renumbered = {
        call.call_index: new_index
        for new_index, call in enumerate(scan.calls)
        if call.call_index != new_index
    }
    temporary = location.path.with_name(f".{recording_id}.repair-{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()  # a leftover of a repair that crashed: the writer would append to it
    try:
        # The one writer: requests with their references, events and calls with their times.
        sink = RecordingSink(temporary, metadata, durable=False)  # renamed in once whole
        try:
            for call in scan.calls:
                copy_call(sink, call.request_payload(), call)
        finally:
            sink.close()
        damaged = keep_version(location.path, recording_id)  # kept before anything changes
        os.replace(temporary, location.path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
    return RepairReport(
        **report, already_valid=False, damaged_copy=str(damaged), renumbered=renumbered
    )
