"""`openprogram recordings list` and `show`: the managed recordings as a table, one recording in detail."""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path
from typing import Any

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output, aligned
from openprogram.html_report.reports import write_show_page
from openprogram.providers.recording.errors import NOT_REGULAR, RecordingFileError
from openprogram.providers.recording.file_policy import require_usable
from openprogram.providers.recording.reader import (
    read_recording_bytes,
)
from openprogram.providers.recording.redaction import remove_secret_text
from openprogram.recordings import (
    RecordingDetails,
    RecordingSummary,
    describe_recording,
    list_recordings,
    locate_recording,
)
from openprogram.recordings.transcript_text import transcript_text
from openprogram.text import human_size, one_line, plural, shorten

CONTENT_REMINDER = (
    "recordings can hold prompts, model answers, tool results, file excerpts and personal data; "
    "credentials were removed, but this is not anonymisation"
)
LIST_HEADING = ("ID", "CREATED", "CALLS", "EVENTS", "SIZE")
CALL_HEADING = ("CALL", "API", "PROVIDER", "MODEL", "EVENTS", "OUTCOME")
HEADER_VALUE_LIMIT = 200
"""A header value longer than this is cut in the text form (a header can hold anything)."""
JSON_VALUE_LIMIT = 10_000
"""A header string longer than this is cut in `--json` (`header_truncated` says so)."""


def bounded(value: Any, limit: int) -> tuple[Any, bool]:
    """`value` with every string longer than `limit` cut (marked with `…`), and whether any was."""
    if isinstance(value, str):
        return shorten(value, limit), len(value) > limit
    if isinstance(value, dict):
        items = {key: bounded(inner, limit) for key, inner in value.items()}
        return {key: v for key, (v, _) in items.items()}, any(c for _, c in items.values())
    if isinstance(value, list):
        pairs = [bounded(inner, limit) for inner in value]
        return [v for v, _ in pairs], any(c for _, c in pairs)
    return value, False


def declare_list(parser: argparse.ArgumentParser) -> None:
    """Give `list` its arguments and its handler."""
    declare_command(
        parser,
        list_command,
        ("  openprogram recordings list\n  openprogram recordings list --json"),
    )
    parser.add_argument("--json", action="store_true", help="print stable JSON")


def declare_show(parser: argparse.ArgumentParser) -> None:
    """Give `show` its arguments and its handler."""
    declare_command(
        parser,
        show_command,
        (
            "  openprogram recordings show login-flow\n"
            "  openprogram recordings show ./fixtures/login.jsonl --json\n"
            "  openprogram recordings show login-flow --content > login.jsonl\n"
            "  openprogram recordings show --textconv tests/recordings/test_agent/test_loop.jsonl\n"
            "  openprogram recordings show login-flow --html login-flow.html\n\n"
            "exit code 1 when the file is not valid (the details are still printed)"
        ),
    )
    add_recording_argument(parser, "selector", "ID-or-PATH", "a managed recording ID or a path")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print stable JSON")
    output.add_argument(
        "--textconv",
        action="store_true",
        help="print a stable transcript, one block per call (for git diff's textconv)",
    )
    output.add_argument(
        "--content",
        action="store_true",
        help="print the recording's JSONL (redacted again on the way out) instead of a summary",
    )
    output.add_argument(
        "--html",
        metavar="FILE",
        type=Path,
        help="write one self-contained HTML page of the recording (calls, transcripts, requests, "
        "events) to FILE, for a browser or a CI artifact",
    )


def _created(summary: RecordingSummary) -> str:
    if summary.facts.created_at:
        return summary.facts.created_at
    return f"{summary.modified_at} (mtime)"


def _status(summary: RecordingSummary) -> tuple[str, str]:
    return (summary.facts.validity(), "green" if summary.facts.valid else "red")


def list_command(args: argparse.Namespace, out: Output) -> int:
    """Print the table (or JSON); invalid files show their reason and never hide the others."""
    listing = list_recordings()
    if args.json:
        out.json(listing.to_json())
        return 0
    if listing.config_error:
        out.note(f"{one_line(listing.config_error)}; the active recording is unknown")
    if not listing.recordings and not listing.running:
        out.line(f"No recordings in {listing.root}.")
        out.line("Start one with `openprogram recordings record`.")
        return 0
    shown = listing.running + listing.recordings
    rows = [
        (
            s.recording_id or s.path.name,
            _created(s),
            str(s.facts.calls),
            str(s.facts.events),
            human_size(s.facts.size),
        )
        for s in shown
    ]
    heading, *lines = aligned(LIST_HEADING, rows, numeric=(2, 3, 4))
    out.line(("  " + heading + "  STATUS", "bold"))
    for line, summary in zip(lines, shown, strict=True):
        if summary in listing.running:  # its program runs: the file grows, its last call may too
            out.line(("● ", "bold red"), line, "  ", ("recording (program running)", "red"))
            continue
        marker = ("● ", "bold cyan") if summary.active else "  "
        out.line(marker, line, "  ", _status(summary))
    active = [s for s in listing.recordings if s.active]
    if active:
        out.line(("● ", "bold cyan"), f"configured for {active[0].mode} from the next start")
    elif listing.mode in ("record", "replay") and listing.configured_file:
        out.line(
            f"configured for {listing.mode}: {listing.configured_file} (not in this directory)"
        )
    return 0


def _print_calls(details: RecordingDetails, out: Output) -> None:
    rows = [
        (
            str(call.call_index),
            call.api or "?",
            call.provider or "?",
            call.model or "?",
            str(call.events),
            call.outcome,
        )
        for call in details.calls
    ]
    heading, *lines = aligned(CALL_HEADING, rows, numeric=(0, 4))
    out.line((heading + "  NEW IN THIS CALL", "bold"))
    for line, call in zip(lines, details.calls, strict=True):
        text = json.dumps(call.new_text, ensure_ascii=False) if call.new_text else ""
        style = "" if call.outcome == "complete" else "yellow"
        out.line((line, style), "  ", text)


def _print_details(details: RecordingDetails, out: Output) -> None:
    summary = details.summary
    out.line(("Recording ", "bold"), (summary.recording_id or summary.path.name, "bold"))
    out.line("path:      ", str(summary.path))
    if summary.active:
        out.line("active:    ", (f"● configured for {summary.mode} from the next start", "cyan"))
    out.line("created:   ", _created(summary))
    out.line("status:    ", _status(summary))
    out.line(f"totals:    {summary.facts.totals()}, {human_size(summary.facts.size)}")
    metadata = {
        key: value
        for key, value in sorted((details.header or {}).items())
        if key not in ("type", "recording_id", "created_at")
    }
    if metadata:
        out.line("header:")
    for key, value in metadata.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(shown) > HEADER_VALUE_LIMIT:
            cut = one_line(shown, HEADER_VALUE_LIMIT)
            shown = f"{cut} ({len(shown):,} characters; `--content` prints the whole file)"
        out.line(f"  {key}: {shown}")
    if details.calls:
        out.line("")
        _print_calls(details, out)
    for call_index in details.unfinished_calls:
        out.line((f"call {call_index} has no call_end (unfinished)", "yellow"))
    if details.problems:
        out.line("")
        out.line((f"{plural(len(details.problems), 'problem')}:", "bold red"))
        for problem in details.problems:
            out.line("  ", problem)


def _print_content(selector: str, out: Output) -> int:
    location = locate_recording(selector)
    require_usable(location, view_only=True)
    data = read_recording_bytes(location.path)
    out.note(CONTENT_REMINDER)
    text = data.decode("utf-8", errors="replace")
    out.raw("".join(remove_secret_text(line) for line in text.splitlines(keepends=True)))
    return 0


def show_command(args: argparse.Namespace, out: Output) -> int:
    """Print one recording: summary, calls and problems; or its JSONL with `--content`."""
    if args.content:
        return _print_content(args.selector, out)
    location = locate_recording(args.selector)
    if args.html is not None:
        scan = write_show_page(location.path, args.html)
        out.line(f"wrote {args.html} ({scan.facts.totals()})")
        return 0 if scan.valid else 1
    if args.textconv:
        out.raw(transcript_text(location.path))
        return 0
    if not os.path.lexists(location.path):
        raise RecordingFileError(location.path, None, None, "file not found")
    mode = os.lstat(location.path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):  # a folder, a FIFO: one line, not a report
        raise RecordingFileError(location.path, None, None, NOT_REGULAR)
    details = describe_recording(args.selector, with_cache=args.json)
    if args.json:
        document = details.json_head()
        document["header"], cut = bounded(document["header"], JSON_VALUE_LIMIT)
        out.json_listing({**document, "header_truncated": cut}, "calls", details.calls_json())
    else:
        _print_details(details, out)
    return 0 if details.summary.facts.valid else 1
