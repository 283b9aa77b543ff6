"""record / replay / off: validate first, write the configuration last, change nothing on failure."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from openprogram.providers.recording.config import (
    ConfigError,
    RecordReplayConfig,
    read_record_replay_config,
    write_record_replay_config,
)
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.redaction import REDACTION_VERSION
from openprogram.recordings import (
    RECORDING_ID_PATTERN,
    RecordingSelectorError,
    ensure_recordings_dir,
    recording_into,
    recordings_dir,
    select_replay,
    start_recording,
    turn_off,
)
from openprogram.recordings import selection as selection_module
from openprogram.recordings.summary import parse_timestamp
from tests.recording_files import write_recording

GENERATED_ID = r"\d{8}T\d{6}Z-[0-9a-f]{8}"


def config_bytes(home: Path) -> bytes | None:
    path = home / "config.json"
    return path.read_bytes() if path.exists() else None


def test_record_creates_a_private_file_with_a_header_then_selects_it() -> None:
    path = start_recording()
    assert path.parent == recordings_dir() and RECORDING_ID_PATTERN.match(path.stem)
    assert re.fullmatch(GENERATED_ID, path.stem)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(recordings_dir().stat().st_mode) == 0o700
    header = read_recording(path).header.model_dump()
    assert header["recording_id"] == path.stem
    assert parse_timestamp(header["created_at"]) is not None
    assert header["created_at"].endswith("Z")
    assert header["redaction_version"] == REDACTION_VERSION
    assert read_record_replay_config() == RecordReplayConfig(mode="record", file=path.stem)


def test_record_keeps_other_configuration_keys_and_stores_the_entry(
    openprogram_home: Path,
) -> None:
    openprogram_home.mkdir()
    (openprogram_home / "config.json").write_text(json.dumps({"theme": "dark"}))
    path = start_recording("demo", entry={"argv": ["python", "x.py"], "cwd": "/tmp"})
    assert read_recording(path).header.model_dump()["entry"]["argv"] == ["python", "x.py"]
    assert json.loads((openprogram_home / "config.json").read_text())["theme"] == "dark"


def test_an_existing_name_is_refused_even_when_it_is_the_record_file() -> None:
    first = start_recording("demo")
    before = first.read_bytes()
    for _ in range(2):  # configured for record, then off: refused both times, naming the file
        with pytest.raises(RecordingSelectorError, match=f"already exists \\({first}\\).*--append"):
            start_recording("demo")
        assert first.read_bytes() == before
        turn_off()
    assert read_record_replay_config().mode == "off"


def test_append_records_into_an_existing_recording_after_its_last_call() -> None:
    first = start_recording("demo")
    turn_off()
    assert start_recording("demo", append=True) == first
    assert read_record_replay_config() == RecordReplayConfig(mode="record", file="demo")
    assert start_recording("fresh", append=True).exists()  # nothing to add to: a new one


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", ".hidden", "x..y", "", "a b"])
def test_an_unsafe_name_is_refused_and_creates_nothing(name: str, openprogram_home: Path) -> None:
    with pytest.raises(RecordingSelectorError):
        start_recording(name)
    assert not (openprogram_home.parent / "escape.jsonl").exists()
    assert config_bytes(openprogram_home) is None


def test_record_never_follows_a_symlink_at_the_managed_path(tmp_path: Path) -> None:
    target = tmp_path / "victim.jsonl"
    target.write_text("keep me\n")
    (ensure_recordings_dir() / "demo.jsonl").symlink_to(target)
    with pytest.raises(RecordingSelectorError, match="already exists"):
        start_recording("demo")
    assert target.read_text() == "keep me\n"


def test_a_failed_config_write_rolls_the_new_file_back(
    monkeypatch: pytest.MonkeyPatch, openprogram_home: Path
) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(selection_module, "write_record_replay_config", fail)
    with pytest.raises(OSError, match="disk full"):
        start_recording("demo")
    assert list(ensure_recordings_dir().iterdir()) == []


def test_record_refuses_a_corrupt_config_before_creating_anything(openprogram_home: Path) -> None:
    openprogram_home.mkdir()
    (openprogram_home / "config.json").write_text("{broken")
    with pytest.raises(ConfigError):
        start_recording("demo")
    assert not (recordings_dir() / "demo.jsonl").exists()
    assert (openprogram_home / "config.json").read_text() == "{broken"


def test_replay_selects_a_valid_managed_recording_by_id() -> None:
    path = write_recording(ensure_recordings_dir() / "good.jsonl")
    assert select_replay("good") == path
    assert read_record_replay_config() == RecordReplayConfig(mode="replay", file="good")


def test_replay_stores_an_external_file_as_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fixtures").mkdir()
    path = write_recording(tmp_path / "fixtures" / "login.jsonl")
    monkeypatch.chdir(tmp_path)
    select_replay("./fixtures/../fixtures/login.jsonl")
    assert read_record_replay_config().file == str(path)


def test_a_dotdot_path_into_the_managed_root_is_stored_as_its_id() -> None:
    root = ensure_recordings_dir()
    write_recording(root / "good.jsonl")
    select_replay(str(root / "sub" / ".." / "good.jsonl"))
    assert read_record_replay_config().file == "good"


@pytest.mark.parametrize(
    "content",
    [
        "",
        '{"type":"header","format_version":2}\n{"type":"request"',
        '{"format_version":9,"type":"header"}\n',
    ],
    ids=["empty", "truncated", "other-format"],
)
def test_a_bad_file_is_refused_and_changes_nothing(content: str, openprogram_home: Path) -> None:
    write_record_replay_config(RecordReplayConfig(mode="off", file="previous"))
    before = config_bytes(openprogram_home)
    path = ensure_recordings_dir() / "bad.jsonl"
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(RecordingFileError):
        select_replay("bad")
    assert config_bytes(openprogram_home) == before


def test_a_missing_file_is_refused(openprogram_home: Path) -> None:
    with pytest.raises(RecordingSelectorError, match="file not found"):
        select_replay("nothing-here")
    assert config_bytes(openprogram_home) is None


def test_an_external_file_with_wide_permissions_is_replayed_and_never_chmodded(
    tmp_path: Path, openprogram_home: Path
) -> None:
    """Git checks files out 0644: a recording given by path is read whatever its mode."""
    path = write_recording(tmp_path / "shared.jsonl")
    path.chmod(0o644)
    assert select_replay(str(path)) == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert config_bytes(openprogram_home) is not None


def test_a_managed_file_with_wide_permissions_is_repaired() -> None:
    path = write_recording(ensure_recordings_dir() / "ours.jsonl")
    path.chmod(0o644)
    select_replay("ours")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("where", ["managed", "external"])
def test_replay_refuses_a_symlink(where: str, tmp_path: Path, openprogram_home: Path) -> None:
    target = write_recording(tmp_path / "real.jsonl")
    link = (ensure_recordings_dir() if where == "managed" else tmp_path) / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(RecordingSelectorError, match="symlink"):
        select_replay("link" if where == "managed" else str(link))
    assert config_bytes(openprogram_home) is None


def test_off_keeps_the_last_file() -> None:
    write_recording(ensure_recordings_dir() / "good.jsonl")
    select_replay("good")
    assert turn_off() is None
    assert read_record_replay_config() == RecordReplayConfig(mode="off", file="good")


def test_off_moves_a_corrupt_config_aside_and_says_where(openprogram_home: Path) -> None:
    openprogram_home.mkdir()
    (openprogram_home / "config.json").write_text('{"record_replay": {"mode": "sideways"}}')
    backup = turn_off()
    assert backup is not None and backup.parent == openprogram_home
    assert backup.read_text() == '{"record_replay": {"mode": "sideways"}}'
    assert read_record_replay_config() == RecordReplayConfig(mode="off", file=None)


def test_recording_into_names_the_file_only_while_the_mode_is_record(
    openprogram_home: Path,
) -> None:
    assert recording_into() is None  # no configuration
    path = start_recording("live")
    assert recording_into() == path
    select_replay("live")
    assert recording_into() is None
    (openprogram_home / "config.json").write_text("{not json")
    assert recording_into() is None  # a broken configuration records into nothing
