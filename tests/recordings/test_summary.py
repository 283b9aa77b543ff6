"""Summaries, listings and call rows come from one strict-reader scan per file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from openprogram.providers.recording.config import RecordReplayConfig, write_record_replay_config
from openprogram.providers.recording.scan_facts import ScanFacts
from openprogram.recordings import (
    describe_recording,
    ensure_recordings_dir,
    list_recordings,
    summarize_recording,
)
from openprogram.recordings import summary as summary_module
from tests.helpers import write_lines
from tests.recording_files import days_ago, write_recording


def test_a_valid_recording_is_summarized_with_its_header_and_totals() -> None:
    root = ensure_recordings_dir()
    path = write_recording(
        root / "demo.jsonl", ["hi", "bye"], {"recording_id": "demo", "created_at": days_ago(1)}
    )
    summary = summarize_recording(path)
    assert summary.recording_id == "demo"
    assert (
        summary.facts.valid,
        summary.facts.reason,
        summary.facts.calls,
        summary.facts.format_version,
    ) == (
        True,
        None,
        2,
        2,
    )
    assert summary.facts.events > 2 and summary.facts.size == path.stat().st_size
    assert summary.facts.created_at is not None and not summary.active
    assert list(summary.to_json())[:3] == ["id", "path", "created_at"]


def test_a_damaged_file_reports_its_first_problem_on_one_line_and_counts_its_unfinished_call(
    tmp_path: Path,
) -> None:
    path = write_recording(tmp_path / "cut.jsonl", ["hi", "bye"])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 10])  # cut the last call_end in half
    summary = summarize_recording(path)
    assert not summary.facts.valid and summary.recording_id is None
    assert summary.facts.calls == 2 and summary.facts.unfinished_calls == (1,)
    assert summary.facts.totals() == f"2 calls (1 unfinished), {summary.facts.events} events"
    assert summary.facts.reason is not None and "\n" not in summary.facts.reason
    assert summary.facts.reason.startswith("line ") and "truncated" in summary.facts.reason
    assert str(path) not in summary.facts.reason


def test_the_listing_is_newest_first_and_invalid_files_never_hide_the_others(
    tmp_path: Path,
) -> None:
    root = ensure_recordings_dir()
    write_recording(root / "old.jsonl", header={"created_at": days_ago(30)})
    write_recording(root / "new.jsonl", header={"created_at": days_ago(0)})
    write_lines(root / "broken.jsonl", ['{"type": "header", "format_version": 2}', "{nope"])
    no_header = write_recording(root / "mtime-only.jsonl")
    os.utime(no_header, (0, os.path.getmtime(no_header) - 10 * 86400))
    (root / "notes.txt").write_text("not a recording")
    listing = list_recordings()
    names = [s.recording_id for s in listing.recordings]
    assert names[0] in ("new", "broken")  # broken has no created_at, its mtime is now
    assert names.index("new") < names.index("mtime-only") < names.index("old")
    assert set(names) == {"old", "new", "broken", "mtime-only"}
    broken = next(s for s in listing.recordings if s.recording_id == "broken")
    assert not broken.facts.valid and broken.facts.reason and "line 2" in broken.facts.reason
    json.dumps(listing.to_json())  # stable, serialisable


def test_a_symlink_in_the_root_is_listed_as_invalid_and_never_followed(tmp_path: Path) -> None:
    root = ensure_recordings_dir()
    target = write_recording(tmp_path / "elsewhere.jsonl", ["a", "b", "c"])
    (root / "link.jsonl").symlink_to(target)
    (summary,) = list_recordings().recordings
    assert (summary.recording_id, summary.facts.valid, summary.facts.calls) == ("link", False, 0)
    assert summary.facts.reason is not None and "symlink" in summary.facts.reason


def test_the_configured_file_is_marked_active_and_the_config_is_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = ensure_recordings_dir()
    for name in ("a", "b", "c"):
        write_recording(root / f"{name}.jsonl")
    write_record_replay_config(RecordReplayConfig(mode="replay", file="b"))
    reads: list[object] = []
    scans: list[object] = []
    real_read, real_scan = summary_module.read_record_replay_config, summary_module.streamed_facts

    def counted_read() -> RecordReplayConfig:
        reads.append(1)
        return real_read()

    def counted_scan(path: Path) -> ScanFacts:
        scans.append(path)
        return real_scan(path)

    monkeypatch.setattr(summary_module, "read_record_replay_config", counted_read)
    monkeypatch.setattr(summary_module, "streamed_facts", counted_scan)
    listing = list_recordings()
    assert len(reads) == 1 and len(scans) == 3 and len(set(scans)) == 3
    assert [(s.recording_id, s.mode) for s in listing.recordings if s.active] == [("b", "replay")]
    assert (listing.mode, listing.configured_file, listing.config_error) == ("replay", "b", None)


def test_an_unreadable_config_marks_nothing_active_but_still_lists(openprogram_home: Path) -> None:
    root = ensure_recordings_dir()
    write_recording(root / "a.jsonl")
    (openprogram_home / "config.json").write_text("{broken")
    listing = list_recordings()
    assert listing.config_error and "not valid JSON" in listing.config_error
    assert [s.active for s in listing.recordings] == [False]


def test_show_details_give_one_bounded_row_per_call(tmp_path: Path) -> None:
    long_text = "word\n" * 100
    path = write_recording(tmp_path / "r.jsonl", ["hello  there", long_text], {"entry": {"x": 1}})
    details = describe_recording(str(path))
    assert details.header is not None and details.header["entry"] == {"x": 1}
    first, second = details.calls
    assert (first.call_index, first.api, first.provider, first.model) == (
        0,
        "scripted",
        "scripted",
        "echo-1",
    )
    assert first.outcome == "complete" and first.events > 0
    assert first.first_user_text == "hello there"
    assert second.first_user_text is not None and len(second.first_user_text) == 80
    assert "\n" not in second.first_user_text and second.first_user_text.endswith("…")
    assert details.problems == ()
    assert json.loads(json.dumps(details.to_json()))["calls"][0]["model"] == "echo-1"


def test_show_details_of_a_missing_file_say_so(tmp_path: Path) -> None:
    details = describe_recording(str(tmp_path / "gone.jsonl"))
    assert not details.summary.facts.valid and details.problems == ("file not found",)
