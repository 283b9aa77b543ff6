"""Which command checks a recording: the one edited in the TUI, else the one recorded in `entry`.

Edited commands are remembered per recording in `<state>/tui-commands.json`
(`{"/abs/path.jsonl": {"argv": ["python", "agent.py", "bye"], "file_command": "<sha256>"}}`), read
and replaced (atomically, private: 0600) by the library's state-file functions, as `tui.json` is.
An unreadable file is treated as empty: losing a remembered command must never block a check.

An edited command runs in the folder the recording's header names, and the file at that path can
change (a pull, a download). So the edit keeps the hash of the file's command and folder as the
user saw them (`trust.command_digest`, the hash `trusted-commands.json` keeps): when the file now
stores another one that this machine has not allowed either, the dialog warns as for a download.
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
from openprogram.recordings import RecordingEntry, entry_of
from openprogram.recordings.trust import command_digest, is_trusted

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


@dataclass(frozen=True)
class RememberedCommand:
    """A command edited in the TUI, and the hash of the file's own command and folder then."""

    argv: list[str]
    file_command: str | None
    """`command_digest` of the header's `entry` when the edit ran; None when it had none (or the
    edit was remembered before this was kept)."""


def _argv(value: object) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(arg, str) for arg in value):
        return value
    return None


def _remembered(value: object) -> RememberedCommand | None:
    if isinstance(value, dict):
        argv, digest = _argv(value.get("argv")), value.get("file_command")
        if argv is None:
            return None
        return RememberedCommand(argv, digest if isinstance(digest, str) else None)
    argv = _argv(value)  # the older form: the argv alone
    return RememberedCommand(argv, None) if argv is not None else None


def _load() -> dict[str, RememberedCommand]:
    try:
        data = read_config_document(commands_path())
    except ConfigError:
        return {}
    commands = {key: _remembered(value) for key, value in data.items()}
    return {key: command for key, command in commands.items() if command is not None}


def _store(commands: dict[str, RememberedCommand]) -> None:
    path = commands_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    document = {
        key: {"argv": command.argv, "file_command": command.file_command}
        for key, command in commands.items()
    }
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))


def remembered_command(recording: Path) -> list[str] | None:
    """The command last edited in the TUI for `recording`, if any."""
    command = _load().get(_key(recording))
    return command.argv if command is not None else None


def remember_command(
    recording: Path, argv: Sequence[str] | None, file_command: RecordingEntry | None = None
) -> None:
    """Remember `argv` for `recording`, with the file's own command and folder as shown beside it
    (`file_command`); `None` forgets it (the recorded command applies again)."""
    commands = _load()
    if argv:
        digest = (
            None if file_command is None else command_digest(file_command.argv, file_command.cwd)
        )
        # never a credential on disk
        commands[_key(recording)] = RememberedCommand(remove_secret_argv(argv), digest)
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
    """The command a check starts with, where it came from, and the recorded one for comparison."""

    argv: list[str]
    cwd: str | None
    source: CommandSource
    recorded_argv: list[str] | None
    untrusted: bool = False
    """The file chose what runs (its command, or the folder an edit runs in) and this machine has
    neither recorded, run nor allowed that: the dialog warns, and only enter runs it."""


def initial_command(recording: Path, use_remembered: bool = True) -> CheckCommand:
    """The remembered command, else the recording's `entry`, else an empty one to type.

    Without `use_remembered` it is the command `openprogram recordings check` would run."""
    try:
        entry = entry_of(recording)
    except (OSError, RecordingFileError):
        entry = None
    if entry is None:
        remembered = remembered_command(recording) if use_remembered else None
        if remembered is not None:
            return CheckCommand(remembered, None, "remembered", None)
        return CheckCommand([], None, "none", None)
    recorded = list(entry.argv)
    # One rule with `openprogram.recordings.trust`: what the file asks to run is allowed only as
    # the exact command and folder (their hash) this machine recorded, ran or said yes to.
    allowed = is_trusted(recording, entry)
    edit = _load().get(_key(recording)) if use_remembered else None
    if edit is not None:
        seen = edit.file_command == command_digest(entry.argv, entry.cwd)
        return CheckCommand(edit.argv, entry.cwd, "remembered", recorded, not (seen or allowed))
    return CheckCommand(recorded, entry.cwd, "recorded", recorded, not allowed)


def choose_command(recording: Path, argv: Sequence[str], shown: CheckCommand) -> None:
    """Remember the command a user ran from the dialog that showed `shown`; running the recorded
    one again forgets the edit."""
    recorded = shown.recorded_argv
    if recorded is not None and list(argv) == recorded:
        remember_command(recording, None)
        return
    entry = None
    if recorded is not None and shown.cwd is not None:
        entry = RecordingEntry(argv=recorded, cwd=shown.cwd)
    remember_command(recording, argv, entry)
