"""Next-start configuration: `<state>/config.json`, read once when the provider runtime starts.

The state directory is `$OPENPROGRAM_HOME`, default `~/.openprogram`. Only the `record_replay` key
is ours to change; every other top-level key is kept untouched. Writes are atomic (temporary file,
fsync, rename, 0600) and serialised with an exclusive lock on `<state>/config.lock`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from openprogram.errors import OpenProgramError

REPLAY_REPORT_ENV = "OPENPROGRAM_REPLAY_REPORT"
REPLAY_RULES_ENV = "OPENPROGRAM_REPLAY_RULES"
REPLAY_RESUME_ENV = "OPENPROGRAM_REPLAY_RESUME"
"""Set by `openprogram recordings rerecord`: JSON `{"into": PATH, "from_call": K or null}`; calls
replay while they match, then go live and are recorded into PATH (a new version)."""
REPLAY_ACCEPT_ENV = "OPENPROGRAM_REPLAY_ACCEPT"
"""Set by `openprogram recordings accept`: replay keeps every recorded answer and writes each call,
with the incoming request where it differs, into this file (a new version, checked before use)."""
"""Matching rules given on a command line (`check --ignore ...`), as the header's `rules` JSON."""
"""Set by `openprogram recordings check`: a file where replay reports progress and mismatches,
so the parent learns what happened even when the program swallows the exception."""

RecordReplayMode = Literal["off", "record", "replay"]
RECORD_REPLAY_MODES: tuple[str, ...] = ("off", "record", "replay")


class ConfigError(OpenProgramError, ValueError):
    """The configuration file cannot be read or is not valid; `path` and `reason` say why."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"configuration {path}: {reason}")


class UnsafeDirectoryError(ConfigError):
    """A private state directory that is a symlink or not a directory; `path` and `reason` say why."""

    def __init__(self, path: Path, reason: str) -> None:
        ValueError.__init__(self, f"private directory {path}: {reason}")
        self.path = path
        self.reason = reason


class RecordReplayConfig(BaseModel):
    """The `record_replay` section: which mode the next start uses, and with which file."""

    model_config = ConfigDict(extra="forbid")
    mode: RecordReplayMode = "off"
    """`off` (live), `record` (write every call to `file`) or `replay` (answer from `file`)."""
    file: str | None = None
    """A managed recording ID or a path to a recording file."""


def state_dir() -> Path:
    """`$OPENPROGRAM_HOME`, or `~/.openprogram`."""
    home = os.environ.get("OPENPROGRAM_HOME")
    return Path(home).expanduser() if home else Path.home() / ".openprogram"


def config_path() -> Path:
    """Where the configuration lives: `<state>/config.json`."""
    return state_dir() / "config.json"


def read_config_document(path: Path | None = None) -> dict[str, Any]:
    """The whole configuration document; `{}` when there is no file. Raises `ConfigError`."""
    target = path or config_path()
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(target, f"cannot be read ({exc})") from None
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            target, f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(document, dict):
        raise ConfigError(target, "must hold a JSON object")
    return document


def parse_record_replay(document: dict[str, Any], path: Path) -> RecordReplayConfig:
    """Validate the `record_replay` section of a configuration document."""
    section = document.get("record_replay", {})
    try:
        return RecordReplayConfig.model_validate(section)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in ("record_replay", *first["loc"]))
        raise ConfigError(path, f"{where}: {first['msg']}") from None


def read_record_replay_config(path: Path | None = None) -> RecordReplayConfig:
    """The configured record/replay mode and file (defaults when unset). Raises `ConfigError`."""
    target = path or config_path()
    return parse_record_replay(read_config_document(target), target)


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (0700) if missing; refuse a symlink; tighten our own directory to 0700."""
    if path.is_symlink():
        raise UnsafeDirectoryError(path, "is a symlink; refusing to keep recordings or state there")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not path.is_dir():
        raise UnsafeDirectoryError(path, "is not a directory")
    if path.stat().st_mode & 0o077 and path.stat().st_uid == os.getuid():
        path.chmod(0o700)
    return path


@contextlib.contextmanager
def config_lock() -> Iterator[None]:
    """Hold the exclusive configuration lock (serialises every writer of config.json)."""
    directory = ensure_private_dir(state_dir())
    fd = os.open(directory / "config.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically: a 0600 temporary file beside it, fsync, rename."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` atomically: a temporary file (`mode`) beside it, fsync, rename."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise


def write_record_replay_config(
    config: RecordReplayConfig, *, backup_corrupt: bool = False
) -> Path | None:
    """Save the `record_replay` section, keeping every other key; applies on the next start.

    A corrupt configuration is never overwritten silently: with `backup_corrupt` it is first kept as
    `config.json.corrupt-<time>` (whose path is returned), otherwise `ConfigError` is raised.
    """
    path = config_path()
    backup: Path | None = None
    with config_lock():
        try:
            document = read_config_document(path)
            parse_record_replay(document, path)
        except ConfigError:
            if not backup_corrupt:
                raise
            backup = path.with_name(f"config.json.corrupt-{time.strftime('%Y%m%dT%H%M%S')}")
            os.replace(path, backup)
            document = {}
        document["record_replay"] = config.model_dump(mode="json")
        atomic_write_text(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return backup
