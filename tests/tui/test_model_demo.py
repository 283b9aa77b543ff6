"""The demo: recorded with the library, the same bytes every run, and a state dir to try it in."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from openprogram.providers.recording.config import read_record_replay_config
from openprogram.providers.recording.reader import scan_recording
from openprogram.providers.recording.redaction import REDACTION_VERSION
from openprogram.recordings import entry_of, run_check
from openprogram.recordings.trust import untrusted_command
from tui.model.demo import (
    DAMAGED_DEMO_ID,
    DEMO_RECORDING_ID,
    prepare_demo_home,
    write_demo_recording,
)


def test_demo_is_deterministic(tmp_path: Path, demo_bytes: bytes) -> None:
    again = write_demo_recording(tmp_path / "again.jsonl")
    assert again.read_bytes().replace(b'"again"', b'"echo-demo"') == demo_bytes


def test_demo_shows_tools_thinking_a_loop_and_a_broken_call(demo_file: Path) -> None:
    scan = scan_recording(demo_file)
    assert scan.valid and scan.header is not None
    assert scan.header.model_extra == {
        "created_at": "2026-01-05T09:30:00Z",
        "recording_id": "echo-demo",
        "redaction_version": REDACTION_VERSION,
    }
    assert [c.outcome for c in scan.calls] == ["complete"] * 4 + ["error"]
    kinds = {e.type for c in scan.calls for e in c.events}
    assert {"thinking_delta", "toolcall_start", "toolcall_end", "done"} <= kinds
    tool_turn = scan.calls[2].events[-1]
    assert tool_turn.type == "done" and tool_turn.reason == "toolUse"
    assert len(scan.calls[3].request.context["messages"]) == 8


def test_prepare_demo_home_makes_a_state_dir(tmp_path: Path) -> None:
    demo = prepare_demo_home(tmp_path / "home")
    assert demo == tmp_path / "home" / "recordings" / f"{DEMO_RECORDING_ID}.jsonl"
    assert read_record_replay_config().model_dump() == {"mode": "replay", "file": "echo-demo"}
    damaged = scan_recording(demo.with_name(f"{DAMAGED_DEMO_ID}.jsonl"))
    assert not damaged.valid and damaged.facts.unfinished_calls
    assert (demo.stat().st_mode & 0o777) == 0o600
    # its own bundled command was made here: `r` and `check` run it without asking
    assert untrusted_command(demo) is None
    assert untrusted_command(demo.with_name(f"{DAMAGED_DEMO_ID}.jsonl")) is None


def test_the_demo_reruns_with_the_program_it_names(tmp_path: Path, offline_children: Path) -> None:
    demo = prepare_demo_home(tmp_path / "home")
    entry = entry_of(demo)
    assert entry is not None and entry.argv[1:] == ["-m", "tui.demo_agent"]
    assert run_check(str(demo)).status == "ok"
    changed = run_check(str(demo), [*entry.argv, "bye"], cwd=entry.cwd)
    assert changed.status == "mismatch" and changed.mismatch is not None
    assert changed.mismatch.call_index == 1
    assert offline_children.read_text() == ""


def test_the_demo_program_runs_live_without_a_key(tmp_path: Path) -> None:
    env = {**os.environ, "OPENPROGRAM_HOME": str(tmp_path / "empty-home")}
    done = subprocess.run(
        [sys.executable, "-m", "tui.demo_agent"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "The echo tool answered: echo:hello world.",
        "The echo tool answered: echo:ping and echo:pong.",
    ]


def test_demo_times_look_like_a_real_stream(demo_file: Path) -> None:
    """A wait for each call's first event, then uneven gaps; calls apart by the agent's pauses
    (the demo once read `+41ms` for every event and `123ms` for every call)."""
    calls = scan_recording(demo_file).calls
    firsts, gaps, durations = set(), set(), set()
    for call in calls:
        times = [ms for ms in call.event_ms if ms is not None]
        assert times == sorted(times) and len(times) == len(call.event_ms)
        firsts.add(times[0])
        gaps.update(b - a for a, b in itertools.pairwise(times))
        durations.add(call.duration_ms)
    assert len(firsts) == len(durations) == len(calls)  # no two calls alike
    assert len(gaps) > 20 and min(firsts) > max(gaps)  # the first event is the long wait
    ends = [(c.start_ms or 0) + (c.duration_ms or 0) for c in calls]
    assert all(end < (c.start_ms or 0) for end, c in zip(ends, calls[1:], strict=False))
