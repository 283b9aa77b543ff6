"""The listing's summary cache: unchanged files are not read again, changed files always are."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from openprogram import __version__
from openprogram.providers.recording.config import RecordReplayConfig, write_record_replay_config
from openprogram.providers.recording.scan_facts import ScanFacts
from openprogram.recordings import ensure_recordings_dir, list_recordings, summary_cache
from openprogram.recordings import summary as summary_module
from openprogram.recordings.summary_cache import cache_path
from tests.recording_files import run_cli, write_recording

AN_HOUR_NS = 3600 * 10**9


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file the listing reads, in order (the real strict reader, counted)."""
    seen: list[Path] = []
    real_scan = summary_module.streamed_facts

    def counted_scan(path: str | os.PathLike[str]) -> ScanFacts:
        seen.append(Path(path))
        return real_scan(path)

    monkeypatch.setattr(summary_module, "streamed_facts", counted_scan)
    return seen


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written before a listing count as settled (their ctime cannot be set into the past)."""
    monkeypatch.setattr(summary_cache, "RACY_WINDOW_NS", 0)


def recorded(name: str, said: tuple[str, ...] = ("hi",)) -> Path:
    """A valid managed recording whose mtime is an hour in the past."""
    path = write_recording(ensure_recordings_dir() / f"{name}.jsonl", said)
    old = time.time_ns() - AN_HOUR_NS
    os.utime(path, ns=(old, old))
    return path


def cached_document() -> dict[str, Any]:
    """The cache file as JSON."""
    document: dict[str, Any] = json.loads(cache_path().read_text())
    return document


def by_id(recording_id: str) -> summary_module.RecordingSummary:
    """The summary of one recording in a fresh listing."""
    return next(s for s in list_recordings().recordings if s.recording_id == recording_id)


def rewrite_in_place(path: Path, data: bytes) -> None:
    """Overwrite the file's bytes (same inode) and put its mtime back: only its ctime changes."""
    before = path.stat()
    time.sleep(0.05)  # let the clock move past the last change's timestamp tick
    with path.open("r+b") as handle:
        handle.write(data)
        handle.truncate()
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_ctime_ns != before.st_ctime_ns


def test_a_second_listing_reuses_unchanged_files_and_gives_identical_summaries(
    settled: None, scans: list[Path]
) -> None:
    paths = {recorded("a"), recorded("b", ("x", "y")), recorded("c")}
    first = list_recordings()
    assert set(scans) == paths
    scans.clear()
    second = list_recordings()
    assert scans == []
    assert second == first and second.to_json() == first.to_json()
    assert [s.facts.calls for s in second.recordings if s.recording_id == "b"] == [2]


def test_a_file_appended_to_after_listing_is_read_again_with_its_new_totals(
    settled: None, scans: list[Path]
) -> None:
    path = recorded("grows")
    assert by_id("grows").facts.calls == 1
    write_recording(path, ("more", "and more"))
    scans.clear()
    summary = by_id("grows")
    assert scans == [path]
    assert (summary.facts.calls, summary.facts.valid, summary.facts.size) == (
        3,
        True,
        path.stat().st_size,
    )


def test_a_file_damaged_after_listing_is_invalid_and_valid_again_once_repaired(
    settled: None, scans: list[Path]
) -> None:
    path = recorded("edited", ("hi", "bye"))
    original = path.read_bytes()
    assert by_id("edited").facts.valid
    # Same size, same mtime: only the ctime tells that the bytes changed.
    rewrite_in_place(path, original.replace(b'"call_end"', b'"call_xnd"', 1))
    damaged = by_id("edited")
    assert not damaged.facts.valid and damaged.facts.reason and "line" in damaged.facts.reason
    rewrite_in_place(path, original)
    scans.clear()
    repaired = by_id("edited")
    assert scans == [path]
    assert (repaired.facts.valid, repaired.facts.reason, repaired.facts.calls) == (True, None, 2)


def test_a_just_written_file_is_read_again_until_it_settles(
    monkeypatch: pytest.MonkeyPatch, scans: list[Path]
) -> None:
    path = recorded("fresh")  # its mtime is old, but writing and utime made its ctime now
    list_recordings()
    list_recordings()
    assert scans == [path, path]
    assert not cache_path().exists() or cached_document()["entries"] == {}
    monkeypatch.setattr(summary_cache, "RACY_WINDOW_NS", 0)
    list_recordings()
    list_recordings()
    assert scans == [path] * 3
    assert list(cached_document()["entries"]) == [str(path)]


def test_a_deleted_file_is_dropped_from_the_cache(settled: None) -> None:
    kept, gone = recorded("kept"), recorded("gone")
    list_recordings()
    assert set(cached_document()["entries"]) == {str(kept), str(gone)}
    gone.unlink()
    assert [s.recording_id for s in list_recordings().recordings] == ["kept"]
    assert set(cached_document()["entries"]) == {str(kept)}


def _forge_calls(document: dict[str, Any]) -> dict[str, Any]:
    for entry in document["entries"].values():
        entry["facts"]["calls"] = 12345
    return document


UNTRUSTED_CACHES: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "not JSON": lambda _: b'{"schema_version": 1, "entr',
    "empty": lambda _: b"",
    "not UTF-8": lambda _: b"\xff\xfe{}",
    "wrong shape": lambda doc: json.dumps({**doc, "entries": []}).encode(),
    "another schema": lambda doc: json.dumps({**_forge_calls(doc), "schema_version": 99}).encode(),
    "another recording format": lambda doc: json.dumps(
        {**_forge_calls(doc), "recording_format_version": 99}
    ).encode(),
    "another release": lambda doc: json.dumps(
        {**_forge_calls(doc), "openprogram_version": "0.0.1"}
    ).encode(),
}


@pytest.mark.parametrize("kind", list(UNTRUSTED_CACHES))
def test_a_corrupt_or_foreign_cache_is_ignored_and_replaced(
    kind: str, settled: None, scans: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    paths = {recorded("a"), recorded("b")}
    list_recordings()
    cache_path().write_bytes(UNTRUSTED_CACHES[kind](cached_document()))
    scans.clear()
    listing = list_recordings()
    assert set(scans) == paths
    assert [s.facts.calls for s in listing.recordings] == [1, 1]
    document = cached_document()
    assert document["openprogram_version"] == __version__
    assert {e["facts"]["calls"] for e in document["entries"].values()} == {1}
    scans.clear()
    list_recordings()
    assert scans == []
    assert capsys.readouterr() == ("", "")


def test_a_cache_file_others_could_write_is_not_trusted(settled: None) -> None:
    recorded("a")
    list_recordings()
    cache_path().write_text(json.dumps(_forge_calls(cached_document())))
    cache_path().chmod(0o666)
    assert by_id("a").facts.calls == 1
    assert stat.S_IMODE(cache_path().stat().st_mode) == 0o600


def test_the_cache_file_is_0600_and_its_directory_0700_whatever_the_umask(
    settled: None, openprogram_home: Path
) -> None:
    recorded("a")
    (openprogram_home / "cache").mkdir(mode=0o755)
    previous = os.umask(0)
    try:
        list_recordings()
    finally:
        os.umask(previous)
    assert stat.S_IMODE(cache_path().stat().st_mode) == 0o600
    assert stat.S_IMODE(cache_path().parent.stat().st_mode) == 0o700
    assert [p.name for p in cache_path().parent.iterdir()] == [cache_path().name]  # no temp left


def test_a_symlinked_cache_directory_is_never_read_or_written_through(
    settled: None, scans: list[Path], openprogram_home: Path, tmp_path: Path
) -> None:
    path = recorded("a")
    list_recordings()
    forged = json.dumps(_forge_calls(cached_document()))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (elsewhere / cache_path().name).write_text(forged)
    (elsewhere / cache_path().name).chmod(0o600)
    cache_path().unlink()
    cache_path().parent.rmdir()
    (openprogram_home / "cache").symlink_to(elsewhere)
    scans.clear()
    assert by_id("a").facts.calls == 1
    assert by_id("a").facts.calls == 1
    assert scans == [path, path]
    assert [p.name for p in elsewhere.iterdir()] == [cache_path().name]
    assert (elsewhere / cache_path().name).read_text() == forged


def test_a_symlinked_cache_file_is_never_read_or_replaced(
    settled: None, scans: list[Path], tmp_path: Path
) -> None:
    path = recorded("a")
    list_recordings()
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(_forge_calls(cached_document())))
    forged.chmod(0o600)
    cache_path().unlink()
    cache_path().symlink_to(forged)
    scans.clear()
    assert by_id("a").facts.calls == 1
    assert by_id("a").facts.calls == 1
    assert scans == [path, path]
    assert cache_path().is_symlink() and cache_path().readlink() == forged
    assert json.loads(forged.read_text())["entries"][str(path)]["facts"]["calls"] == 12345


@pytest.mark.parametrize("blocker", ["cache is a file", "cache file is a directory"])
def test_an_unwritable_cache_just_means_files_are_read_every_time(
    blocker: str, settled: None, scans: list[Path], openprogram_home: Path
) -> None:
    path = recorded("a")
    if blocker == "cache is a file":
        (openprogram_home / "cache").write_text("not a directory")
    else:
        cache_path().mkdir(parents=True, mode=0o700)
    assert by_id("a").facts.valid and by_id("a").facts.valid
    assert scans == [path, path]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only directory")
def test_a_read_only_state_directory_just_means_no_cache(
    settled: None, scans: list[Path], openprogram_home: Path
) -> None:
    path = recorded("a")
    openprogram_home.chmod(0o500)
    try:
        assert by_id("a").facts.valid and by_id("a").facts.valid
    finally:
        openprogram_home.chmod(0o700)
    assert scans == [path, path]
    assert not (openprogram_home / "cache").exists()


def test_the_active_marker_follows_the_config_without_a_rescan(
    settled: None, scans: list[Path]
) -> None:
    recorded("a")
    recorded("b")
    list_recordings()
    scans.clear()
    for config, expected in [
        (RecordReplayConfig(mode="replay", file="b"), [("b", "replay")]),
        (RecordReplayConfig(mode="record", file="a"), [("a", "record")]),
        (RecordReplayConfig(mode="off", file="a"), []),
    ]:
        write_record_replay_config(config)
        listing = list_recordings()
        assert [(s.recording_id, s.mode) for s in listing.recordings if s.active] == expected
    assert scans == []


def test_two_runs_of_the_command_print_the_same_listing_and_keep_the_cache(
    openprogram_home: Path,
) -> None:
    paths = [recorded("a", ("hi", "bye")), recorded("b")]
    # The command runs with the real racy window: wait until the files have settled.
    settles_at = max(p.stat().st_ctime_ns for p in paths) + summary_cache.RACY_WINDOW_NS
    time.sleep(max(0.0, (settles_at - time.time_ns()) / 1e9 + 0.1))
    first = run_cli(openprogram_home, "list", "--json")
    assert (first.returncode, first.stderr) == (0, "")
    written = cache_path().stat()
    assert set(cached_document()["entries"]) == {str(p) for p in paths}
    second = run_cli(openprogram_home, "list", "--json")
    assert (second.returncode, second.stderr) == (0, "")
    assert json.loads(second.stdout) == json.loads(first.stdout)
    kept = cache_path().stat()
    assert (kept.st_ino, kept.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    assert stat.S_IMODE(kept.st_mode) == 0o600


def test_prune_decides_by_the_listing_s_facts_without_reading_unchanged_files_again(
    settled: None, scans: list[Path]
) -> None:
    from openprogram.recordings import prune_recordings

    kept = recorded("kept")
    header = {"recording_id": "old", "created_at": "2020-01-01T00:00:00Z"}
    old = write_recording(ensure_recordings_dir() / "old.jsonl", ("hi",), header)
    stamp = time.time_ns() - 40 * 24 * AN_HOUR_NS  # prune ages by the last write
    os.utime(old, ns=(stamp, stamp))
    list_recordings()
    scans.clear()
    report = prune_recordings(older_than_days=30)
    assert report.deleted == ("old",) and kept.exists() and not old.exists()
    assert scans == []
