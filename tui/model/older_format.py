"""A version-1 recording in the recording view: shown read-only, with the migration offered.

A version-1 file's rows are full format-2 rows without times, so the index shows its calls as
they are; the strict reader refuses it (another version), so it is not checked, and nothing that
writes (a check, accept) is offered. `openprogram recordings migrate` converts it.
"""

from __future__ import annotations

from pathlib import Path

from openprogram.providers.recording.rows import RECORDING_FORMAT_VERSION

OLDER_FORMAT = 1
"""The format `openprogram recordings migrate` reads (`migrate.MIGRATES_FROM`)."""


def is_older_format(format_version: object) -> bool:
    """True for a version-1 file (the integer 1, not `true` or `1.0`)."""
    return type(format_version) is int and format_version == OLDER_FORMAT


def migration_offer() -> str:
    """The banner's line: what the file is and the key that migrates it (the reader's problem
    under it names the command for this file, so it is not said twice)."""
    return (
        f"Format {OLDER_FORMAT}, an older format: shown read-only (not checked, r is off). "
        f"m migrates it to format {RECORDING_FORMAT_VERSION} and keeps the old file."
    )


def migrate_file(path: Path) -> str:
    """Migrate `path` (the library's `migrate_recording`); the notification that says so."""
    from openprogram.recordings.migrate import migrate_recording

    report = migrate_recording(str(path))
    kept = f"; the old file is kept: {report.kept}" if report.kept else ""
    return f"Migrated to format {report.to_version}{kept}"
