"""What the TUI keeps in the state directory, and how it names paths there and elsewhere.

The theme the TUI starts with is the last one switched to: `<state>/tui.json` holds
`{"theme": "openprogram-light"}`; it is read with the library's strict configuration reader
(`state_files`: no pydantic before the first frame) and replaced atomically, so a crash never
leaves half a file. A file that cannot be used is reported (one line naming the file and the
field) and the default is used.

A recording's versions (made by accept and rerecord) are kept under the state directory; the
recording view says what they are (`version_note`). Paths are shown as people read them: short,
and the same on every machine for the state directory (`display_path`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from openprogram.providers.recording.state_files import (
    ConfigError,
    atomic_write_bytes,
    ensure_private_dir,
    read_config_document,
    state_dir,
)


def display_path(path: Path) -> str:
    """`$OPENPROGRAM_HOME/recordings` inside a state dir set by that variable, `~/…` under home."""
    target = Path(os.path.abspath(path))
    home_setting = os.environ.get("OPENPROGRAM_HOME")
    if home_setting:
        state = Path(os.path.abspath(Path(home_setting).expanduser()))
        if target == state or state in target.parents:
            rest = target.relative_to(state).as_posix()
            return "$OPENPROGRAM_HOME" + ("" if rest == "." else f"/{rest}")
    user_home = Path.home()
    if target == user_home or user_home in target.parents:
        return "~/" + target.relative_to(user_home).as_posix()
    try:
        relative = target.relative_to(Path.cwd())
    except ValueError:
        return str(target)
    return relative.as_posix()


def theme_state_path() -> Path:
    """Where the TUI keeps its own choices: `<state>/tui.json`."""
    return state_dir() / "tui.json"


@dataclass(frozen=True)
class SavedTheme:
    """The theme saved by the last switch (None: none saved, or the file cannot be used)."""

    name: str | None
    problem: str | None = None
    """Why the saved file cannot be used, naming the file and the field."""


def read_saved_theme(known: Collection[str]) -> SavedTheme:
    """The saved theme when it is one of `known`; any problem with the file is said, not raised."""
    path = theme_state_path()
    try:
        document = read_config_document(path)
    except ConfigError as exc:
        return SavedTheme(None, str(exc))
    name = document.get("theme")
    if name is None:
        return SavedTheme(None)
    if name not in known:
        choices = ", ".join(sorted(known))
        return SavedTheme(None, f"{path}: field 'theme': {name!r} is not one of {choices}")
    return SavedTheme(name)


def save_theme(name: str) -> Path:
    """Remember `name` for the next start (other keys of the file are kept when it is readable).

    Raises `OSError` or `ConfigError` (an unsafe state directory) when it cannot be written.
    """
    path = theme_state_path()
    ensure_private_dir(path.parent)
    try:
        document = read_config_document(path)
    except ConfigError:
        document = {}  # unreadable: replaced by a good one (it only ever held the theme)
    document["theme"] = name
    atomic_write_bytes(path, (json.dumps(document, indent=2, sort_keys=True) + "\n").encode())
    return path


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
