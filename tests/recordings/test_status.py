"""`read_status` predicts what activation will do, without changing or starting anything."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from openprogram.providers.recording.activation import activate_record_replay
from openprogram.providers.recording.config import RecordReplayConfig, write_record_replay_config
from openprogram.recordings import ensure_recordings_dir, read_status
from tests.recording_files import write_recording


def configure(mode: str, file: str | None) -> None:
    write_record_replay_config(RecordReplayConfig.model_validate({"mode": mode, "file": file}))


def managed(name: str = "r") -> Path:
    return write_recording(ensure_recordings_dir() / f"{name}.jsonl")


def off_with_missing_file(home: Path) -> None:
    configure("off", "gone")


def replay_valid(home: Path) -> None:
    managed()
    configure("replay", "r")


def replay_missing(home: Path) -> None:
    configure("replay", "gone")


def replay_corrupt(home: Path) -> None:
    managed().write_text('{"type":"header","format_version":2}\n{"type":"request"\n')
    configure("replay", "r")


def replay_other_format(home: Path) -> None:
    managed().write_text('{"format_version":3,"type":"header"}\n')
    configure("replay", "r")


def replay_external_wide(home: Path) -> None:
    path = write_recording(home.parent / "external.jsonl")
    path.chmod(0o644)
    configure("replay", str(path))


def replay_managed_wide(home: Path) -> None:
    managed().chmod(0o644)
    configure("replay", "r")


def replay_symlink(home: Path) -> None:
    target = write_recording(home.parent / "target.jsonl")
    (ensure_recordings_dir() / "r.jsonl").symlink_to(target)
    configure("replay", "r")


def replay_without_file(home: Path) -> None:
    configure("replay", None)


def record_new_file(home: Path) -> None:
    configure("record", "fresh")


def record_existing(home: Path) -> None:
    managed()
    configure("record", "r")


def record_external(home: Path) -> None:
    configure("record", str(home.parent / "outside.jsonl"))


def record_symlink(home: Path) -> None:
    (ensure_recordings_dir() / "r.jsonl").symlink_to(home.parent / "anything.jsonl")
    configure("record", "r")


def record_other_format(home: Path) -> None:
    managed().write_text('{"format_version":3,"type":"header"}\n')
    configure("record", "r")


def record_garbage_file(home: Path) -> None:
    managed().write_text("not a recording\n")
    configure("record", "r")


def record_empty_file(home: Path) -> None:
    managed().write_text("")
    configure("record", "r")


def corrupt_config(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text("{not json")


def unknown_mode(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"record_replay": {"mode": "live"}}))


SCENARIOS: dict[str, tuple[Callable[[Path], None], bool]] = {
    "off-missing-file": (off_with_missing_file, False),
    "replay-valid": (replay_valid, False),
    "replay-missing": (replay_missing, True),
    "replay-corrupt": (replay_corrupt, True),
    "replay-other-format": (replay_other_format, True),
    "replay-external-0644": (replay_external_wide, False),
    "replay-managed-0644": (replay_managed_wide, False),
    "replay-symlink": (replay_symlink, True),
    "replay-no-file": (replay_without_file, True),
    "record-new-file": (record_new_file, False),
    "record-existing": (record_existing, False),
    "record-external": (record_external, True),
    "record-symlink": (record_symlink, True),
    "record-other-format": (record_other_format, True),
    "record-garbage-file": (record_garbage_file, True),
    "record-empty-file": (record_empty_file, False),
    "corrupt-config": (corrupt_config, True),
    "unknown-mode": (unknown_mode, True),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_status_predicts_exactly_what_activation_does(
    scenario: str, openprogram_home: Path
) -> None:
    arrange, blocks = SCENARIOS[scenario]
    arrange(openprogram_home)
    status = read_status()
    assert status.would_block is blocks
    if blocks:
        assert status.reason and "\n" not in status.reason
    assert activate_record_replay() == ("blocked" if blocks else status.mode)


def test_a_valid_replay_file_is_described(openprogram_home: Path) -> None:
    replay_valid(openprogram_home)
    status = read_status()
    assert (status.mode, status.file, status.managed) == ("replay", "r", True)
    assert (status.file_exists, status.file_valid, status.format_version) == (True, True, 2)
    assert status.calls == 1 and status.events and status.reason is None
    assert status.config_path == openprogram_home / "config.json" and status.config_exists
    assert "next start" in status.applies_on_next_start
    assert json.loads(json.dumps(status.model_dump(mode="json")))["path"] == str(status.path)


def test_status_never_repairs_permissions_it_only_says_the_start_will(
    openprogram_home: Path,
) -> None:
    replay_managed_wide(openprogram_home)
    status = read_status()
    assert status.note and "0644" in status.note and not status.would_block
    path = ensure_recordings_dir() / "r.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_missing_replay_file_and_a_corrupt_config_name_their_cause(
    openprogram_home: Path,
) -> None:
    replay_missing(openprogram_home)
    missing = read_status()
    assert (missing.file_exists, missing.reason) == (False, "file not found")
    corrupt_config(openprogram_home)
    broken = read_status()
    assert broken.mode is None and broken.config_error and "not valid JSON" in broken.config_error


def test_recording_into_a_new_file_notes_that_it_will_be_created(openprogram_home: Path) -> None:
    record_new_file(openprogram_home)
    status = read_status()
    assert status.file_exists is False and status.reason is None
    assert status.note == "the file will be created on the next start"
    assert not (ensure_recordings_dir() / "fresh.jsonl").exists()
