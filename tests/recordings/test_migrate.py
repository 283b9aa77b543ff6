"""`openprogram recordings migrate`: version-1 recordings rewritten in format 2 replay green."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from openprogram.providers import Context, UserMessage
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.replayer import ReplayProvider
from openprogram.providers.recording.row_encoding import encode_row
from openprogram.providers.recording.store import ensure_recordings_dir
from openprogram.recordings.versions import list_versions
from tests.helpers import SCRIPTED_MODEL
from tests.recording_files import run_cli, write_recording

SAID = ("hi", "again", "bye")


def write_version1(path: Path, said: tuple[str, ...] = SAID) -> Path:
    """A version-1 recording, as openprogram 1 wrote it: every request whole, no times."""
    recorded = read_recording(write_recording(path.with_suffix(".v2tmp"), list(said)))
    path.with_suffix(".v2tmp").unlink()
    rows = [encode_row({"format_version": 1, "recording_id": path.stem, "type": "header"})]
    for call in recorded.calls:
        rows.append(
            encode_row({**call.request_payload(), "call_index": call.call_index, "type": "request"})
        )
        for number, event in enumerate(call.events):
            event_row = {"call_index": call.call_index, "event": event.model_dump(mode="json")}
            rows.append(encode_row({**event_row, "event_index": number, "type": "event"}))
        end = {"call_index": call.call_index, "event_count": len(call.events)}
        rows.append(encode_row({**end, "outcome": call.outcome, "type": "call_end"}))
    path.write_bytes(b"".join(rows))
    path.chmod(0o600)
    return path


def replays_green(path: Path) -> None:
    provider = ReplayProvider(path)

    async def run() -> None:
        for text in SAID:
            async for _ in provider.stream(
                SCRIPTED_MODEL, Context(messages=[UserMessage(content=text)])
            ):
                pass

    asyncio.run(run())
    provider.assert_consumed()


def test_a_version_1_file_is_refused_naming_migrate(tmp_path: Path) -> None:
    path = write_version1(tmp_path / "old.jsonl")
    with pytest.raises(RecordingFileError) as refused:
        read_recording(path)
    assert refused.value.reason.endswith(f"; run: openprogram recordings migrate {path}")


def test_a_file_by_path_is_migrated_with_its_old_bytes_beside_it(
    tmp_path: Path, openprogram_home: Path
) -> None:
    path = write_version1(tmp_path / "old.jsonl")
    before = path.read_bytes()
    checked = run_cli(openprogram_home, "migrate", str(path), "--check")
    assert checked.returncode == 0 and checked.stdout.startswith(
        f"would migrate {path}: format 1 → 2, 3 calls"
    )
    assert path.read_bytes() == before
    done = run_cli(openprogram_home, "migrate", str(path), "--json")
    assert done.returncode == 0, done.stderr
    (report,) = json.loads(done.stdout)
    assert report["written"] and report["from_version"] == 1 and report["calls"] == 3
    assert report["kept"] == str(tmp_path / "old.v1.jsonl")
    assert (tmp_path / "old.v1.jsonl").read_bytes() == before
    migrated = read_recording(path)
    assert all(call.start_ms is None and call.duration_ms is None for call in migrated.calls)
    assert all(ms is None for call in migrated.calls for ms in call.event_ms)
    replays_green(path)
    again = run_cli(openprogram_home, "migrate", str(path))
    assert "already format 2 (3 calls); unchanged" in again.stdout


def test_no_backup_keeps_nothing_beside_the_file(tmp_path: Path, openprogram_home: Path) -> None:
    path = write_version1(tmp_path / "old.jsonl")
    done = run_cli(openprogram_home, "migrate", str(path), "--no-backup")
    assert done.returncode == 0 and "no backup kept" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".jsonl") == ["old.jsonl"]
    replays_green(path)


def test_all_managed_recordings_are_migrated_keeping_a_version(openprogram_home: Path) -> None:
    root = ensure_recordings_dir()
    recording_id = "20261202T101500Z-1a2b3c4d"
    path = write_version1(root / f"{recording_id}.jsonl")
    before = path.read_bytes()
    done = run_cli(openprogram_home, "migrate", "--all")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"migrated {recording_id}: format 1 → 2, 3 calls")
    (kept,) = list_versions(recording_id)
    assert kept.read_bytes() == before
    replays_green(path)


def test_migrate_needs_one_recording_or_all(openprogram_home: Path) -> None:
    refused = run_cli(openprogram_home, "migrate")
    assert refused.returncode == 2 and "give one recording ID or PATH, or --all" in refused.stderr
