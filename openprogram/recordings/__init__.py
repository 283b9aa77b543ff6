"""Managing recordings: list, inspect, select, turn off, delete, prune, repair, record once, check.

These functions work on files and the next-start configuration only; none of them initializes the
provider runtime, so they keep working while the configured file or the configuration is broken.
They return typed results and never print: the CLI prints them, the TUI displays them.

The names below are read from their modules when first used (PEP 562 `__getattr__`), so importing
one submodule (the diff, say) does not pay for all the others (docs/design-decisions.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openprogram.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from openprogram.providers.recording.store import (
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
    from openprogram.recordings.check import (
        CheckProgress,
        CheckResult,
        CheckStatus,
        CheckUsageError,
        RecordingEntry,
        entry_of,
        run_check,
    )
    from openprogram.recordings.details import (
        FIRST_TEXT_LIMIT,
        CallRow,
        RecordingDetails,
        describe_calls,
        describe_recording,
    )
    from openprogram.recordings.oneshot import OneShotRecording, record_command
    from openprogram.recordings.removal import (
        DeletedRecording,
        PruneFailure,
        PruneReport,
        RecordingRemovalError,
        delete_recording,
        plan_deletion,
        prune_recordings,
    )
    from openprogram.recordings.repair import DroppedPart, RepairReport, repair_recording
    from openprogram.recordings.selection import (
        recording_into,
        select_replay,
        start_recording,
        turn_off,
    )
    from openprogram.recordings.status import (
        APPLIES_ON_NEXT_START,
        RecordReplayStatus,
        read_status,
    )
    from openprogram.recordings.summary import (
        RecordingListing,
        RecordingSummary,
        list_recordings,
        summarize_recording,
    )

_MODULE_OF = {
    "APPLIES_ON_NEXT_START": "openprogram.recordings.status",
    "CallRow": "openprogram.recordings.details",
    "CheckProgress": "openprogram.recordings.check",
    "CheckResult": "openprogram.recordings.check",
    "CheckStatus": "openprogram.recordings.check",
    "CheckUsageError": "openprogram.recordings.check",
    "DeletedRecording": "openprogram.recordings.removal",
    "DroppedPart": "openprogram.recordings.repair",
    "FIRST_TEXT_LIMIT": "openprogram.recordings.details",
    "OneShotRecording": "openprogram.recordings.oneshot",
    "PruneFailure": "openprogram.recordings.removal",
    "PruneReport": "openprogram.recordings.removal",
    "RECORDING_ID_PATTERN": "openprogram.providers.recording.store",
    "RECORDING_SUFFIX": "openprogram.providers.recording.store",
    "RecordReplayStatus": "openprogram.recordings.status",
    "RecordingDetails": "openprogram.recordings.details",
    "RecordingEntry": "openprogram.recordings.check",
    "RecordingListing": "openprogram.recordings.summary",
    "RecordingLocation": "openprogram.providers.recording.store",
    "RecordingRemovalError": "openprogram.recordings.removal",
    "RecordingSelectorError": "openprogram.providers.recording.store",
    "RecordingSummary": "openprogram.recordings.summary",
    "RepairReport": "openprogram.recordings.repair",
    "check_recording_file": "openprogram.providers.recording.store",
    "delete_recording": "openprogram.recordings.removal",
    "describe_calls": "openprogram.recordings.details",
    "describe_recording": "openprogram.recordings.details",
    "ensure_recordings_dir": "openprogram.providers.recording.store",
    "entry_of": "openprogram.recordings.check",
    "list_recordings": "openprogram.recordings.summary",
    "locate_recording": "openprogram.providers.recording.store",
    "managed_path": "openprogram.providers.recording.store",
    "new_recording_id": "openprogram.providers.recording.store",
    "plan_deletion": "openprogram.recordings.removal",
    "prune_recordings": "openprogram.recordings.removal",
    "read_status": "openprogram.recordings.status",
    "recording_into": "openprogram.recordings.selection",
    "record_command": "openprogram.recordings.oneshot",
    "recordings_dir": "openprogram.providers.recording.store",
    "repair_recording": "openprogram.recordings.repair",
    "run_check": "openprogram.recordings.check",
    "select_replay": "openprogram.recordings.selection",
    "start_recording": "openprogram.recordings.selection",
    "summarize_recording": "openprogram.recordings.summary",
    "turn_off": "openprogram.recordings.selection",
    "validate_recording_id": "openprogram.providers.recording.store",
}


__getattr__ = lazy_getattr(__name__, _MODULE_OF)


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE_OF])


__all__ = [
    "APPLIES_ON_NEXT_START",
    "FIRST_TEXT_LIMIT",
    "RECORDING_ID_PATTERN",
    "RECORDING_SUFFIX",
    "CallRow",
    "CheckProgress",
    "CheckResult",
    "CheckStatus",
    "CheckUsageError",
    "DeletedRecording",
    "DroppedPart",
    "OneShotRecording",
    "PruneFailure",
    "PruneReport",
    "RecordReplayStatus",
    "RecordingDetails",
    "RecordingEntry",
    "RecordingListing",
    "RecordingLocation",
    "RecordingRemovalError",
    "RecordingSelectorError",
    "RecordingSummary",
    "RepairReport",
    "check_recording_file",
    "delete_recording",
    "describe_calls",
    "describe_recording",
    "ensure_recordings_dir",
    "entry_of",
    "list_recordings",
    "locate_recording",
    "managed_path",
    "new_recording_id",
    "plan_deletion",
    "prune_recordings",
    "read_status",
    "record_command",
    "recording_into",
    "recordings_dir",
    "repair_recording",
    "run_check",
    "select_replay",
    "start_recording",
    "summarize_recording",
    "turn_off",
    "validate_recording_id",
]
