"""One-glance facts about recording files, from one strict-reader scan per file.

`summarize_recording` describes one file and `list_recordings` every `*.jsonl` in the managed root,
newest first. The listing rescans only files that changed since the last listing (see
`summary_cache`); the active marker always comes from the configuration. Nothing here follows a
symlink or prints.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openprogram.providers.recording.config import (
    ConfigError,
    RecordReplayConfig,
    read_record_replay_config,
)
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.file_policy import inspect
from openprogram.providers.recording.reader import (
    CallVisitor,
    RecordingScan,
    scan_recording,
    streamed_facts,
)
from openprogram.providers.recording.scan_facts import ScanFacts
from openprogram.providers.recording.store import (
    RECORDING_SUFFIX,
    RecordingLocation,
    RecordingSelectorError,
    locate_recording,
    recordings_dir,
)
from openprogram.recordings.running import RunningRecording, adopt_orphans, running_recordings
from openprogram.recordings.summary_cache import SummaryCache


@dataclass(frozen=True)
class RecordingSummary:
    """A recording file at a glance: ID, creation time, totals, validity and whether it is active."""

    recording_id: str | None
    """The managed ID, or None for a file outside the managed root."""
    path: Path
    modified_at: str
    """The file's modification time (ISO-8601 UTC)."""
    facts: ScanFacts
    """What the strict reader found: totals, validity, problems."""
    active: bool
    """True when the configuration selects this file for record or replay."""
    mode: str | None
    """`record` or `replay` when active, else None."""

    @property
    def age_reference(self) -> datetime:
        """When the recording was made: the header's `created_at`, else the file's mtime."""
        return parse_timestamp(self.facts.created_at) or parse_timestamp(self.modified_at) or _EPOCH

    def to_json(self) -> dict[str, Any]:
        """Stable JSON fields (`id`, `path`, `created_at`, ...) for `--json` output."""
        facts = self.facts
        return {
            "id": self.recording_id,
            "path": str(self.path),
            "created_at": facts.created_at,
            "modified_at": self.modified_at,
            "size": facts.size,
            "format_version": facts.format_version,
            "calls": facts.calls,
            "events": facts.events,
            "valid": facts.valid,
            "reason": facts.reason,
            "problem_count": facts.problem_count,
            "active": self.active,
            "mode": self.mode,
        }


@dataclass(frozen=True)
class RecordingListing:
    """Every recording in the managed root, newest first, and the configuration that marks one active."""

    root: Path
    recordings: tuple[RecordingSummary, ...]
    mode: str | None
    """The configured mode, or None when the configuration cannot be read."""
    configured_file: str | None
    config_error: str | None
    running: tuple[RecordingSummary, ...] = ()
    """The one-shot recordings being made now (`record -- COMMAND` still running), newest first:
    their staged files as they stand, outside the managed root until the program ends."""

    def to_json(self) -> dict[str, Any]:
        """Stable JSON fields for `list --json`."""
        return {
            "root": str(self.root),
            "mode": self.mode,
            "configured_file": self.configured_file,
            "config_error": self.config_error,
            "recordings": [summary.to_json() for summary in self.recordings],
            "running": [summary.to_json() for summary in self.running],
        }


_EPOCH = datetime.fromtimestamp(0, UTC)


def parse_timestamp(text: str | None) -> datetime | None:
    """An ISO-8601 timestamp as an aware UTC datetime, or None when absent or not a timestamp."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def utc_timestamp(seconds: float) -> str:
    """Unix seconds as ISO-8601 UTC, e.g. `2026-12-02T10:15:00Z`."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def active_mode(location: RecordingLocation, config: RecordReplayConfig | None) -> str | None:
    """`record` or `replay` when `config` selects the file at `location`, else None."""
    if config is None or config.mode == "off" or not config.file:
        return None
    try:
        configured = locate_recording(config.file)
    except RecordingSelectorError:
        return None
    return config.mode if configured.path == location.path else None


def inspect_location(location: RecordingLocation) -> tuple[os.stat_result | None, str | None]:
    """The entry's lstat, and why it must not be read (missing, symlink, not regular) or None.

    Listing and showing read a managed file whatever its permissions (the file policy's view)."""
    state = inspect(location)
    return state.info, None if state.too_wide else state.reason


def scan_location(
    location: RecordingLocation, each: CallVisitor | None = None
) -> tuple[os.stat_result | None, RecordingScan | str]:
    """The entry's lstat and one scan of it, or why it was not read (missing, symlink, not
    regular); `each` is handed every whole call instead of the scan keeping them."""
    info, refusal = inspect_location(location)
    if refusal is not None:
        return info, refusal
    try:
        return info, scan_recording(location.path, each)
    except RecordingFileError as exc:
        return info, exc.reason


def facts_from_scan(info: os.stat_result | None, scan: RecordingScan | str) -> ScanFacts:
    """The file's facts from a scan, or from the reason it could not be scanned."""
    if isinstance(scan, str):
        return ScanFacts.refused(info.st_size if info else 0, scan)
    return scan.facts


def summary_from_facts(
    location: RecordingLocation,
    info: os.stat_result | None,
    facts: ScanFacts,
    config: RecordReplayConfig | None,
) -> RecordingSummary:
    """The summary of a file with these facts; its lstat gives the mtime, `config` the marker."""
    mode = active_mode(location, config)
    return RecordingSummary(
        recording_id=location.recording_id,
        path=location.path,
        modified_at=utc_timestamp(info.st_mtime if info else 0),
        facts=facts,
        active=mode is not None,
        mode=mode,
    )


def summary_from_scan(
    location: RecordingLocation,
    info: os.stat_result | None,
    scan: RecordingScan | str,
    config: RecordReplayConfig | None,
) -> RecordingSummary:
    """The summary of what `scan_location` found; `config` decides whether it is active."""
    return summary_from_facts(location, info, facts_from_scan(info, scan), config)


def _listed_facts(
    location: RecordingLocation, cache: SummaryCache
) -> tuple[os.stat_result | None, ScanFacts]:
    """The lstat and facts of one listed file: cached while the file is unchanged, else scanned."""
    info, refusal = inspect_location(location)
    if refusal is not None:
        return info, facts_from_scan(info, refusal)
    assert info is not None
    cached = cache.lookup(location.path, info)
    if cached is not None:
        return info, cached
    try:
        facts = streamed_facts(location.path)
    except RecordingFileError as exc:
        return info, facts_from_scan(info, exc.reason)
    cache.store(location.path, info, facts)
    return info, facts


def configured_mode_and_file() -> tuple[RecordReplayConfig | None, str | None]:
    """The record/replay configuration, or None and the reason it cannot be read."""
    try:
        return read_record_replay_config(), None
    except ConfigError as exc:
        return None, str(exc)


def summarize_recording(
    path: str | os.PathLike[str], config: RecordReplayConfig | None = None
) -> RecordingSummary:
    """Summarize one file (read once); `config` marks it active, read from disk when omitted."""
    location = locate_recording(os.fspath(path))
    if config is None:
        config, _ = configured_mode_and_file()
    info, refusal = inspect_location(location)
    if refusal is not None:
        return summary_from_scan(location, info, refusal, config)
    try:
        facts = streamed_facts(location.path)  # in memory bounded by a line, not the file
    except RecordingFileError as exc:
        return summary_from_scan(location, info, exc.reason, config)
    return summary_from_facts(location, info, facts, config)


def summarize_listed(
    locations: Sequence[RecordingLocation], config: RecordReplayConfig | None
) -> list[RecordingSummary]:
    """The summaries of the managed root's files, in order, through the summary cache.

    Unchanged files are not read again; the cache keeps entries for exactly these files.
    """
    cache = SummaryCache.load()
    summaries = []
    for location in locations:
        info, facts = _listed_facts(location, cache)
        summaries.append(summary_from_facts(location, info, facts, config))
    cache.save()
    return summaries


def _running_summary(running: RunningRecording) -> RecordingSummary:
    """A running one-shot recording as it stands (scanned now, never cached: it grows)."""
    location = RecordingLocation(running.path, running.recording_id)
    info, scan = scan_location(location)
    return summary_from_scan(location, info, scan, None)


def list_recordings() -> RecordingListing:
    """Every `*.jsonl` in the managed root, newest first; invalid files carry their reason.

    A file whose lstat is unchanged since an earlier listing is not read again (its facts come from
    the summary cache); every other file gets one strict-reader scan.
    """
    root = recordings_dir()
    adopt_orphans()  # a `record` killed before it finished: its calls are listed, not hidden
    config, config_error = configured_mode_and_file()
    if root.is_symlink():
        raise RecordingSelectorError(str(root), "the managed recordings root is a symlink")
    try:
        names = sorted(e.name for e in os.scandir(root) if e.name.endswith(RECORDING_SUFFIX))
    except FileNotFoundError:
        names = []
    except NotADirectoryError:
        raise RecordingSelectorError(
            str(root), "the managed recordings root is not a directory"
        ) from None
    summaries = summarize_listed([locate_recording(str(root / name)) for name in names], config)
    summaries.sort(key=lambda s: (s.age_reference, s.path.name), reverse=True)
    running = [_running_summary(r) for r in running_recordings()]
    running.sort(key=lambda s: (s.age_reference, s.path.name), reverse=True)
    return RecordingListing(
        root=root,
        recordings=tuple(summaries),
        running=tuple(running),
        mode=config.mode if config else None,
        configured_file=config.file if config else None,
        config_error=config_error,
    )
