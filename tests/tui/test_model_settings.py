"""Saving the next start's mode through the library, refusing bad choices, surviving a broken config."""

from __future__ import annotations

import json
from pathlib import Path

from openprogram.providers.recording.config import config_path, read_record_replay_config
from openprogram.recordings import list_recordings, managed_path
from tui.model.settings import SettingsChoice, apply_settings, config_problem, replay_choices


def test_off_record_and_replay_are_saved(demo_home: Path) -> None:
    assert apply_settings(SettingsChoice("off")).saved
    assert read_record_replay_config().mode == "off"
    recorded = apply_settings(SettingsChoice("record", "checkout-flow"))
    assert recorded.saved and recorded.path == managed_path("checkout-flow")
    assert read_record_replay_config().model_dump() == {"mode": "record", "file": "checkout-flow"}
    replayed = apply_settings(SettingsChoice("replay", "echo-demo"))
    assert replayed.saved and "replays echo-demo.jsonl" in replayed.message
    assert read_record_replay_config().file == "echo-demo"


def test_an_invalid_replay_file_is_refused_and_nothing_changes(demo_home: Path) -> None:
    before = config_path().read_bytes()
    outcome = apply_settings(SettingsChoice("replay", "echo-demo-damaged"))
    assert not outcome.saved and "truncated" in outcome.message
    assert config_path().read_bytes() == before


def test_replay_needs_a_file(demo_home: Path) -> None:
    outcome = apply_settings(SettingsChoice("replay", "  "))
    assert not outcome.saved and outcome.message.startswith("Choose a recording")


def test_an_existing_record_name_is_refused(demo_home: Path) -> None:
    outcome = apply_settings(SettingsChoice("record", "echo-demo"))
    assert not outcome.saved and "already exists" in outcome.message
    assert read_record_replay_config().mode == "replay"


def test_a_broken_config_is_kept_aside_once_the_choice_is_valid(demo_home: Path) -> None:
    config_path().write_text("{not json")
    assert config_problem() is not None
    refused = apply_settings(SettingsChoice("replay", "echo-demo-damaged"))
    assert not refused.saved and config_path().read_text() == "{not json"
    saved = apply_settings(SettingsChoice("replay", "echo-demo"))
    assert saved.saved and saved.backup is not None and saved.backup.read_text() == "{not json"
    assert json.loads(config_path().read_text())["record_replay"]["file"] == "echo-demo"
    assert config_problem() is None


def test_a_broken_config_with_a_taken_record_name_is_left_alone(demo_home: Path) -> None:
    config_path().write_text("[]")
    outcome = apply_settings(SettingsChoice("record", "echo-demo"))
    assert not outcome.saved and config_path().read_text() == "[]"


def test_off_repairs_a_broken_config(demo_home: Path) -> None:
    config_path().write_text("{")
    outcome = apply_settings(SettingsChoice("off"))
    assert outcome.saved and outcome.backup is not None
    assert "kept as config.json.corrupt-" in outcome.message


def test_replay_choices_are_the_valid_managed_recordings(demo_home: Path) -> None:
    assert replay_choices(list_recordings()) == [("echo-demo · 5 calls", "echo-demo")]
