"""`openprogram recordings migrate`: rewrite version-1 recordings in the current format."""

from __future__ import annotations

import argparse

from openprogram.cli.commands import declare_command
from openprogram.cli.output import Output, UsageRefused
from openprogram.recordings.migrate import MigrationReport, managed_recordings, migrate_recording
from openprogram.text import human_size, plural


def declare_migrate(parser: argparse.ArgumentParser) -> None:
    """Give `migrate` its arguments and its handler."""
    declare_command(
        parser,
        migrate_command,
        (
            "  openprogram recordings migrate 20261202T101500Z-1a2b3c4d\n"
            "  openprogram recordings migrate ./tests/recordings/agent.jsonl\n"
            "  openprogram recordings migrate --all --check\n\n"
            "A managed recording keeps its old bytes as a kept version (recordings history); a file\n"
            "given by path keeps NAME.v1.jsonl beside it unless --no-backup."
        ),
    )
    parser.add_argument("selector", metavar="ID-or-PATH", nargs="?", help="the recording")
    parser.add_argument("--all", action="store_true", help="every managed recording")
    parser.add_argument("--check", action="store_true", help="say what would change, write nothing")
    parser.add_argument(
        "--no-backup", action="store_true", help="a file given by path keeps no NAME.v1.jsonl"
    )
    parser.add_argument("--json", action="store_true", help="print the reports as stable JSON")


def migrate_command(args: argparse.Namespace, out: Output) -> int:
    """Migrate one recording or every managed one, and say what changed."""
    if args.all == (args.selector is not None):
        raise UsageRefused("give one recording ID or PATH, or --all")
    selectors = managed_recordings() if args.all else [args.selector]
    reports = [
        migrate_recording(selector, check=args.check, backup=not args.no_backup)
        for selector in selectors
    ]
    if args.json:
        out.json([report.json_value() for report in reports])
        return 0
    for report in reports:
        out.line(describe(report, check=args.check))
    if not reports:
        out.line("no managed recordings")
    return 0


def describe(report: MigrationReport, *, check: bool) -> str:
    """One line per recording."""
    name = report.recording_id or report.path
    if not report.changed:
        return f"{name}: already format {report.to_version} ({plural(report.calls, 'call')}); unchanged"
    sizes = f"{human_size(report.size_before)} → {human_size(report.size_after or 0)}"
    verb = "would migrate" if check else "migrated"
    line = f"{verb} {name}: format {report.from_version} → {report.to_version}, "
    line += f"{plural(report.calls, 'call')}, {sizes}"
    if report.kept is not None:
        line += f"; old bytes kept as {report.kept}"
    elif not check and report.recording_id is None:
        line += "; no backup kept"
    return line
