"""A program whose text is 100 KB of a repetitive shape (`a=a=…`, once nested one level per `=` by
redaction) records, checks, scans and shows through the real CLI, each a fresh process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.providers.test_redaction_bounds import SHAPES, repeated
from tests.recording_files import run_cli

ECHO = [sys.executable, "examples/echo_agent.py"]


@pytest.mark.parametrize("shape", SHAPES)
def test_record_check_scan_and_show_return_on_100_kb_of_a_repetitive_shape(
    openprogram_home: Path, shape: str
) -> None:
    # The echo tool answers `echo:TEXT`: the text is a tool result, a request and an answer.
    made = run_cli(openprogram_home, "record", "--name", "big", "--", *ECHO, repeated(shape))
    assert made.returncode == 0, made.stderr[-2000:]
    path = openprogram_home / "recordings" / "big.jsonl"

    checked = run_cli(openprogram_home, "check", "big", "--json")
    assert json.loads(checked.stdout)["status"] == "ok", checked.stderr[-2000:]
    scanned = run_cli(openprogram_home, "scan", str(path))
    assert (scanned.returncode, scanned.stdout) == (0, "no secrets found in 1 file\n")
    shown = run_cli(openprogram_home, "show", "big", "--content")
    assert shown.returncode == 0 and shown.stdout == path.read_text(encoding="utf-8")
