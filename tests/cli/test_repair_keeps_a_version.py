"""`repair` keeps the damaged original as a previous version (#42 item 38): the managed root lists
the repaired recording alone, `history` lists the original, `restore` could put it back."""

from __future__ import annotations

import json
from pathlib import Path

from openprogram.recordings import ensure_recordings_dir
from tests.recording_files import run_cli, write_recording


def test_repair_leaves_one_listed_recording_and_the_original_in_history(
    openprogram_home: Path,
) -> None:
    path = write_recording(ensure_recordings_dir() / "session.jsonl", ["hi", "again"])
    original = path.read_bytes()
    path.write_bytes(original[: len(original) - 30])  # a crash cut the last line
    done = run_cli(openprogram_home, "repair", "session", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)

    listed = json.loads(run_cli(openprogram_home, "list", "--json").stdout)["recordings"]
    assert [(r["id"], r["valid"]) for r in listed] == [("session", True)]
    (version,) = json.loads(run_cli(openprogram_home, "history", "session", "--json").stdout)[
        "versions"
    ]
    assert version["path"] == report["damaged_copy"]
    assert Path(report["damaged_copy"]).read_bytes() == original[: len(original) - 30]
