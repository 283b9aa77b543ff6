"""Next-start configuration: `<state>/config.json`, read once when the provider runtime starts.

The state directory is `$OPENPROGRAM_HOME`, default `~/.openprogram`. Only the `record_replay` key
is ours to change; every other top-level key is kept untouched. Writes are atomic (temporary file,
fsync, rename, 0600) and serialised with an exclusive lock on `<state>/config.lock`.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from openprogram.providers.recording.state_files import (
    ConfigError,
    UnsafeDirectoryError,
    atomic_write_bytes,
    atomic_write_text,
    config_lock,
    config_path,
    ensure_private_dir,
    read_config_document,
    state_dir,
)

# The state directory's files live in `state_files` (no pydantic); they are named here too, where
# the configuration's callers have always found them.
__all__ = [
    "RECORD_REPLAY_MODES",
    "ConfigError",
    "RecordReplayConfig",
    "RecordReplayMode",
    "UnsafeDirectoryError",
    "atomic_write_bytes",
    "atomic_write_text",
    "config_lock",
    "config_path",
    "ensure_private_dir",
    "parse_record_replay",
    "read_config_document",
    "read_record_replay_config",
    "state_dir",
    "write_record_replay_config",
]

RecordReplayMode = Literal["off", "record", "replay"]
RECORD_REPLAY_MODES: tuple[RecordReplayMode, ...] = get_args(RecordReplayMode)


class RecordReplayConfig(BaseModel):
    """The `record_replay` section: which mode the next start uses, and with which file."""

    model_config = ConfigDict(extra="forbid")
    mode: RecordReplayMode = "off"
    """`off` (live), `record` (write every call to `file`) or `replay` (answer from `file`)."""
    file: str | None = None
    """A managed recording ID or a path to a recording file."""


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
