"""The dated agent example: recorded once, it replays green another day with only its
`pyproject.toml` rules; without them, the same check mismatches and suggests the rule."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.recording_files import REPO_ROOT, subprocess_env

EXAMPLE = REPO_ROOT / "examples" / "dated_agent"


def run_in(
    project: Path, home: Path, *args: str, day: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    """`openprogram recordings ARGS` run from the example's folder, on the given day."""
    return subprocess.run(
        [sys.executable, "-m", "openprogram", "recordings", *args],
        env=subprocess_env(home, OPENPROGRAM_EXAMPLE_TODAY=day, PYTHONPATH=str(REPO_ROOT), **extra),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
    )


def test_the_dated_agent_replays_green_the_next_day(openprogram_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "dated_agent"
    shutil.copytree(EXAMPLE, project)
    agent = [sys.executable, str(project / "agent.py")]
    made = run_in(
        project, openprogram_home, "record", "--name", "dated", "--", *agent, day="2026-12-01"
    )
    assert made.returncode == 0, made.stderr
    next_day = run_in(project, openprogram_home, "check", "dated", "--json", day="2026-12-02")
    result = json.loads(next_day.stdout)
    assert next_day.returncode == 0 and result["status"] == "ok", next_day.stdout
    assert {a["field_path"] for a in result["absorbed"]} >= {"context.system_prompt"}
    assert any("tmp-path" in (a["rule"] or "") for a in result["absorbed"])

    (project / "pyproject.toml").unlink()  # the same program, no rules
    bare = run_in(project, openprogram_home, "check", "dated", "--json", day="2026-12-02")
    mismatch = json.loads(bare.stdout)["mismatch"]
    assert bare.returncode == 1 and mismatch["field_path"] == "context.system_prompt"
    assert mismatch["suggestion"] == "normalize context.system_prompt iso-datetime"


def test_the_suggestion_is_a_command_to_run_and_pyproject_lines_to_paste(
    openprogram_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "dated_agent"
    shutil.copytree(EXAMPLE, project)
    (project / "pyproject.toml").unlink()  # no rules
    agent = [sys.executable, str(project / "agent.py")]
    made = run_in(
        project, openprogram_home, "record", "--name", "dated", "--", *agent, day="2026-12-01"
    )
    assert made.returncode == 0, made.stderr
    bare = run_in(project, openprogram_home, "check", "dated", "--json", day="2026-12-02")
    mismatch = json.loads(bare.stdout)["mismatch"]
    command = shlex.split(mismatch["suggestion_command"])
    assert command[:3] == ["openprogram", "recordings", "check"]
    assert command[4:] == ["--normalize", "context.system_prompt", "iso-datetime"]
    assert mismatch["suggestion_pyproject"] == (
        "[tool.openprogram.replay]\n"
        "normalize = [\n"
        '  { path = "context.system_prompt", preset = "iso-datetime" },\n'
        "]\n"
    )
    human = run_in(project, openprogram_home, "check", "dated", day="2026-12-02")
    assert f"try it:  {mismatch['suggestion_command']}" in human.stdout
    assert "keep it: add to pyproject.toml" in human.stdout

    def past_the_prompt(result: subprocess.CompletedProcess[str]) -> bool:
        value = json.loads(result.stdout)
        field = (value.get("mismatch") or {}).get("field_path")
        return value["status"] == "ok" or field not in (None, "context.system_prompt")

    tried = run_in(project, openprogram_home, *command[2:], "--json", day="2026-12-02")
    assert past_the_prompt(tried), tried.stdout
    (project / "pyproject.toml").write_text(mismatch["suggestion_pyproject"])
    kept = run_in(project, openprogram_home, "check", "dated", "--json", day="2026-12-02")
    assert past_the_prompt(kept), kept.stdout


def test_accept_lists_the_same_fields_as_the_diff_of_the_two_versions(
    openprogram_home: Path, tmp_path: Path
) -> None:
    """A changed user message accepted on another day: the system prompt's date and the temp
    path differ too (rules absorb them) and the new version stores them, so accept lists them."""
    project = tmp_path / "dated_agent"
    shutil.copytree(EXAMPLE, project)
    agent = [sys.executable, str(project / "agent.py")]
    made = run_in(
        project, openprogram_home, "record", "--name", "dated", "--", *agent, day="2026-12-01"
    )
    assert made.returncode == 0, made.stderr
    source = project / "agent.py"
    source.write_text(source.read_text().replace('"buy milk"', '"buy bread"'))

    human = run_in(project, openprogram_home, "accept", "dated", "--", *agent, day="2026-12-02")
    assert human.returncode == 2  # not a terminal: it lists, then refuses without --yes
    assert "context.system_prompt  (written too; normalize context.system_prompt" in human.stdout

    accepted = run_in(
        project, openprogram_home, "accept", "dated", "--json", "--yes", "--", *agent,
        day="2026-12-02",
    )  # fmt: skip
    result = json.loads(accepted.stdout)
    assert accepted.returncode == 0 and result["status"] == "accepted", accepted.stdout
    listed = {
        (call["call_index"], d["field_path"], d["absorbed_by"])
        for call in result["accepted"]
        for d in call["differences"]
    }
    assert (0, "context.system_prompt", "normalize context.system_prompt iso-datetime") in listed
    assert (0, "context.messages[0].content", None) in listed

    new = openprogram_home / "recordings" / "dated.jsonl"
    diff = run_in(
        project, openprogram_home, "diff", result["previous_version"], str(new), "--json",
        day="2026-12-02",
    )  # fmt: skip
    compared = {
        (call["b"], d["field_path"])
        for call in json.loads(diff.stdout)["calls"]
        for d in call["request"]
    }
    assert {(index, path) for index, path, _ in listed} == compared


def test_following_the_suggested_commands_converges(openprogram_home: Path, tmp_path: Path) -> None:
    """Each suggested command keeps the rules already given, so running the suggestion of the
    suggestion moves forward to ok instead of back to the first difference."""
    project = tmp_path / "dated_agent"
    shutil.copytree(EXAMPLE, project)
    (project / "pyproject.toml").unlink()  # no rules: two fields change by themselves
    agent = [sys.executable, str(project / "agent.py")]
    made = run_in(
        project, openprogram_home, "record", "--name", "dated", "--", *agent, day="2026-12-01"
    )
    assert made.returncode == 0, made.stderr
    command = ["openprogram", "recordings", "check", "dated"]
    suggested: list[str] = []
    for _ in range(4):
        tried = run_in(project, openprogram_home, *command[2:], "--json", day="2026-12-02")
        value = json.loads(tried.stdout)
        if value["status"] == "ok":
            break
        assert value["mismatch"]["suggestion"] is not None, value["mismatch"]["message"]
        suggested.append(value["mismatch"]["field_path"])
        command = shlex.split(value["mismatch"]["suggestion_command"])
    assert value["status"] == "ok", value
    assert suggested[0] == "context.system_prompt" and len(set(suggested)) == len(suggested) == 2


def test_the_dated_agent_leaves_no_temporary_folder(openprogram_home: Path, tmp_path: Path) -> None:
    """Its tool writes into a temporary folder that each run removes (#42 item 39)."""
    project = tmp_path / "dated_agent"
    shutil.copytree(EXAMPLE, project)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    agent = [sys.executable, str(project / "agent.py")]
    made = run_in(
        project, openprogram_home, "record", "--name", "dated", "--", *agent,
        day="2026-12-01", TMPDIR=str(scratch),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert (
        "saved to " + str(scratch) in (openprogram_home / "recordings" / "dated.jsonl").read_text()
    )
    checked = run_in(
        project, openprogram_home, "check", "dated", day="2026-12-02", TMPDIR=str(scratch)
    )
    assert checked.returncode == 0, checked.stdout
    assert list(scratch.iterdir()) == []
