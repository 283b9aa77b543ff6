"""The recordings named on `openprogram-tui`'s command line: a path, or a managed ID."""

from __future__ import annotations

from pathlib import Path


class RecordingArgumentError(ValueError):
    """A recording named on the command line that cannot be opened; says which and why."""

    def __init__(self, text: str, reason: str) -> None:
        self.text, self.reason = text, reason
        super().__init__(f"{text}: {reason}")


def recording_path(text: str) -> Path:
    """The file a PATH or managed ID names: an existing file as given, else the managed
    recording with that ID (as `openprogram recordings` takes them); refused before the app
    starts when it is missing or not a regular file."""
    given = Path(text)
    if not given.exists():
        # Only a name that is not a file needs the store (and its configuration models).
        from openprogram.recordings import RecordingSelectorError, locate_recording

        try:
            location = locate_recording(text)
        except RecordingSelectorError:
            raise RecordingArgumentError(text, "no such file or managed recording") from None
        if location.recording_id is None or not location.path.exists():
            raise RecordingArgumentError(text, "no such file or managed recording")
        given = location.path
    if given.is_dir():
        raise RecordingArgumentError(text, "is a directory, not a recording file")
    if not given.is_file():
        raise RecordingArgumentError(text, "is not a regular file")
    return given
