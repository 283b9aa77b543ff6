"""Every command the README and docs/ show as runnable really runs, so the docs cannot rot.

A fenced block whose info string holds `runnable` (```` ```bash runnable ````) is run line by line,
in order, each line in `bash -c` from the repository root, with a fresh `$OPENPROGRAM_HOME` per
document (so later commands can use what earlier ones recorded). A line ending in `# exit N`
must exit with N; every other line must exit 0. Blocks without `runnable` (installs, interactive
TUI sessions, code) are not run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from openprogram.providers.recording.reader import read_recording

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
EXPECTED_EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")


def blocks(document: Path, *, runnable: bool) -> list[str]:
    """The bodies of the document's fenced blocks that are (or are not) marked runnable."""
    return [
        match["body"]
        for match in FENCE.finditer(document.read_text(encoding="utf-8"))
        if ("runnable" in match["info"].split()) == runnable
    ]


def commands(document: Path) -> list[tuple[str, int]]:
    """Each runnable command of the document and the exit code it must end with."""
    found = []
    for body in blocks(document, runnable=True):
        for line in body.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                expected = EXPECTED_EXIT.search(line)
                found.append((line, int(expected.group(1)) if expected else 0))
    return found


def test_the_readme_and_every_doc_have_runnable_commands() -> None:
    """The docs that describe commands show at least some that run (the test is not vacuous)."""
    with_commands = {d.name for d in DOCUMENTS if commands(d)}
    assert {"README.md", "cli.md", "replay-and-mismatches.md", "tui.md"} <= with_commands


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_every_runnable_command_of_the_document_runs(document: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY") and key != "OPENPROGRAM_HOME"
    }
    env.update(
        OPENPROGRAM_HOME=str(home),
        NO_COLOR="1",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    for command, expected in commands(document):
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == expected, (
            f"{document.name}: `{command}` exited {done.returncode}, the doc says {expected}\n"
            f"stdout:\n{done.stdout[-2000:]}\nstderr:\n{done.stderr[-2000:]}"
        )


def test_the_walkthroughs_can_be_followed_one_after_the_other_in_one_home() -> None:
    """A newcomer runs the README's commands, then the docs', with one `$OPENPROGRAM_HOME`: no two
    documents record under the same name (the second `record --name` would be refused)."""
    names: dict[str, str] = {}
    for document in DOCUMENTS:
        for command, _ in commands(document):
            for name in re.findall(r"record --name (\S+)", command):
                owner = names.setdefault(name, document.name)
                assert owner == document.name, f"{document.name} records {name!r} as {owner} does"


def test_the_format_example_is_a_strictly_valid_recording(tmp_path: Path) -> None:
    (example,) = [
        match["body"]
        for match in FENCE.finditer((REPO / "docs" / "recording-format.md").read_text())
        if match["info"].strip() == "json"
    ]
    assert all(json.loads(line) for line in example.splitlines())
    path = tmp_path / "example.jsonl"
    path.write_text(example)
    path.chmod(0o600)
    recording = read_recording(path)
    assert [len(call.events) for call in recording.calls] == [1, 1, 1]
    assert len(recording.calls[2].request.context["messages"]) == 5  # rebuilt from references


def test_links_between_the_docs_lead_somewhere() -> None:
    for document in DOCUMENTS:
        for target in re.findall(r"\]\(([^)#]+)\)", document.read_text()):
            if "://" in target:
                continue
            assert (document.parent / target).exists(), f"{document.name} links to {target}"
