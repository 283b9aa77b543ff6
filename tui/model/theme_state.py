"""The theme the TUI starts with: the last one switched to, kept in the state directory.

`<state>/tui.json` holds `{"theme": "openprogram-light"}`; it is read with the library's strict
configuration reader (`state_files`: no pydantic before the first frame) and replaced atomically, so a crash never leaves half a file. A file that
cannot be used is reported (one line naming the file and the field) and the default is used.
"""

from __future__ import annotations

import json
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
