"""Rules from a recording's header or from `pyproject.toml` are input too: no expression in them can
hang `check` or `scan` (RE2 runs them in linear time), one RE2 refuses is one line naming where it
is, and a recording's own rule cannot ignore a whole message or more. Real subprocesses, the
recording made by `record` and its header edited as an attacker (or a careless merge) would."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.recording_files import ECHO_PROGRAM, run_cli

CATASTROPHIC = "(x+)+\\x00"
"""Exponential on a backtracking engine: against 31 `x`s and no NUL after them, Python's `re`
runs past a minute. It matches nothing in the recording, wherever the test runs: a NUL cannot be
in a path (the header's `cwd`, a temporary folder whose random name once held "xy", matched the
`(x+)+y` this test used before)."""
SAID, OTHER = "x" * 31 + "a", "x" * 31 + "b"
EXPRESSION_SOURCES = ["header", "pyproject"]


def echo(said: str) -> list[str]:
    return [sys.executable, "-c", ECHO_PROGRAM, said]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def recorded(home: Path, project: Path) -> Path:
    """A recording of the echo agent saying `SAID`, made in `project`."""
    made = run_cli(home, "record", "--name", "echo", "--", *echo(SAID), cwd=project)
    assert made.returncode == 0, made.stderr
    return home / "recordings" / "echo.jsonl"


def with_rules(source: str, recording: Path, project: Path, rules: dict[str, Any]) -> str:
    """Put `rules` (`{"normalize": [...], "scrub": [...]}`) in the header or in pyproject.toml;
    the place an error must name."""
    if source == "header":
        lines = recording.read_text().splitlines(keepends=True)
        header = json.loads(lines[0])
        header["rules"] = rules
        recording.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
        return "header.rules"
    tables = {"normalize": "replay", "scrub": "record"}
    text = "".join(
        f"[tool.openprogram.{tables[kind]}]\n{kind} = [{', '.join(map(toml_table, items))}]\n"
        for kind, items in rules.items()
    )
    (project / "pyproject.toml").write_text(text)
    return "pyproject.toml: tool.openprogram"


def toml_table(rule: dict[str, str]) -> str:
    """An inline TOML table (a JSON string is a TOML basic string)."""
    return "{ " + ", ".join(f"{key} = {json.dumps(value)}" for key, value in rule.items()) + " }"


def catastrophic(kind: str) -> dict[str, Any]:
    return {kind: [{"path": "**", "pattern": CATASTROPHIC, "replace": "x"}]}


@pytest.mark.parametrize("source", EXPRESSION_SOURCES)
def test_a_catastrophic_normalize_expression_does_not_hang_check(
    openprogram_home: Path, project: Path, source: str
) -> None:
    recording = recorded(openprogram_home, project)
    with_rules(source, recording, project, catastrophic("normalize"))
    done = run_cli(openprogram_home, "check", "echo", "--json", "--", *echo(OTHER), cwd=project)
    result = json.loads(done.stdout)
    assert (done.returncode, result["status"]) == (1, "mismatch"), done.stdout + done.stderr
    assert OTHER in json.dumps(result["mismatch"])


@pytest.mark.parametrize("source", EXPRESSION_SOURCES)
def test_a_catastrophic_scrub_expression_does_not_hang_the_scan(
    openprogram_home: Path, project: Path, source: str
) -> None:
    recording = recorded(openprogram_home, project)
    with_rules(source, recording, project, catastrophic("scrub"))
    done = run_cli(openprogram_home, "scan", str(recording), cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("source", EXPRESSION_SOURCES)
@pytest.mark.parametrize(
    ("kind", "rule", "reason"),
    [
        ("normalize", {"pattern": "(?<=run )\\d+", "replace": "N"}, "not a regular expression"),
        ("normalize", {"pattern": "(a)\\1", "replace": "N"}, "not a regular expression"),
        ("normalize", {"pattern": "a", "replace": "\\2"}, "names group \\2"),
        ("scrub", {"pattern": "a{1000}{1000}", "replace": "N"}, "not a regular expression"),
    ],
    ids=["lookbehind", "backreference", "missing-group", "huge-repeat"],
)
def test_an_expression_re2_refuses_is_one_line_naming_its_place(
    openprogram_home: Path,
    project: Path,
    source: str,
    kind: str,
    rule: dict[str, str],
    reason: str,
) -> None:
    recording = recorded(openprogram_home, project)
    place = with_rules(source, recording, project, {kind: [{"path": "**", **rule}]})
    table = {"normalize": "replay", "scrub": "record"}[kind]
    commands = [["check", "echo", "--", *echo(SAID)], ["rules", "echo"]]
    if source == "pyproject":  # the scan reads a header's scrub rules when it can, else none
        commands.append(["scan", str(recording)])
    for command in commands:
        done = run_cli(openprogram_home, *command, cwd=project)
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert done.returncode != 0 and len(errors) == 1, (command[0], done.stdout, done.stderr)
        assert f"{place}.{table}.{kind}[0]" in errors[0] and reason in errors[0], errors[0]
        assert "Traceback" not in done.stderr and "re2.cc" not in done.stderr


def test_the_command_line_takes_presets_not_expressions(
    openprogram_home: Path, project: Path
) -> None:
    recorded(openprogram_home, project)
    done = run_cli(
        openprogram_home, "check", "echo", "--normalize", "**", CATASTROPHIC, cwd=project
    )
    assert done.returncode == 2 and "--normalize" in done.stderr and "uuid" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


WHOLE_MESSAGES = ["**", "*", "context", "context.**", "**.messages", "context.messages[*]", "**[0]"]
"""Paths that ignore a whole request, the message list or every (or one whole) message."""


def with_header_ignore(recording: Path, path: str) -> None:
    lines = recording.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["rules"] = {"ignore": ["options.metadata.request_id", path]}
    recording.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))


@pytest.mark.parametrize("path", WHOLE_MESSAGES)
def test_a_recording_cannot_ignore_whole_messages_of_its_own(
    openprogram_home: Path, project: Path, path: str
) -> None:
    recording = recorded(openprogram_home, project)
    with_header_ignore(recording, path)
    done = run_cli(openprogram_home, "check", "echo", "--", *echo(OTHER), cwd=project)
    assert done.returncode == 1 and done.stdout == "", done.stdout  # not `ok`: nothing ran
    [error] = done.stderr.splitlines()
    assert "header.rules.replay.ignore[1]" in error and repr(path) in error, error
    assert "pyproject.toml" in error


def test_a_project_may_ignore_whole_messages_in_its_own_pyproject(
    openprogram_home: Path, project: Path
) -> None:
    recorded(openprogram_home, project)
    (project / "pyproject.toml").write_text('[tool.openprogram.replay]\nignore = ["context"]\n')
    done = run_cli(openprogram_home, "check", "echo", "--", *echo(OTHER), cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
