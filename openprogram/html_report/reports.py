"""The three pages: a recording (`show --html`), a check (`check --html`), a diff (`diff --html`)."""

from __future__ import annotations

import os
import shlex
from typing import Any

from openprogram.html_report.data import (
    cache_facts,
    call_rows,
    safe,
    session_facts,
    table_rows,
)
from openprogram.html_report.page import CallDetails, render
from openprogram.providers.recording.reader import (
    RecordedCall,
    RecordingScan,
    scan_recording,
    verify_recording,
)
from openprogram.recordings.call_stats import CallStats, folded_call_stats, with_gaps
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
    and the scan that read it. Each call is described, counted, read for its prompt cache and
    written as page data as the reader finishes it, then let go: memory is the page and the
    file's request rows, not every event of the file."""
    details = CallDetails()
    described = CallDescriber()
    cache = PromptCacheReader()
    facts: list[CallCache] = []
    stats: list[CallStats] = []

    def each(call: RecordedCall) -> None:
        details.add(call)
        described(call)
        if (fact := cache.read(call)) is not None:
            facts.append(fact)
        stats.append(folded_call_stats(call))

    scan = scan_recording(path, each)
    stats = with_gaps(sorted(stats, key=lambda numbers: numbers.call_index))
    report = PromptCacheReport.of(facts)
    page: dict[str, Any] = {
        "view": "show",
        "title": visible(title or str(scan.path)),
        "facts": _session_facts(scan) + session_facts(stats) + cache_facts(report),
        "calls": table_rows(described.rows(), stats, report.calls),
        "check": None,
        "diff": None,
    }
    if not scan.facts.valid:
        page["check"] = {
            "status": "invalid",
            "summary": visible(f"{scan.facts.validity()}; the whole calls are shown"),
            "notes": [visible(problem.describe()) for problem in scan.facts.problems[:20]],
        }
    return render(page, details), scan


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
        "calls": call_rows(calls),
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
    return render(page, CallDetails.of(calls))


def diff_page(diff_json: dict[str, Any], b: str | os.PathLike[str]) -> str:
    """Two sessions aligned call by call, each pair's differences side by side; the calls of B
    (read from its path `b` with the strict reader, a call at a time) open."""
    details = CallDetails()
    described = CallDescriber()
    cache = PromptCacheReader()
    facts: list[CallCache] = []
    stats: list[CallStats] = []

    def each(call: RecordedCall) -> None:
        details.add(call)
        described(call)
        if (fact := cache.read(call)) is not None:
            facts.append(fact)
        stats.append(folded_call_stats(call))

    verify_recording(b, InCallOrder(each))
    summary = diff_json["summary"]
    page: dict[str, Any] = {
        "view": "diff",
        "title": visible(f"{diff_json['a']} → {diff_json['b']}"),
        "facts": [
            ["A", visible(diff_json["a"])],
            ["B", visible(diff_json["b"])],
            ["identical", "yes" if diff_json["identical"] else "no"],
            [
                "tokens A",
                f"{summary['tokens_a']['input']} in / {summary['tokens_a']['output']} out",
            ],
            [
                "tokens B",
                f"{summary['tokens_b']['input']} in / {summary['tokens_b']['output']} out",
            ],
        ],
        "calls": table_rows(described.rows(), with_gaps(stats), PromptCacheReport.of(facts).calls),
        "check": None,
        "diff": safe(diff_json),
    }
    return render(page, details)
