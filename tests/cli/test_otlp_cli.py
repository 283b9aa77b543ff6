"""`recordings export --otlp` and `recordings import` through the real CLI (issue #44): a recorded
session goes out as a trace and back, a trace the OpenTelemetry SDK made becomes a recording that
`check -- CMD` compares field by field, and a 100 MB trace imports (and goes back out) under a
memory cap."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.otlp_traces import write_agent_trace
from tests.recording_files import run_capped as capped_run
from tests.recording_files import run_cli
from tests.recordings.test_otlp import sdk_trace

ECHO = [sys.executable, "examples/echo_agent.py"]
CAP = 150 << 20
"""Address space for the 100 MB import: enough for the interpreter, its imports and the largest
span; `json.load` of the whole trace does not fit (asserted below, so the cap means something)."""


def test_a_recorded_session_goes_out_as_a_trace_and_comes_back_as_the_same_recording(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    recorded = run_cli(home, "record", "--name", "echo", "--", *ECHO, "hi")
    assert recorded.returncode == 0, recorded.stderr
    trace = tmp_path / "echo-trace.json"
    exported = run_cli(home, "export", "echo", "--otlp", str(trace))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.startswith(f"wrote {trace}: trace ") and "2 calls" in exported.stdout
    json_format.Parse(trace.read_text(), ExportTraceServiceRequest())

    imported = run_cli(home, "import", str(trace), "--name", "back")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.splitlines() == [
        f"imported back: 2 calls from 3 spans ({home / 'recordings' / 'back.jsonl'})"
    ]
    assert "100 %" in imported.stderr  # progress, on stderr
    same = run_cli(home, "check", "back", "--", *ECHO, "hi")
    assert same.returncode == 0 and same.stdout.startswith("ok"), same.stdout + same.stderr
    changed = run_cli(home, "check", "back", "--", *ECHO, "bye")
    assert changed.returncode == 1
    assert "replay mismatch at call 1, field context.messages[2].content[0].text:" in changed.stdout
    assert "recorded 'echo:hi', incoming 'echo:bye'" in changed.stdout


def test_a_trace_the_sdk_made_says_what_it_lacks_and_check_names_each_field_that_differs(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    trace = sdk_trace(tmp_path / "prod.json")
    imported = run_cli(home, "import", str(trace), "--name", "prod", "--quiet")
    assert imported.returncode == 0, imported.stderr
    lines = imported.stdout.splitlines()
    assert lines[0].startswith("imported prod: 2 calls from 4 spans")
    lacks = (
        "not in the trace: the model's api and settings, options beside temperature, tools offered"
    )
    assert [line.split("): ", 1)[1] for line in lines[1:]] == [lacks, lacks]
    assert imported.stderr == ""  # --quiet: no progress

    checked = run_cli(home, "check", "prod", "--", *ECHO, "hi")
    assert checked.returncode == 1 and checked.stdout.startswith("mismatch"), checked.stderr
    assert "replay mismatch at call 0, field model.api:" in checked.stdout
    assert "recorded 'openai', incoming 'scripted'" in checked.stdout
    # the model set aside, check names the next field that differs
    checked = run_cli(home, "check", "prod", "--ignore", "model.**", "--", *ECHO, "hi")
    assert checked.returncode == 1
    assert "replay mismatch at call 0, field context.system_prompt:" in checked.stdout


def test_a_hostile_span_id_is_shown_not_obeyed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    trace = sdk_trace(tmp_path / "prod.json")
    text = trace.read_text()
    first = text.index('"spanId": "') + len('"spanId": "')
    end = text.index('"', first)
    hostile = text[:first] + "\\u001b]52;c;aGk=\\u0007" + text[end:]
    trace.write_text(hostile.replace('"startTimeUnixNano": "', '"startTimeUnixNano": "x', 1))
    refused = run_cli(home, "import", str(trace), "--name", "prod", "--quiet")
    assert refused.returncode == 1 and refused.stdout == ""
    (line,) = refused.stderr.splitlines()
    assert line.startswith(f"error: trace file {trace} span ␛]52;c;aGk=␇: startTimeUnixNano 'x")
    assert "\x1b" not in refused.stderr and not (home / "recordings" / "prod.jsonl").exists()
    assert [p.name for p in (home / "recordings").iterdir()] == []  # no spool, no staged file


def run_capped(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return capped_run(home, CAP, *argv, timeout=300)


def test_a_100_mb_trace_imports_and_exports_in_bounded_memory_and_shows_progress(
    tmp_path: Path,
) -> None:
    trace = write_agent_trace(tmp_path / "big.json", calls=220, result_bytes=4096)
    assert trace.stat().st_size > 100_000_000
    whole = run_capped(
        tmp_path, sys.executable, "-c", f"import json; json.load(open({str(trace)!r}))"
    )
    assert "MemoryError" in whole.stderr  # the cap is below what reading it whole takes

    home = tmp_path / "home"
    imported = run_capped(
        home,
        sys.executable,
        "-m",
        "openprogram",
        "recordings",
        "import",
        str(trace),
        "--name",
        "big",
    )
    assert imported.returncode == 0, imported.stderr[-1000:]
    assert imported.stdout.startswith("imported big: 220 calls from 220 spans")
    progress = [line for line in imported.stderr.splitlines() if line.startswith("note: read ")]
    assert len(progress) >= 10 and progress[-1].endswith("(100 %)")
    recording = home / "recordings" / "big.jsonl"
    assert recording.stat().st_size < trace.stat().st_size // 20  # the conversation stored once

    # and back out: the trace repeats each call's conversation, and is written span by span
    again = tmp_path / "again.json"
    exported = run_capped(
        home,
        sys.executable,
        "-m",
        "openprogram",
        "recordings",
        "export",
        "big",
        "--otlp",
        str(again),
    )
    assert exported.returncode == 0, exported.stderr[-1000:]
    assert again.stat().st_size > 100_000_000
