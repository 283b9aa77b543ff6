"""The recordings named on `openprogram-tui`'s command line: a path, or a managed ID."""

from __future__ import annotations

import os
from pathlib import Path


class RecordingArgumentError(ValueError):
    """A recording named on the command line that cannot be opened; says which and why."""

    def __init__(self, text: str, reason: str) -> None:
        self.text, self.reason = text, reason
        super().__init__(f"{text}: {reason}")


def recording_path(text: str) -> Path:
    """The file a PATH or managed ID names: an existing file as given, else the managed
    recording with that ID (as `openprogram recordings` takes them), else the file a running
    `record --name ID -- COMMAND` is making; refused before the app
    starts by the library's file policy (missing, a symlink, not a regular file)."""
    from openprogram.recordings import (
        RecordingSelectorError,
        inspect,
        locate_recording,
        running_recording,
    )

    given = Path(text)
    if not os.path.lexists(given):
        try:
            location = locate_recording(text)
        except RecordingSelectorError:
            raise RecordingArgumentError(text, "no such file or managed recording") from None
        given = location.path
        # `record --name ID -- COMMAND` may be making it now, outside the managed root
        running = running_recording(location.recording_id) if location.recording_id else None
        if running is not None and not os.path.lexists(given):
            given = running
    if given.is_dir() and not given.is_symlink():
        raise RecordingArgumentError(text, "is a directory, not a recording file")
    state = inspect(given)
    if state.reason is not None and not state.too_wide:  # viewing reads any mode
        # worded as every `openprogram recordings` command words it
        raise RecordingArgumentError(f"recording file {given}", state.reason)
    return given


def check_recording_path(text: str) -> Path:
    """`recording_path` for `--check`: the file must also begin as a recording, since a check
    runs its stored command (refused before the app starts, nothing asked, nothing run)."""
    from openprogram.providers.recording.errors import RecordingFileError
    from openprogram.providers.recording.reader import read_header

    path = recording_path(text)
    try:
        read_header(path)
    except RecordingFileError as exc:
        raise RecordingArgumentError(text, f"not a recording ({exc.reason})") from None
    except OSError as exc:
        raise RecordingArgumentError(text, exc.strerror or str(exc)) from None
    return path
