"""The state directory's files: where they live, how they are read, and how they are replaced.

Shared by the next-start configuration (`config.py`) and every other file kept in the state
directory (the TUI's `tui.json`), without the configuration's models: reading a small JSON file at
start-up must not import pydantic (~100 ms before the TUI's first frame).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from openprogram.errors import OpenProgramError


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


def state_dir() -> Path:
    """`$OPENPROGRAM_HOME`, or `~/.openprogram`."""
    home = os.environ.get("OPENPROGRAM_HOME")
    return Path(home).expanduser() if home else Path.home() / ".openprogram"


def config_path() -> Path:
    """Where the configuration lives: `<state>/config.json`."""
    return state_dir() / "config.json"


RUN_SPEC_NAME = "check-run.json"
"""A check's run spec (`check_protocol`), inside its child's private state directory."""


def run_spec_left(home: Path) -> bool:
    """True when a check's parent left its run spec in the state directory `home` (a link counts:
    `read_run_spec` refuses it rather than overlooking it)."""
    path = home / RUN_SPEC_NAME
    return path.exists() or path.is_symlink()


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
    atomic_write_parts(path, (data,), mode)


def atomic_write_parts(path: Path, parts: Iterable[bytes], mode: int = 0o600) -> None:
    """`atomic_write_bytes` of `parts` joined, written one by one as they come: what is written
    is never held whole in memory (a report page of a long recording)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            for part in parts:
                handle.write(part)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise
