"""The check's child protocol: a run spec only our parent writes, typed report rows, no credentials."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from openprogram.providers.recording.check_protocol import (
    AcceptedCall,
    AcceptedDifference,
    AcceptedRow,
    ConsumedRow,
    MismatchRow,
    ReportReader,
    RulesRow,
    report_writer,
)
from openprogram.providers.recording.config import RecordReplayConfig, write_record_replay_config
from openprogram.providers.recording.rules import IgnoreRule
from openprogram.providers.replay import MismatchReport
from openprogram.recordings import ensure_recordings_dir, run_check
from tests.recording_files import run_echo_program, write_recording

SHELL_VARIABLES = ("REPLAY_RESUME", "REPLAY_ACCEPT", "REPLAY_RULES", "REPLAY_REPORT", "CHECK_RUN")
"""The variables that once carried the child protocol, and a plausible new one."""


def test_a_variable_set_in_the_shell_does_not_change_what_replay_does(
    openprogram_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ensure_recordings_dir()
    write_record_replay_config(RecordReplayConfig(mode="record", file="session"))
    assert run_echo_program(openprogram_home, "hello")["calls"] == 2
    write_record_replay_config(RecordReplayConfig(mode="replay", file="session"))
    live = tmp_path / "went-live.jsonl"
    values = {
        "REPLAY_RESUME": json.dumps({"into": str(live), "from_call": 0}),
        "REPLAY_ACCEPT": str(tmp_path / "accepted.jsonl"),
        "REPLAY_RULES": json.dumps({"ignore": ["**"]}),
        "REPLAY_REPORT": str(tmp_path / "report.jsonl"),
        "CHECK_RUN": str(tmp_path / "check-run.json"),
    }
    for name in SHELL_VARIABLES:
        monkeypatch.setenv(f"OPENPROGRAM_{name}", values[name])

    diverged = run_echo_program(openprogram_home, "goodbye")

    assert diverged["mode"] == "replay" and diverged["provider"] == "ReplayProvider"
    assert diverged["error_type"] == "ReplayMismatch" and "call 0" in diverged["error"]
    assert not live.exists() and not (tmp_path / "accepted.jsonl").exists()
    assert not (tmp_path / "report.jsonl").exists()


def test_a_run_spec_that_is_not_private_is_refused_and_nothing_goes_live(
    openprogram_home: Path,
) -> None:
    ensure_recordings_dir()
    write_record_replay_config(RecordReplayConfig(mode="record", file="session"))
    run_echo_program(openprogram_home, "hello")
    spec = openprogram_home / "check-run.json"
    spec.write_text(json.dumps({"mode": "record", "recording": "other"}))
    spec.chmod(0o644)

    result = run_echo_program(openprogram_home, "hello")

    assert result["mode"] == "blocked" and result["error_type"] == "RecordReplayBlockedError"
    assert "not a private file" in result["error"]
    assert not (openprogram_home / "recordings" / "other.jsonl").exists()


def test_the_child_of_a_check_gets_no_credential_variables(
    openprogram_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = write_recording(tmp_path / "one.jsonl")
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_SERVICE_API_KEY", "GITHUB_TOKEN"):
        monkeypatch.setenv(name, "sk-secret-value")
    monkeypatch.setenv("KEEP_THIS", "kept")
    names = [
        "ANTHROPIC_API_KEY",
        "GITHUB_TOKEN",
        "KEEP_THIS",
        "MY_SERVICE_API_KEY",
        "OPENAI_API_KEY",
    ]
    show = f"import os; print(sorted(k for k in os.environ if k in {names!r}))"

    result = run_check(str(recording), [sys.executable, "-c", show])

    assert result.status == "incomplete" and result.exit_code == 0  # the program made no call
    assert result.stdout_tail == ["['KEEP_THIS']"]


def test_report_rows_are_read_from_where_the_last_read_stopped(tmp_path: Path) -> None:
    path = tmp_path / "report.jsonl"
    write = report_writer(str(path))
    reader = ReportReader(path)
    assert reader.read_new() == []
    write(RulesRow(rules=["ignore options.metadata.id  (caller)"]))
    write(ConsumedRow(call_index=0, calls_recorded=2))
    assert [type(row) for row in reader.read_new()] == [RulesRow, ConsumedRow]
    with path.open("ab") as file:  # a row still being written is left for the next read
        file.write(b'{"type": "consumed", "call_index": 1,')
    assert reader.read_new() == []
    with path.open("ab") as file:
        file.write(b' "calls_recorded": 2}\n')
    assert reader.read_new() == [ConsumedRow(call_index=1, calls_recorded=2)]
    mismatch = MismatchReport(kind="extra_call", call_index=2, message="the program made call 2")
    write(MismatchRow(mismatch=mismatch))
    assert reader.read_new() == [MismatchRow(mismatch=mismatch)]
    assert len(reader.of_type(ConsumedRow)) == 2


def test_an_accepted_difference_crosses_the_boundary_with_its_rule_and_reads_as_one_line() -> None:
    """The child reports the absorbing rule itself; users' JSON shows its one-line description."""
    rule = IgnoreRule(path="options.metadata.id", source="pyproject.toml")
    call = AcceptedCall(
        call_index=2,
        differences=[
            AcceptedDifference(field_path="options.metadata.id", recorded='"a"', incoming='"b"',
                               absorbed_by=rule),
            AcceptedDifference(field_path="model.id", recorded='"m"', incoming='"n"'),
        ],
    )  # fmt: skip
    row = AcceptedRow(accepted=call)
    read = AcceptedRow.model_validate_json(row.model_dump_json())
    assert read.accepted.differences[0].absorbed_by == rule
    shown = read.accepted.json_value()["differences"]
    assert [d["absorbed_by"] for d in shown] == ["ignore options.metadata.id", None]
