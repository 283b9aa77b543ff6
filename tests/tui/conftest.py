"""TUI fixtures: the demo recording (generated once with the library), damaged copies, a demo home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Input

from openprogram.recordings import managed_path, select_replay
from tui.model.demo import DAMAGED_DEMO_ID, DEMO_RECORDING_ID, damage_copy, write_demo_recording
from tui.widgets.recording.call_browser import CallBrowser


def write_private(path: Path, data: bytes) -> Path:
    """Write `data` to a new 0600 file (as recordings are)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


@pytest.fixture(scope="session")
def demo_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The demo session's recording, recorded once per test run."""
    path = tmp_path_factory.mktemp("demo") / f"{DEMO_RECORDING_ID}.jsonl"
    write_demo_recording(path)
    return path.read_bytes()


@pytest.fixture
def demo_file(tmp_path: Path, demo_bytes: bytes) -> Path:
    """A private copy of the demo recording outside the managed root."""
    return write_private(tmp_path / "files" / f"{DEMO_RECORDING_ID}.jsonl", demo_bytes)


@pytest.fixture
def damaged_file(demo_file: Path) -> Path:
    """The demo cut off mid-call, as a crash leaves a file."""
    return damage_copy(demo_file, demo_file.with_name(f"{DAMAGED_DEMO_ID}.jsonl"))


@pytest.fixture
def demo_home(openprogram_home: Path, demo_bytes: bytes) -> Path:
    """A state dir holding the demo (active for replay) and its damaged copy; returns the demo."""
    demo = write_private(managed_path(DEMO_RECORDING_ID), demo_bytes)
    managed_path(DEMO_RECORDING_ID).parent.chmod(0o700)
    damage_copy(demo, managed_path(DAMAGED_DEMO_ID))
    select_replay(DEMO_RECORDING_ID)
    return demo


@pytest.fixture(autouse=True)
def steady_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    """No animations, no blinking cursors, no bursts of moves (each move shows its call, however
    fast Pilot sends the keys; the burst has its own test): what a test sees does not depend on
    timing."""
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(CallBrowser, "burst_seconds", 0.0)
