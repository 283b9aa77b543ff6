"""What a CI job keeps of a test that failed on its recording: a JSON file and an annotation.

`--openprogram-report=DIR` writes `DIR/TEST-ID.json` in the shape of `openprogram recordings
check --json` (a `CheckResult`), so one reader serves both, and `DIR/TEST-ID.html`, the page
`check --html` writes; `--openprogram-annotations` (on by
itself when `GITHUB_ACTIONS=true`) prints one GitHub Actions workflow command per such test,
`::error file=…,line=…,title=…::call K, field PATH: recorded …, incoming …`, which GitHub shows
on the test's line in the pull request.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from openprogram.html_report.page import write_page
from openprogram.html_report.reports import check_page
from openprogram.providers.recording.mismatch import MismatchReport
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.recording.state_files import atomic_write_text
from openprogram.recordings.check import CheckResult
from openprogram.text import file_stem
from openprogram.visible_text import visible


def report_file_stem(node_id: str) -> str:
    """A test id as a file name: `tests/test_a.py::test_b[x]` → `tests.test_a.py..test_b[x]`
    (the plugin's `file_stem`: a short hash when characters had to be replaced)."""
    return file_stem(node_id.replace("/", ".").replace("::", ".."))


def annotation_text(report: MismatchReport) -> str:
    """`call 1, field context.system_prompt: recorded 'a', incoming 'b'`: the message on one line,
    as terminal-safe as every other place a recorded value is shown."""
    text = report.one_line
    for prefix in ("replay mismatch at ", "replay mismatch: "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return visible(text)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(file: str, line: int | None, title: str, message: str) -> str:
    """One `::error` workflow command, escaped as GitHub documents it."""
    where = f"file={_escape_property(file)}"
    if line is not None:
        where += f",line={line}"
    return f"::error {where},title={_escape_property(title)}::{_escape_data(message)}"


def check_result(
    *,
    recording: str,
    command: str,
    cwd: Path,
    calls_recorded: int,
    calls_consumed: int,
    duration_seconds: float,
    mismatch: MismatchReport,
    rules: list[str],
) -> CheckResult:
    """The failure in `check --json`'s shape: the test's command stands for the program run."""
    return CheckResult(
        status="mismatch",
        recording=recording,
        argv=shlex.split(command),
        cwd=str(cwd),
        calls_recorded=calls_recorded,
        calls_consumed=calls_consumed,
        never_requested=list(range(calls_consumed, calls_recorded)),
        duration_seconds=round(duration_seconds, 3),
        exit_code=None,
        mismatch=mismatch,
        error=None,
        stderr_tail=[],
        rules=rules,
    )


def write_report(
    directory: Path,
    node_id: str,
    result: CheckResult,
    calls: tuple[RecordedCall, ...],
    commands: list[tuple[str, str]],
) -> Path:
    """Write `DIR/<test>.json` and `DIR/<test>.html` (private: they hold the requests); returns
    the HTML page's path."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = report_file_stem(node_id)
    text = json.dumps(result.json_value(), indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(directory / f"{stem}.json", text)
    return write_page(directory / f"{stem}.html", check_page(result, calls, commands))
