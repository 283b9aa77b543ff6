"""Record again from the diverging call: the matching prefix replayed and copied, the rest live.

The scripted provider stands in for the live one, reached through the same registry path a real
provider takes; the program is a real subprocess run by the same runner as `recordings check`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openprogram.recordings import run_check
from openprogram.recordings.rerecord import (
    plan_rerecord,
    run_rerecord,
)
from openprogram.recordings.versions import RewriteRefused, list_versions, write_rewrite
from tests.recordings.test_accept import agent, recorded

__all__ = ["agent"]


def rows_of_calls(path: Path, calls: set[int]) -> list[bytes]:
    """Every row (request, events, call_end) of the given calls, as stored."""
    return [
        line
        for line in path.read_bytes().splitlines()[1:]
        if json.loads(line)["call_index"] in calls
    ]


def test_resume_replays_the_matching_calls_and_records_the_rest_live(
    agent: list[str], monkeypatch: pytest.MonkeyPatch, offline_children: Path
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    monkeypatch.setenv("AGENT_TURNS", "hi,more")  # the second turn (calls 2 and 3) changed

    plan = plan_rerecord("agent")
    assert (plan.from_call, plan.live_calls, plan.live_models) == (2, 2, ["scripted/echo-1"])
    assert plan.live_apis == ("scripted",) and not plan.needs_credentials
    assert path.read_bytes() == before  # planning made no live call and wrote nothing

    run = run_rerecord(plan)
    assert run.refusal is None and run.candidate is not None
    kept = write_rewrite(run, agent)
    assert kept is not None and kept.read_bytes() == before and list_versions("agent") == [kept]
    assert rows_of_calls(path, {0, 1}) == rows_of_calls(kept, {0, 1})  # copied as recorded
    new_answers = b"\n".join(rows_of_calls(path, {2, 3}))
    assert b'"text":"more"' in new_answers and b'"text":"again"' not in new_answers  # live
    header = json.loads(path.read_bytes().split(b"\n", 1)[0])
    assert header["produced_by"]["how"] == "rerecord" and header["produced_by"]["from_call"] == 2
    assert run_check("agent").status == "ok"
    assert offline_children.read_text() == ""


def test_from_call_makes_every_call_from_there_live(
    agent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    plan = plan_rerecord("agent", from_call=1)
    assert (plan.from_call, plan.live_calls) == (1, 3)
    write_rewrite(run_rerecord(plan), agent)
    assert rows_of_calls(path, {0}) == [
        line for line in before.splitlines()[1:] if json.loads(line)["call_index"] == 0
    ]
    assert run_check("agent").status == "ok"


def test_a_failing_program_writes_nothing_and_nothing_to_do_is_refused(
    agent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    with pytest.raises(RewriteRefused, match="nothing to record again"):
        run_rerecord(plan_rerecord("agent"))
    monkeypatch.setenv("AGENT_FAIL", "1")
    run = run_rerecord(plan_rerecord("agent", from_call=2))
    assert run.candidate is None and run.refusal is not None and "did not finish" in run.refusal
    with pytest.raises(RewriteRefused, match="nothing written"):
        write_rewrite(run, agent)
    assert path.read_bytes() == before and list_versions("agent") == []
    with pytest.raises(RewriteRefused, match="--from-call 9 is not a call"):
        plan_rerecord("agent", from_call=9)


PII_RULE = {"path": "**", "regex": r"PII-\d+", "replace": "<pii>"}
EMAIL_RULE = {"path": "**", "regex": r"[\w.]+@example\.com", "replace": "<email>"}


def scrub_table(*rules: dict[str, str]) -> str:
    lines = [f"{{ path = {json.dumps(r['path'])}, regex = {json.dumps(r['regex'])}, replace = "
             f"{json.dumps(r['replace'])} }}" for r in rules]  # fmt: skip
    return "[tool.openprogram.record]\nscrub = [\n" + ",\n".join(lines) + ",\n]\n"


def test_rerecord_applies_the_scrub_rules_of_the_header_and_the_project_to_every_row(
    agent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Path(agent[1]).parent
    (project / "pyproject.toml").write_text(scrub_table(PII_RULE, EMAIL_RULE))
    command = [*agent, "--notify", "jane.doe@example.com"]
    prompt = "Echo for PII-12345, then say it."
    path = recorded(command, monkeypatch, AGENT_PROMPT=prompt)
    # The recording keeps the PII rule in its header; the project keeps only the e-mail rule.
    (project / "pyproject.toml").write_text(scrub_table(EMAIL_RULE))
    header, rest = path.read_bytes().split(b"\n", 1)
    value = {**json.loads(header), "rules": {"scrub": [PII_RULE]}}
    path.write_bytes(json.dumps(value).encode() + b"\n" + rest)

    monkeypatch.setenv("AGENT_PROMPT", prompt)
    monkeypatch.setenv("AGENT_TURNS", "hi,more")
    run = run_rerecord(plan_rerecord("agent"))
    kept = write_rewrite(run, command)
    assert kept is not None and list_versions("agent") == [kept]
    for version in (path, kept):
        rows = version.read_bytes().splitlines()
        found = [n for n, row in enumerate(rows) if b"PII-12345" in row or b"jane.doe" in row]
        assert found == [], (version, [rows[n][:200] for n in found])
    header = json.loads(path.read_bytes().split(b"\n", 1)[0])
    assert header["entry"]["argv"][-1] == "<email>"
    assert header["produced_by"]["command"][-1] == "<email>"
    assert b"Echo for <pii>" in path.read_bytes()  # the live calls were scrubbed too
