"""The three pages: a recording (`show --html`), a check (`check --html`), a diff (`diff --html`)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from markupsafe import Markup

from openprogram.html_report.data import (
    cache_facts,
    call_rows,
    safe,
    session_facts,
    table_rows,
)
from openprogram.html_report.page import CallDetails, PageData, render, script_json, write_rendered
from openprogram.providers.recording.reader import (
    RecordedCall,
    RecordingScan,
    scan_recording,
    verify_recording,
)
from openprogram.providers.types import AssistantMessage
from openprogram.recordings.call_stats import (
    CallStats,
    answer_of,
    stats_of_answer,
    with_gaps,
)
from openprogram.recordings.check import CheckResult
from openprogram.recordings.details import CallDescriber
from openprogram.recordings.diff import InCallOrder
from openprogram.recordings.prompt_cache import CallCache, PromptCacheReader, PromptCacheReport
from openprogram.visible_text import visible


def _session_facts(scan: RecordingScan) -> list[list[str]]:
    facts = scan.facts
    found = [
        ["calls", str(facts.calls)],
        ["events", str(facts.events)],
        ["file", facts.validity()],
    ]
    if facts.format_version is not None:
        found.append(["format", str(facts.format_version)])
    if facts.created_at:
        found.append(["created", facts.created_at])
    return [[label, visible(value)] for label, value in found]


def show_page(path: str | os.PathLike[str], title: str | None = None) -> tuple[str, RecordingScan]:
    """A recording: its facts, problems, and every whole call (`title`: the path by default);
    and the scan that read it (`write_show_page` writes it without holding it whole)."""
    data, scan = _show(path, title)
    return render(data), scan


def write_show_page(
    path: str | os.PathLike[str], out: Path, title: str | None = None
) -> RecordingScan:
    """`show_page` written to `out` (atomically, private) as it is rendered; the scan that read
    it. Memory: the page's data, not the page (`show --html`)."""
    data, scan = _show(path, title)
    write_rendered(out, data)
    return scan


def _show(path: str | os.PathLike[str], title: str | None) -> tuple[PageData, RecordingScan]:
    """The page data of a recording."""
    calls = _PageCalls()
    scan = scan_recording(path, calls)
    stats, report, rows = calls.table()
    page: dict[str, Any] = {
        "view": "show",
        "title": visible(title or str(scan.path)),
        "facts": _session_facts(scan) + session_facts(stats) + cache_facts(report),
        "check": None,
        "diff": None,
    }
    if not scan.facts.valid:
        page["check"] = {
            "status": "invalid",
            "summary": visible(f"{scan.facts.validity()}; the whole calls are shown"),
            "notes": [visible(problem.describe()) for problem in scan.facts.problems[:20]],
        }
    return PageData(page, calls.details, rows), scan


class _PageCalls:
    """The page data of a file's calls, built as a reader hands each call over: described,
    counted, read for its prompt cache and written as page data, then let go. Each call's
    events are folded once: its numbers and the prompt-cache reader share the answer (and its
    usage, which both keep for every call)."""

    def __init__(self) -> None:
        self.details = CallDetails()
        self._described = CallDescriber()
        self._answer: AssistantMessage | None = None
        self._cache: PromptCacheReader | None = PromptCacheReader(fold=lambda call: self._answer)
        self._facts: list[CallCache] = []
        self._stats: list[CallStats] = []

    def __call__(self, call: RecordedCall) -> None:
        self._answer = answer_of(call)  # None: valid events in an order no stream makes
        self.details.add(call)
        self._described(call)
        assert self._cache is not None, "handed a call after the table was made"
        if (fact := self._cache.read(call)) is not None:
            self._facts.append(fact)
        self._stats.append(stats_of_answer(call, self._answer))

    def table(self) -> tuple[list[CallStats], PromptCacheReport, list[Markup]]:
        """The calls' numbers (with the gaps between them), prompt-cache report and table rows
        (each its page text, made as the row is). The prompt-cache reader, which remembers
        calls (and through them the file's request rows), is let go here, before the page is
        built."""
        self._cache = None
        stats = with_gaps(sorted(self._stats, key=lambda numbers: numbers.call_index))
        report = PromptCacheReport.of(self._facts)
        rows = table_rows(self._described.rows(), stats, report.calls)
        return stats, report, [script_json(row) for row in rows]


def _commands(result: CheckResult) -> list[list[str]]:
    recording = shlex.quote(result.recording)
    commands = [["inspect it in the terminal UI:", f"openprogram-tui --check {recording}"]]
    mismatch = result.mismatch
    if mismatch is not None and mismatch.field_path:
        commands.append(
            [
                "open the recording at the field:",
                shlex.join(
                    ["openprogram-tui", result.recording, "--call", str(mismatch.call_index),
                     "--field", mismatch.field_path]
                ),
            ]
        )  # fmt: skip
    if mismatch is not None and mismatch.kind == "request":
        commands.append(
            [
                "if the change is intended, accept it offline:",
                f"openprogram recordings accept {recording}",
            ]
        )
    if result.status in ("mismatch", "incomplete"):
        commands.append(
            [
                "if the answers must change too, record again from there:",
                f"openprogram recordings rerecord {recording}",
            ]
        )
    return [[label, visible(command)] for label, command in commands]


def check_page(
    result: CheckResult,
    calls: tuple[RecordedCall, ...],
    commands: list[tuple[str, str]] | None = None,
) -> str:
    """A check: the verdict and the mismatch side by side first, then the recording's calls.
    `commands` (what resolves it, each with what it does) replace the CLI's own, e.g. pytest's."""
    facts = [
        ["status", result.status],
        ["command", visible(shlex.join(result.argv))],
        ["calls", f"{result.calls_consumed}/{result.calls_recorded} consumed"],
        ["time", f"{result.duration_seconds:.2f} s"],
    ]
    notes = [visible(f"rule: {rule}") for rule in result.rules]
    if result.error:
        notes.append(visible(f"error: {result.error}"))
    if result.never_requested and result.status != "mismatch":
        notes.append("never requested: call " + ", ".join(map(str, result.never_requested)))
    notes += [visible(f"stderr | {line}") for line in result.stderr_tail]
    mismatch = result.mismatch
    page: dict[str, Any] = {
        "view": "check",
        "title": visible(f"check of {result.recording}"),
        "facts": facts,
        "check": {
            "status": result.status,
            "summary": visible(result.summary()),
            "mismatch": None
            if mismatch is None
            else safe(mismatch.json_value(exclude={"recorded_request", "incoming_request"})),
            "commands": _commands(result)
            if commands is None
            else [[label, visible(command)] for label, command in commands],
            "notes": notes,
        },
        "diff": None,
    }
    rows = [script_json(row) for row in call_rows(calls)]
    return render(PageData(page, CallDetails.of(calls), rows))


def diff_page(
    head: dict[str, Any], calls: Iterable[dict[str, Any]], b: str | os.PathLike[str]
) -> str:
    """Two sessions aligned call by call, each pair's differences side by side (`head` and
    `calls`: `diff_json_parts` of the diff); the calls of B (read from its path `b` with the
    strict reader, a call at a time) open."""
    return render(_diff(head, calls, b))


def write_diff_page(
    head: dict[str, Any], calls: Iterable[dict[str, Any]], b: str | os.PathLike[str], out: Path
) -> None:
    """`diff_page` written to `out` (atomically, private) as it is rendered (`diff --html`)."""
    write_rendered(out, _diff(head, calls, b))


def _diff(
    head: dict[str, Any], calls: Iterable[dict[str, Any]], b: str | os.PathLike[str]
) -> PageData:
    """The page data of a diff: each compared call's JSON is made page text first (`calls` is
    exhausted, and the diff behind it can go, before B is read for the calls that open)."""
    compared = [script_json(safe(call)) for call in calls]
    details = _PageCalls()
    verify_recording(b, InCallOrder(details))
    _, _, rows = details.table()
    summary = head["summary"]
    page: dict[str, Any] = {
        "view": "diff",
        "title": visible(f"{head['a']} → {head['b']}"),
        "facts": [
            ["A", visible(head["a"])],
            ["B", visible(head["b"])],
            ["identical", "yes" if head["identical"] else "no"],
            [
                "tokens A",
                f"{summary['tokens_a']['input']} in / {summary['tokens_a']['output']} out",
            ],
            [
                "tokens B",
                f"{summary['tokens_b']['input']} in / {summary['tokens_b']['output']} out",
            ],
        ],
        "check": None,
        "diff": safe(head),
    }
    return PageData(page, details.details, rows, compared)
