"""`openprogram recordings check --runs N`: what changes by itself is told from what the code
changed, and ruled; run as real subprocesses against a program recorded for real."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from tests.cli.test_check_faults_cli import record, text_stream
from tests.recording_files import run_cli

DATED_PROGRAM = """
import asyncio, os, sys, uuid
from datetime import datetime
from openprogram.providers import Context, Model, TextContent, UserMessage, complete_simple

async def main():
    model = Model(id="gpt-test", api="openai-completions", provider="openai",
                  base_url=os.environ["AGENT_BASE_URL"])
    context = Context(
        system_prompt=f"Session {uuid.uuid4()} started {datetime.now().isoformat()}.",
        messages=[UserMessage(content=sys.argv[1] if len(sys.argv) > 1 else "hi")],
    )
    answer = await complete_simple(model, context)
    print("".join(b.text for b in answer.content if isinstance(b, TextContent)))

asyncio.run(main())
"""


def test_runs_sorts_the_uuid_and_date_from_a_real_change_and_rules_them(
    openprogram_home: Path, tmp_path: Path
) -> None:
    command, base_url = record(
        openprogram_home, tmp_path, "dated", DATED_PROGRAM, text_stream(["Hello"])
    )
    # The code change: the user now says "bye".
    rerun = [command[0], command[1], "bye"]
    pyproject = tmp_path / "pyproject.toml"
    assert not pyproject.exists()

    done = run_cli(
        openprogram_home,
        "check",
        "dated",
        "--runs",
        "3",
        "--accept-rules",
        "--json",
        "--",
        *rerun,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["runs"] == 3
    assert sorted(report["rules_written"]) == [
        "normalize context.system_prompt iso-datetime",
        "normalize context.system_prompt uuid",
    ]
    assert report["changes_by_itself"] == []
    assert [ruled["field_path"] for ruled in report["ruled"]] == ["context.system_prompt"]
    [changed] = report["code_changed"]
    assert (changed["call_index"], changed["field_path"]) == (0, "context.messages[0].content")
    assert changed["recorded"] == "'hi'" and changed["incoming"] == ["'bye'", "'bye'"]
    written = tomllib.loads(pyproject.read_text())["tool"]["openprogram"]["replay"]["normalize"]
    assert sorted(rule["preset"] for rule in written) == ["iso-datetime", "uuid"]

    # The rules now hold: a plain check meets the code change only.
    check = run_cli(
        openprogram_home,
        "check",
        "dated",
        "--json",
        "--",
        *rerun,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    mismatch = json.loads(check.stdout)["mismatch"]
    assert mismatch["field_path"] == "context.messages[0].content"


def test_without_a_yes_the_rules_are_proposed_and_nothing_is_written(
    openprogram_home: Path, tmp_path: Path
) -> None:
    command, base_url = record(
        openprogram_home, tmp_path, "dated", DATED_PROGRAM, text_stream(["Hello"])
    )
    done = run_cli(
        openprogram_home,
        "check",
        "dated",
        "--runs",
        "2",
        "--",
        *command,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    assert done.returncode == 1
    out = done.stdout
    assert "run 1/2: exit code 0, 1 call with differences" in out
    assert "rules that absorb what changes by itself:" in out
    assert "not written: pass --accept-rules" in out
    assert "changes by itself (the incoming value differs between runs):" in out
    assert "    rule:     normalize context.system_prompt uuid" in out
    assert "the code changed" not in out and "wrote to" not in out
    assert not (tmp_path / "pyproject.toml").exists()
