"""`openprogram recordings rules`: the rules replay of a recording merges, numbered with where each
comes from, and removing one from the header or from `pyproject.toml` (real subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from openprogram.providers.recording.rules import IgnoreRule, NormalizeRule
from openprogram.recordings.rule_edits import (
    RuleEditError,
    add_rule_to_header,
    header_rules,
    remove_rule_from_header,
)
from tests.recording_files import subprocess_env, write_recording

PYPROJECT = """\
[project]
name = "agent"

[tool.openprogram.replay]
# the request id changes on every call
ignore = ["options.metadata.request_id"]
"""


def rules_cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openprogram", "recordings", "rules", *args],
        env=subprocess_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def test_rules_are_listed_numbered_and_removed_where_they_live(
    openprogram_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "agent"
    project.mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT)
    recording = write_recording(project / "session.jsonl")
    for preset in ("iso-datetime", "uuid"):
        add_rule_to_header(recording, NormalizeRule(path="context.system_prompt", preset=preset))  # type: ignore[arg-type]
    rows_after_header = recording.read_bytes().split(b"\n", 1)[1]

    listed = rules_cli(openprogram_home, project, str(recording))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        f"  1  ignore options.metadata.request_id  ({project / 'pyproject.toml'})",
        "  2  normalize context.system_prompt iso-datetime  (recording header)",
        "  3  normalize context.system_prompt uuid  (recording header)",
    ]
    as_json = json.loads(rules_cli(openprogram_home, project, str(recording), "--json").stdout)
    assert [(r["number"], r["kind"], r["preset"]) for r in as_json] == [
        (1, "ignore", None),
        (2, "normalize", "iso-datetime"),
        (3, "normalize", "uuid"),
    ]

    removed = rules_cli(openprogram_home, project, str(recording), "--remove", "3")
    assert removed.returncode == 0, removed.stderr
    assert "removed `normalize context.system_prompt uuid` from the header" in removed.stdout
    assert [rule.describe() for rule in header_rules(recording).all()] == [
        "normalize context.system_prompt iso-datetime"
    ]
    assert recording.read_bytes().split(b"\n", 1)[1] == rows_after_header  # rows untouched

    removed = rules_cli(openprogram_home, project, str(recording), "--remove", "1")
    assert removed.returncode == 0, removed.stderr
    text = (project / "pyproject.toml").read_text()
    assert "request_id" not in text and "# the request id changes" in text  # comments kept

    out_of_range = rules_cli(openprogram_home, project, str(recording), "--remove", "5")
    assert out_of_range.returncode == 2
    assert "has 1 rule in force" in out_of_range.stderr


def test_removing_a_rule_the_header_does_not_hold_writes_nothing(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "session.jsonl")
    before = recording.read_bytes()
    try:
        remove_rule_from_header(recording, IgnoreRule(path="options.metadata.x"))
    except RuleEditError as exc:
        assert "has no rule `ignore options.metadata.x`; nothing written" in str(exc)
    else:
        raise AssertionError("removing a missing rule must fail")
    assert recording.read_bytes() == before
