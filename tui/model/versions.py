"""What the recording view says of a recording's versions (made by accept and rerecord)."""

from __future__ import annotations

from pathlib import Path


def version_note(path: Path) -> str | None:
    """`accepted 2026-12-03 · 2 earlier versions kept (history)`, or None when there is nothing
    to say (never rewritten, nothing kept). Reads the header line and the versions folder."""
    from openprogram.providers.recording.reader import read_header
    from openprogram.providers.recording.store import recordings_dir
    from openprogram.recordings.versions import list_versions

    parts = []
    try:  # the strict reader's header: bounded nesting and numbers, never a RecursionError
        header = read_header(path).model_extra or {}
    except (OSError, ValueError):  # RecordingFileError is a ValueError
        header = {}
    produced = header.get("produced_by")
    if isinstance(produced, dict):
        how = {"accept": "accepted", "rerecord": "recorded again"}.get(
            str(produced.get("how")), str(produced.get("how"))
        )
        parts.append(f"{how} {str(produced.get('at', ''))[:10]}".strip())
    try:
        managed = path.resolve().parent == recordings_dir().resolve()
        kept = list_versions(path.stem) if managed else []
    except (OSError, ValueError):
        kept = []
    if kept:
        noun = "earlier version" if len(kept) == 1 else "earlier versions"
        parts.append(f"{len(kept)} {noun} kept (recordings history {path.stem})")
    return " · ".join(parts) or None
