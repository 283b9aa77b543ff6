"""Which command reruns a recording: the one edited in the TUI, else the one recorded in `entry`.

Edited commands are remembered per recording in `<state>/tui-commands.json`
(`{"/abs/path.jsonl": ["python", "agent.py", "bye"]}`), read and replaced (atomically, private:
0600) by the library's state-file functions, as `tui.json` is. An unreadable file is treated as
empty: losing a remembered command must never block a rerun.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.redaction import remove_secret_argv
from openprogram.providers.recording.state_files import (
    ConfigError,
    atomic_write_bytes,
    read_config_document,
    state_dir,
)
from openprogram.recordings import entry_of

COMMANDS_FILE = "tui-commands.json"
CommandSource = Literal["given", "remembered", "recorded", "none"]
"""Where a command came from: the command line, an earlier edit, the recording's `entry`, nowhere."""


class CommandSyntaxError(ValueError):
    """A command line that cannot be split into arguments (e.g. an unclosed quote)."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"cannot read the command {text!r}: {reason}")


def commands_path() -> Path:
    """`<state>/tui-commands.json`."""
    return state_dir() / COMMANDS_FILE


def _key(recording: Path) -> str:
    return str(Path(os.path.abspath(recording)))


def _load() -> dict[str, list[str]]:
    try:
        data = read_config_document(commands_path())
    except ConfigError:
        return {}
    return {
        key: value
        for key, value in data.items()
        if isinstance(value, list) and value and all(isinstance(arg, str) for arg in value)
    }


def _store(commands: dict[str, list[str]]) -> None:
    path = commands_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    text = json.dumps(commands, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))


def remembered_command(recording: Path) -> list[str] | None:
    """The command last edited in the TUI for `recording`, if any."""
    return _load().get(_key(recording))


def remember_command(recording: Path, argv: Sequence[str] | None) -> None:
    """Remember `argv` for `recording`; `None` forgets it (the recorded command applies again)."""
    commands = _load()
    if argv:
        commands[_key(recording)] = remove_secret_argv(argv)  # never a credential on disk
    elif commands.pop(_key(recording), None) is None:
        return
    _store(commands)


_SHLEX_REASONS = {
    "No closing quotation": "a quote is not closed",
    "No escaped character": "it ends with a lone backslash",
}


def parse_command(text: str) -> list[str]:
    """Split a command line as a POSIX shell would (`python agent.py "two words"`)."""
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        reason = _SHLEX_REASONS.get(str(exc), str(exc))
        raise CommandSyntaxError(text, reason) from None
    if not argv:
        raise CommandSyntaxError(text, "it is empty")
    return argv


def format_command(argv: Sequence[str]) -> str:
    """The command line that `parse_command` reads back as `argv`."""
    return shlex.join(argv)


@dataclass(frozen=True)
class CheckCommand:
    """The command a rerun starts with, where it came from, and the recorded one for comparison."""

    argv: list[str]
    cwd: str | None
    source: CommandSource
    recorded_argv: list[str] | None


def initial_command(recording: Path, use_remembered: bool = True) -> CheckCommand:
    """The remembered command, else the recording's `entry`, else an empty one to type.

    Without `use_remembered` it is the command `openprogram recordings check` would run."""
    try:
        entry = entry_of(recording)
    except (OSError, RecordingFileError):
        entry = None
    recorded = list(entry.argv) if entry is not None else None
    cwd = entry.cwd if entry is not None else None
    remembered = remembered_command(recording) if use_remembered else None
    if remembered is not None:
        return CheckCommand(remembered, cwd, "remembered", recorded)
    if recorded is not None:
        return CheckCommand(recorded, cwd, "recorded", recorded)
    return CheckCommand([], None, "none", None)


def choose_command(
    recording: Path, argv: Sequence[str], recorded_argv: Sequence[str] | None
) -> None:
    """Remember the command a user ran; running the recorded one again forgets the edit."""
    same = recorded_argv is not None and list(argv) == list(recorded_argv)
    remember_command(recording, None if same else argv)
