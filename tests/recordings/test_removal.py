"""delete and prune act only on regular files in the managed root, never on what is in use."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from openprogram.providers.recording.config import (
    ConfigError,
    RecordReplayConfig,
    read_record_replay_config,
    write_record_replay_config,
)
from openprogram.recordings import (
    RecordingRemovalError,
    RecordingSelectorError,
    delete_recording,
    ensure_recordings_dir,
    plan_deletion,
    prune_recordings,
)
from tests.recording_files import days_ago, locked_by_another_process, write_recording


def managed(name: str, age_days: float = 0) -> Path:
    """A managed recording created and last written `age_days` ago."""
    header = {"recording_id": name, "created_at": days_ago(age_days)}
    path = write_recording(ensure_recordings_dir() / f"{name}.jsonl", header=header)
    last_write = time.time() - age_days * 86400
    os.utime(path, (last_write, last_write))
    return path


def test_delete_removes_one_managed_recording() -> None:
    path = managed("old")
    size = path.stat().st_size
    assert plan_deletion("old").recording_id == "old"
    deleted = delete_recording("old")
    assert (deleted.recording_id, deleted.path, deleted.size) == ("old", path, size)
    assert not path.exists()


@pytest.mark.parametrize("mode", ["record", "replay"])
def test_the_active_recording_is_refused(mode: str) -> None:
    path = managed("live")
    write_record_replay_config(RecordReplayConfig.model_validate({"mode": mode, "file": "live"}))
    with pytest.raises(RecordingRemovalError, match=f"active {mode} recording"):
        delete_recording("live")
    with pytest.raises(RecordingRemovalError):
        plan_deletion("live")
    assert path.exists()


def test_the_last_file_kept_by_off_may_be_deleted() -> None:
    path = managed("last")
    write_record_replay_config(RecordReplayConfig(mode="off", file="last"))
    deleted = delete_recording("last")
    assert (deleted.recording_id, deleted.path) == ("last", path)
    assert not path.exists()
    assert read_record_replay_config().mode == "off"  # off stays off; nothing else changes


def test_a_symlink_is_refused_and_neither_it_nor_its_target_is_touched(tmp_path: Path) -> None:
    target = write_recording(tmp_path / "target.jsonl")
    link = ensure_recordings_dir() / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(RecordingSelectorError, match="symlink"):  # the file policy's refusal
        delete_recording("link")
    assert link.is_symlink() and target.exists()


@pytest.mark.parametrize("selector", ["{outside}", "../outside", "{root}/../outside.jsonl"])
def test_anything_outside_the_managed_root_is_refused(
    selector: str, openprogram_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = ensure_recordings_dir()
    outside = write_recording(openprogram_home / "outside.jsonl")
    monkeypatch.chdir(root)
    selector = selector.format(outside=outside, root=root)
    with pytest.raises((RecordingRemovalError, RecordingSelectorError)):
        delete_recording(selector)
    assert outside.exists()


def test_an_id_with_dotdot_is_refused(openprogram_home: Path) -> None:
    ensure_recordings_dir()
    with pytest.raises((RecordingRemovalError, RecordingSelectorError)):
        delete_recording("..")


def test_a_file_another_process_holds_a_lock_on_is_refused() -> None:
    path = managed("busy")
    with locked_by_another_process(path), pytest.raises(RecordingRemovalError, match="lock"):
        delete_recording("busy")
    assert path.exists()
    delete_recording("busy")


def test_nothing_is_deleted_while_the_config_is_unreadable(openprogram_home: Path) -> None:
    path = managed("any")
    (openprogram_home / "config.json").write_text("{broken")
    with pytest.raises(ConfigError, match="cannot tell which recording is active"):
        delete_recording("any")
    with pytest.raises(ConfigError):
        prune_recordings(0)
    assert path.exists()


def test_a_missing_recording_is_reported() -> None:
    ensure_recordings_dir()
    with pytest.raises(RecordingSelectorError, match=r"^recording file .*: file not found$"):
        delete_recording("nothing")


def test_prune_removes_only_old_recordings_and_reports_what_it_did(
    tmp_path: Path, openprogram_home: Path
) -> None:
    old, recent = managed("old", 40), managed("recent", 1)
    by_mtime = write_recording(ensure_recordings_dir() / "by-mtime.jsonl")  # no created_at
    os.utime(by_mtime, (0, by_mtime.stat().st_mtime - 40 * 86400))
    active = managed("active", 50)
    write_record_replay_config(RecordReplayConfig(mode="replay", file="active"))
    link = ensure_recordings_dir() / "link.jsonl"
    link.symlink_to(write_recording(tmp_path / "target.jsonl"))
    os.utime(link, (0, 0), follow_symlinks=False)
    outside = write_recording(
        openprogram_home / "outside.jsonl", header={"created_at": days_ago(99)}
    )

    plan = prune_recordings(30, dry_run=True)
    assert set(plan.matched) == {"old", "by-mtime"} and plan.deleted == ()
    assert plan.bytes == old.stat().st_size + by_mtime.stat().st_size
    assert {s.recording_id for s in plan.skipped} == {"active", "link"}
    assert old.exists() and by_mtime.exists()

    report = prune_recordings(30)
    assert set(report.deleted) == {"old", "by-mtime"} and report.failed == ()
    assert report.bytes == plan.bytes
    assert not old.exists() and not by_mtime.exists()
    assert recent.exists() and active.exists() and link.is_symlink() and outside.exists()
    assert report.to_json()["skipped"][0].keys() == {"id", "reason"}


def test_prune_ages_a_recording_by_its_last_write_not_its_creation() -> None:
    appended_today = managed("appended-today", 40)
    os.utime(appended_today)  # created 40 days ago, a call appended now
    untouched = write_recording(
        ensure_recordings_dir() / "untouched.jsonl", header={"created_at": days_ago(1)}
    )
    os.utime(untouched, (0, time.time() - 40 * 86400))  # a copy that kept a young header
    report = prune_recordings(30)
    assert report.deleted == ("untouched",)
    assert appended_today.exists() and not untouched.exists()


def test_prune_reports_a_locked_file_as_failed() -> None:
    busy, gone = managed("busy", 10), managed("gone", 10)
    with locked_by_another_process(busy):
        report = prune_recordings(5)
    assert report.deleted == ("gone",) and not gone.exists()
    assert [(f.recording_id, "lock" in f.reason) for f in report.failed] == [("busy", True)]
    assert report.bytes > 0 and busy.exists()


def test_prune_limited_to_confirmed_ids_leaves_the_rest() -> None:
    first, second = managed("first", 10), managed("second", 10)
    report = prune_recordings(5, only={"first"})
    assert report.deleted == ("first",) and not first.exists() and second.exists()


def test_prune_without_a_managed_root_matches_nothing() -> None:
    report = prune_recordings(0)
    assert (report.matched, report.deleted, report.failed, report.bytes) == ((), (), (), 0)


def test_a_symlinked_managed_root_is_refused(openprogram_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    managed_file = write_recording(elsewhere / "x.jsonl", header={"created_at": days_ago(99)})
    openprogram_home.mkdir()
    (openprogram_home / "recordings").symlink_to(elsewhere)
    with pytest.raises(RecordingSelectorError):
        prune_recordings(0)
    with pytest.raises(RecordingSelectorError):
        delete_recording("x")
    assert managed_file.exists()
