"""Deterministic agent-loop tests: one recording per test, replayed offline.

The pytest plugin (`openprogram.pytest_plugin`, loaded automatically when openprogram is installed)
gives tests the `openprogram_recording` fixture and marker; `OpenProgramRecording` is what the
fixture returns.
"""

from openprogram.testing.session import (
    RECORD_MODES,
    OpenProgramRecording,
    RecordingUnavailable,
    RecordMode,
    tui_command,
)

__all__ = [
    "RECORD_MODES",
    "OpenProgramRecording",
    "RecordMode",
    "RecordingUnavailable",
    "tui_command",
]
