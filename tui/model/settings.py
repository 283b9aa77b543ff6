"""Saving the next-start record/replay choice through the library, also when the config is broken.

Every change goes through `openprogram.recordings` (`turn_off`, `start_recording`,
`select_replay`), which validate before they write. An unreadable configuration is moved aside
(by `turn_off`) only after the library has accepted the new choice, so a refused save changes
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from openprogram.providers.recording.config import ConfigError, read_record_replay_config
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.rules import MatchingRules, RulesConfigError
from openprogram.providers.recording.rules_sources import (
    find_pyproject,
    rules_from_pyproject,
)
from openprogram.recordings import (
    RecordingListing,
    RecordingSelectorError,
    RecordReplayStatus,
    managed_path,
    select_replay,
    start_recording,
    turn_off,
)
from openprogram.recordings.rule_edits import RuleEditError, header_rules
from openprogram.text import plural

Mode = Literal["off", "record", "replay"]
MODES: tuple[Mode, ...] = ("off", "record", "replay")
_REFUSALS = (ConfigError, RecordingSelectorError, RecordingFileError, OSError)


@dataclass(frozen=True)
class SettingsChoice:
    """What the user picked: a mode, and for record a new name, for replay an ID or a path."""

    mode: Mode
    file: str = ""


@dataclass(frozen=True)
class SettingsOutcome:
    """Whether the choice was saved, a message saying what the next start does, and any backup."""

    saved: bool
    message: str
    path: Path | None = None
    backup: Path | None = None


def config_problem() -> str | None:
    """Why the configuration cannot be read, or None when it is fine (or absent)."""
    try:
        read_record_replay_config()
    except ConfigError as exc:
        return str(exc)
    return None


def replay_choices(listing: RecordingListing) -> list[tuple[str, str]]:
    """`(label, ID)` for every managed recording replay would accept (valid ones), newest first."""
    return [
        (f"{s.recording_id} · {plural(s.calls, 'call')}", s.recording_id)
        for s in listing.recordings
        if s.valid and s.recording_id is not None
    ]


def _apply(choice: SettingsChoice) -> SettingsOutcome:
    if choice.mode == "replay":
        path = select_replay(choice.file.strip())
        return SettingsOutcome(True, f"The next start replays {path.name}.", path)
    if choice.mode == "record":
        path = start_recording(choice.file.strip() or None)
        return SettingsOutcome(True, f"The next start records into {path.stem}.", path)
    backup = turn_off()
    return SettingsOutcome(True, "The next start is live: record/replay is off.", None, backup)


def apply_settings(choice: SettingsChoice) -> SettingsOutcome:
    """Validate and save `choice`; a refusal says why and leaves the configuration as it was."""
    if choice.mode == "replay" and not choice.file.strip():
        return SettingsOutcome(False, "Choose a recording to replay, or type a path.")
    try:
        return _with_backup_note(_apply(choice))
    except ConfigError as exc:
        if config_problem() is None:
            return SettingsOutcome(False, str(exc))
        return _apply_over_broken_config(choice)
    except _REFUSALS as exc:
        return SettingsOutcome(False, str(exc))


def _with_backup_note(outcome: SettingsOutcome) -> SettingsOutcome:
    if outcome.backup is None:
        return outcome
    note = f" The unreadable configuration was kept as {outcome.backup.name}."
    return SettingsOutcome(outcome.saved, outcome.message + note, outcome.path, outcome.backup)


def _apply_over_broken_config(choice: SettingsChoice) -> SettingsOutcome:
    """The library accepted the choice but cannot write over a broken file: move it aside first."""
    name = choice.file.strip()
    if choice.mode == "record" and name:
        try:
            if managed_path(name).exists():
                return SettingsOutcome(
                    False, f"recording {name!r}: already exists; choose another name"
                )
        except RecordingSelectorError as exc:
            return SettingsOutcome(False, str(exc))
    backup = turn_off()
    kept = f"The unreadable configuration was kept as {backup.name}" if backup else ""
    try:
        outcome = _apply(choice)
    except _REFUSALS as exc:
        return SettingsOutcome(False, f"{exc}. {kept}; the next start is live (off).", None, backup)
    return SettingsOutcome(True, f"{outcome.message} {kept}.", outcome.path, backup)


@dataclass(frozen=True)
class RulesInForce:
    """The matching rules a replay started here would use, each with where it comes from."""

    lines: tuple[str, ...]
    """`ignore options.metadata.request_id  (/work/agent/pyproject.toml)`, in merge order."""
    problems: tuple[str, ...]
    """A source that cannot be read: the file and key, as replay would refuse it."""
    project_file: Path | None


def rules_in_force(start: Path, status: RecordReplayStatus | None) -> RulesInForce:
    """The project's rules (the nearest `pyproject.toml` with `[tool.openprogram]` from `start`)
    and, when replay is configured, the header rules of its recording: what replay merges."""
    rules, problems = MatchingRules(), []
    project = None
    try:
        project = find_pyproject(start)
        if project is not None:
            rules = rules.merged(rules_from_pyproject(project))
    except RulesConfigError as exc:
        problems.append(str(exc))
    if status is not None and status.mode == "replay" and status.path is not None:
        try:
            rules = rules.merged(header_rules(status.path))
        except RuleEditError as exc:
            problems.append(str(exc))
    return RulesInForce(tuple(rules.describe()), tuple(problems), project)
