"""Which commands stored in recordings this machine runs without asking.

A recording's header stores the command that made it (`entry`), and `check`, `accept`, `rerecord`
and `openprogram-tui --check` run it. A recording travels (a clone, a download, an attachment), so
its command is data until the user has seen it whole and said yes. As git's `safe.directory` and
direnv's `allow` do, the yes is remembered on this machine: `<state>/trusted-commands.json`
(private, 0600) maps a recording's real path to a hash of the exact command and folder. It is
written when `record --` made the file here, after a yes (or `--yes`) to `check`, `accept` or
`rerecord`, when a rewrite here stored a new command, and when the TUI's command editor ran the
stored command. A header that changes its command (a pull, a new download at the same path) asks
again. A command the user types (`check ID -- CMD`) is their own and is never asked about.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.state_files import (
    ConfigError,
    atomic_write_bytes,
    config_lock,
    ensure_private_dir,
    read_config_document,
    state_dir,
)
from openprogram.recordings.check import RecordingEntry, entry_of

TRUST_FILE = "trusted-commands.json"


def trust_path() -> Path:
    """`<state>/trusted-commands.json`."""
    return state_dir() / TRUST_FILE


def command_digest(argv: Sequence[str], cwd: str) -> str:
    """The hash a trust record keeps of one command line and its folder."""
    exact = json.dumps([list(argv), cwd], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(exact.encode("utf-8")).hexdigest()


def _key(recording: Path) -> str:
    return os.path.realpath(recording)


def _records() -> dict[str, str]:
    try:
        document = read_config_document(trust_path())
    except ConfigError:
        return {}  # unreadable: nothing is trusted, so every stored command asks
    return {key: value for key, value in document.items() if isinstance(value, str)}


def is_trusted(recording: Path, entry: RecordingEntry) -> bool:
    """True when this machine recorded or was told yes to exactly `entry` for `recording`."""
    return _records().get(_key(recording)) == command_digest(entry.argv, entry.cwd)


def trust_command(recording: Path, entry: RecordingEntry) -> None:
    """Remember that `entry` may run for `recording` without a question (replaces an older one)."""
    with config_lock():
        records = _records()
        records[_key(recording)] = command_digest(entry.argv, entry.cwd)
        ensure_private_dir(state_dir())
        text = json.dumps(records, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        atomic_write_bytes(trust_path(), text.encode("utf-8"))


def stored_command(recording: Path) -> RecordingEntry | None:
    """The command stored in the recording's header, or None (none, or not readable)."""
    try:
        return entry_of(recording)
    except (OSError, RecordingFileError):
        return None


def trust_stored_command(recording: Path) -> None:
    """Trust the command now stored in `recording` (it was recorded or rewritten here)."""
    entry = stored_command(recording)
    if entry is not None:
        trust_command(recording, entry)


def untrusted_command(recording: Path) -> RecordingEntry | None:
    """The stored command that would run for `recording` and needs a yes first; None when there
    is none, or it is trusted."""
    entry = stored_command(recording)
    return None if entry is None or is_trusted(recording, entry) else entry
