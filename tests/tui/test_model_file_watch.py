"""The recording view's file watch without Textual: told the file's stamp at each look, it says
what the view does (extend, check, offer a reload, invalidate, read again)."""

from __future__ import annotations

import os
from pathlib import Path

from openprogram.recordings import FileStamp, stamp_of
from tui.model.file_stamp import FileChange, FileWatch, FollowStep, WatchStep


def opened(path: Path, data: bytes, follow: bool | None = False) -> tuple[FileWatch, FileStamp]:
    path.write_bytes(data)
    stamp = stamp_of(path)
    assert stamp is not None
    watch = FileWatch(follow)
    watch.seen = stamp
    return watch, stamp


def look(watch: FileWatch, path: Path, read_size: int, indexed: bool = True) -> WatchStep:
    return watch.look(stamp_of(path), read_size, indexed)


def test_a_file_that_grew_unfollowed_is_offered_as_a_reload_once(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    watch, _ = opened(path, b"one\n")
    assert look(watch, path, 4) is WatchStep.NOTHING
    path.write_bytes(b"one\ntwo\n")
    assert look(watch, path, 4) is WatchStep.OFFER_RELOAD
    assert watch.notice() == "file changed on disk — ctrl+r reloads · f follows"
    assert look(watch, path, 4) is WatchStep.NOTHING  # said once
    assert not watch.stale and not watch.reload_follows


def test_followed_growth_is_indexed_then_checked_once_it_stops(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    watch, _ = opened(path, b"one\n", follow=True)
    with path.open("ab") as handle:
        handle.write(b"two\n")
    assert look(watch, path, 4) is WatchStep.EXTEND
    watch.grew()  # the appended call was indexed
    assert look(watch, path, 8) is WatchStep.CHECK  # it stopped growing
    assert look(watch, path, 8) is WatchStep.NOTHING  # checked once
    assert watch.look(stamp_of(path), 8, True, extending=True) is WatchStep.NOTHING


def test_growth_waits_until_the_file_as_opened_is_indexed_but_a_cut_does_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    watch, _ = opened(path, b"one\ntwo\n", follow=True)
    with path.open("ab") as handle:
        handle.write(b"three\n")
    assert look(watch, path, 4, indexed=False) is WatchStep.NOTHING
    path.write_bytes(b"o")
    assert look(watch, path, 8, indexed=False) is WatchStep.READ_AGAIN
    assert watch.reload_follows  # a followed file is read again followed


def test_a_replaced_file_stops_following_and_drops_what_was_found(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    watch, _ = opened(path, b"one\n", follow=True)
    other = tmp_path / "new.jsonl"
    other.write_bytes(b"one\n")
    os.replace(other, path)
    assert look(watch, path, 4) is WatchStep.INVALIDATE
    assert watch.change is FileChange.REPLACED and watch.stale and not watch.following
    assert watch.reload_follows  # it was followed: the reload follows it again
    assert watch.notice() == "file was replaced on disk — what is shown is what was read · " + (
        "ctrl+r reloads"
    )
    assert not watch.takes_verdict(following=False, stopped=False)  # a verdict on the old file
    assert watch.toggle_follow() is FollowStep.REFUSED
    path.unlink()
    assert look(watch, path, 4) is WatchStep.NOTHING  # said once, until a reload


def test_f_follows_stops_and_reads_a_cut_off_tail_again(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    watch, _ = opened(path, b"one\n", follow=None)
    assert watch.follows_by_default
    path.write_bytes(b"one\ntwo\n")
    assert look(watch, path, 4) is WatchStep.OFFER_RELOAD
    assert watch.toggle_follow(truncated_tail=True) is FollowStep.READ_AGAIN
    assert not watch.follows_by_default  # chosen by a key: the configuration no longer decides
    assert watch.toggle_follow() is FollowStep.STARTED
    assert watch.change is None and watch.following
    assert look(watch, path, 4) is WatchStep.EXTEND  # the change offered before is indexed now
    assert watch.toggle_follow() is FollowStep.STOPPED and not watch.following


def test_a_verdict_counts_only_for_the_file_as_shown(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    watch, _ = opened(path, b"one\n", follow=True)
    assert not watch.takes_verdict(following=False, stopped=False)  # asked for before `f`
    assert watch.takes_verdict(following=True, stopped=True)
    assert look(watch, path, 4) is WatchStep.CHECK  # it grew while checked: again once it stops


def test_a_reloaded_view_says_why_it_was_read_again() -> None:
    watch = FileWatch(False, FileChange.SHRANK)
    assert watch.notice() == "file was shortened on disk — read again"
    assert FileWatch(True).notice() is None
