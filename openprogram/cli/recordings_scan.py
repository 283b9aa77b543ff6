"""`openprogram recordings scan`: look for credentials in recordings before they are shared."""

from __future__ import annotations

import argparse
from pathlib import Path

from openprogram.cli.commands import declare_command
from openprogram.cli.output import Output
from openprogram.providers.recording.rules_sources import project_rules
from openprogram.recordings.secret_scan import (
    FileScan,
    expand,
    git_recordings,
    managed_recordings,
    scan_file,
)
from openprogram.text import plural

FOUND = 1
UNREADABLE = 2


def declare_scan(parser: argparse.ArgumentParser) -> None:
    """Give `scan` its arguments and its handler."""
    declare_command(
        parser,
        scan_command,
        (
            "  openprogram recordings scan\n"
            "  openprogram recordings scan tests/recordings/ session.jsonl\n"
            "  openprogram recordings scan --json\n\n"
            "Without a PATH: the managed recordings (kept versions included) and every *.jsonl\n"
            "recording git tracks or would add in the current repository. A folder means every\n"
            "*.jsonl under it; a file is scanned whatever it holds (any JSON lines file).\n\n"
            "Every value of every row is checked with the rules redaction uses when recording,\n"
            "the streamed pieces of each answer put back together, the scrub rules of the nearest\n"
            "pyproject.toml and of each recording's header, and an entropy check for long\n"
            "random-looking strings (ids and signatures excepted). Each finding names file, line,\n"
            "call, field and the kind of secret, never the secret itself.\n\n"
            "exit status: 0 nothing found, 1 something found, 2 a file could not be read.\n"
            "As a pre-commit hook: see docs/cli.md#recordings-scan."
        ),
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


def _targets(paths: list[Path], out: Output) -> list[Path]:
    if paths:
        return expand(paths)
    targets = managed_recordings()
    in_git = git_recordings(Path.cwd())
    if in_git is None:
        out.note("not in a git repository: scanning the managed recordings only")
    return list(dict.fromkeys([*targets, *(in_git or [])]))


def scan_command(args: argparse.Namespace, out: Output) -> int:
    targets = _targets(args.paths, out)
    scrub = project_rules(Path.cwd()).scrub
    progress = out.stderr.isatty() and not args.json and len(targets) > 1
    scans: list[FileScan] = []
    for number, path in enumerate(targets, 1):
        if progress:
            out.stderr.write(f"\rscanning {number}/{len(targets)}\x1b[K")
            out.stderr.flush()
        scans.append(scan_file(path, scrub))
    if progress:
        out.stderr.write("\r\x1b[K")
    findings = [finding for scan in scans for finding in scan.findings]
    unreadable = [scan for scan in scans if scan.unreadable is not None]
    if args.json:
        out.json(
            {
                "scanned": [str(scan.path) for scan in scans],
                "findings": [finding.to_json() for finding in findings],
                "unreadable": [
                    {"path": str(scan.path), "reason": scan.unreadable} for scan in unreadable
                ],
            }
        )
    else:
        for finding in findings:
            out.line(finding.describe())
        for scan in unreadable:
            out.error(f"recording file {scan.path}: {scan.unreadable}")
        files = len({finding.path for finding in findings})
        if findings:
            out.line(
                f"{plural(len(findings), 'finding')} in {plural(files, 'file')} "
                f"({plural(len(scans), 'file')} scanned); the values are not shown"
            )
        else:
            scanned = len(scans) - len(unreadable)  # a file that could not be read was not scanned
            out.line(f"no secrets found in {plural(scanned, 'file')}")
    if findings:
        return FOUND
    return UNREADABLE if unreadable else 0
