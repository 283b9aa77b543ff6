"""Managing recordings: list, inspect, select, turn off, delete, prune, repair, record once, check.

These functions work on files and the next-start configuration only; none of them initializes the
provider runtime, so they keep working while the configured file or the configuration is broken.
They return typed results and never print: the CLI prints them, the TUI displays them.

The names below are written once and read from their modules when first used
(`openprogram.lazy_names`), so importing one submodule (the diff, say) does not pay for all the
others (docs/design-decisions.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openprogram import lazy_names

if TYPE_CHECKING:
    from openprogram.providers.recording.file_policy import FileState, inspect, require_usable
    from openprogram.providers.recording.store import (
        RECORDING_ID_PATTERN,
        RECORDING_SUFFIX,
        RecordingLocation,
        RecordingSelectorError,
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
    from openprogram.recordings.file_stamp import FileStamp, stamp_of
    from openprogram.recordings.oneshot import OneShotRecording, record_command
    from openprogram.recordings.removal import (
        DeletedRecording,
        PruneFailure,
        PruneReport,
        RecordingRemovalError,
        delete_recording,
        plan_deletion,
        prune_recordings,
        versions_note,
    )
    from openprogram.recordings.repair import RepairReport, repair_recording
    from openprogram.recordings.running import (
        RunningRecording,
        running_recording,
        running_recordings,
    )
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

__all__, __getattr__, __dir__ = lazy_names.lazy_facade(__name__)
"""The public names: the imports above, each loaded from its module the first time it is asked for."""
