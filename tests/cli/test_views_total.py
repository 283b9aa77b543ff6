"""Every view is total over what the strict reader accepts (issue #40, item 4): `show`, `show
--json`, `show --html`, `diff`, `diff --json` and `diff --html` render any accepted file, however
odd its numbers and strings, without an exception."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from openprogram.cli.main import main
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.types import MAX_CALL_MS, MAX_SESSION_MS, MAX_TOKENS, MAX_UNIX_MS
from tests.accepted_recordings import recording_lines, write_rows
from tests.recording_files import run_cli, write_recording

VIEWS: tuple[tuple[str, ...], ...] = (
    ("show", "{x}"),
    ("show", "--json", "{x}"),
    ("show", "--html", "{page}", "{x}"),
    ("diff", "{a}", "{x}"),
    ("diff", "--json", "{x}", "{a}"),
    ("diff", "--html", "{page}", "{a}", "{x}"),
)


def render(view: tuple[str, ...], **paths: Path) -> tuple[int, str, str]:
    """Run one view in this process: its exit code and what it printed (stdout, stderr)."""
    argv = ["recordings", *(word.format(**paths) for word in view)]
    printed, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
        code = main(argv)
    return code, printed.getvalue(), errors.getvalue()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rows=recording_lines())
def test_every_view_renders_every_accepted_file(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    x = write_rows(tmp_path / "x.jsonl", rows)
    read_recording(x)  # the strategy makes only files the reader accepts
    a = tmp_path / "a.jsonl"
    if not a.exists():
        write_recording(a, said=("hi", "there"))
    for view in VIEWS:
        code, printed, errors = render(view, x=x, a=a, page=tmp_path / "page.html")
        assert code in (0, 1) and not errors, (view, errors)
        if "--json" in view:
            json.loads(printed)  # strict JSON: no NaN or Infinity


def worst_rows() -> list[dict[str, Any]]:
    """One priced call at every bound: tokens 10^12, a week long, at the end of year 9999."""
    top = {"input": MAX_TOKENS, "output": MAX_TOKENS, "cache_read": MAX_TOKENS}
    top |= {"cache_write": MAX_TOKENS, "total_tokens": MAX_TOKENS, "reasoning": MAX_TOKENS}
    answer = {"api": "openai-completions", "provider": "openai", "model": "gpt-4o"}
    answer |= {"usage": top, "timestamp": MAX_UNIX_MS, "stop_reason": "pauseTurn"}
    model = {"api": "openai-completions", "id": "gpt-4o", "provider": "openai"}
    return [
        {"format_version": 2, "type": "header"},
        {
            "call_index": 0,
            "context": {"messages": [{"content": "hi", "role": "user", "timestamp": 10**400}]},
            "model": model,
            "options": {"temperature": 1.7e308},
            "start_ms": MAX_SESSION_MS,
            "type": "request",
        },
        {
            "call_index": 0,
            "event": {"partial": answer, "type": "start"},
            "event_index": 0,
            "ms": MAX_CALL_MS,
            "type": "event",
        },
        {
            "call_index": 0,
            "event": {"message": answer, "reason": "pauseTurn", "type": "done"},
            "event_index": 1,
            "ms": MAX_CALL_MS,
            "type": "event",
        },
        {
            "call_index": 0,
            "duration_ms": MAX_CALL_MS,
            "event_count": 2,
            "outcome": "complete",
            "type": "call_end",
        },
    ]


def test_every_view_renders_the_worst_file_in_a_real_process(tmp_path: Path) -> None:
    x = write_rows(tmp_path / "x.jsonl", worst_rows())
    a = write_recording(tmp_path / "a.jsonl", said=("hi",))
    for view in VIEWS:
        words = [word.format(x=x, a=a, page=tmp_path / "page.html") for word in view]
        done = run_cli(tmp_path / "home", *words)
        assert done.returncode in (0, 1), (view, done.stderr)
        assert "Traceback" not in done.stderr
        if "--json" in view:
            json.loads(done.stdout)
