"""Managing recordings: list, inspect, select for record or replay, turn off, delete and prune.

These functions work on files and the next-start configuration only; none of them initializes the
provider runtime, so they keep working while the configured file or the configuration is broken.
They return typed results and never print: the CLI prints them, the TUI displays them.
"""

from openprogram.recordings.details import (
    FIRST_TEXT_LIMIT,
    CallRow,
    RecordingDetails,
    describe_calls,
    describe_recording,
)
from openprogram.recordings.removal import (
    DeletedRecording,
    PruneFailure,
    PruneReport,
    RecordingRemovalError,
    delete_recording,
    plan_deletion,
    prune_recordings,
)
from openprogram.recordings.selection import select_replay, start_recording, turn_off
from openprogram.recordings.status import (
    APPLIES_ON_NEXT_START,
    RecordReplayStatus,
    read_status,
)
from openprogram.recordings.store import (
    RECORDING_ID_PATTERN,
    RECORDING_SUFFIX,
    RecordingLocation,
    RecordingSelectorError,
    check_recording_file,
    ensure_recordings_dir,
    locate_recording,
    managed_path,
    new_recording_id,
    recordings_dir,
    validate_recording_id,
)
from openprogram.recordings.summary import (
    RecordingListing,
    RecordingSummary,
    describe_problem,
    list_recordings,
    summarize_recording,
)

__all__ = [
    "APPLIES_ON_NEXT_START",
    "FIRST_TEXT_LIMIT",
    "RECORDING_ID_PATTERN",
    "RECORDING_SUFFIX",
    "CallRow",
    "DeletedRecording",
    "PruneFailure",
    "PruneReport",
    "RecordReplayStatus",
    "RecordingDetails",
    "RecordingListing",
    "RecordingLocation",
    "RecordingRemovalError",
    "RecordingSelectorError",
    "RecordingSummary",
    "check_recording_file",
    "delete_recording",
    "describe_calls",
    "describe_problem",
    "describe_recording",
    "ensure_recordings_dir",
    "list_recordings",
    "locate_recording",
    "managed_path",
    "new_recording_id",
    "plan_deletion",
    "prune_recordings",
    "read_status",
    "recordings_dir",
    "select_replay",
    "start_recording",
    "summarize_recording",
    "turn_off",
    "validate_recording_id",
]
