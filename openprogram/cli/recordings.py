"""`openprogram recordings …`: the table of subcommands, each imported only when it runs.

A subcommand's module imports the library it drives (the reader, the rules, the check runner),
and a shell's TAB completion runs `openprogram` again for every key. So the table below names
each subcommand, its one-line summary (what `recordings --help` lists) and the function that
declares its arguments and handler; only the subcommand on the command line is declared and its
module imported (docs/design-decisions.md, "A command is imported when it runs").
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openprogram.cli.commands import Subcommands


@dataclass(frozen=True)
class Subcommand:
    """One `openprogram recordings` subcommand: its name, summary and where it is declared."""

    name: str
    summary: str
    declare: str
    """`module:function` that gives the subcommand's parser its arguments and handler."""


SUBCOMMANDS = (
    Subcommand(
        "status",
        "Show the configured mode and file, and whether the next start would be blocked.",
        "openprogram.cli.recordings_modes:declare_status",
    ),
    Subcommand(
        "record",
        "Create a new managed recording and record every provider call into it from the next "
        "start.",
        "openprogram.cli.recordings_modes:declare_record",
    ),
    Subcommand(
        "replay",
        "Answer every provider call from a recording, offline, from the next start.",
        "openprogram.cli.recordings_modes:declare_replay",
    ),
    Subcommand(
        "off",
        "Make provider calls live again from the next start (the last file is kept).",
        "openprogram.cli.recordings_modes:declare_off",
    ),
    Subcommand(
        "list",
        "List the managed recordings, newest first (● marks the configured one).",
        "openprogram.cli.recordings_views:declare_list",
    ),
    Subcommand(
        "show",
        "Show a recording's header, totals and one line per call.",
        "openprogram.cli.recordings_views:declare_show",
    ),
    Subcommand(
        "delete",
        "Delete one managed recording and its kept previous versions (never the configured one, "
        "a symlink or a file elsewhere).",
        "openprogram.cli.recordings_removal:declare_delete",
    ),
    Subcommand(
        "prune",
        "Delete managed recordings last written more than N days ago, or test recordings no "
        "test uses.",
        "openprogram.cli.recordings_removal:declare_prune",
    ),
    Subcommand(
        "check",
        "Run the program that made a recording again against the current code and compare.",
        "openprogram.cli.recordings_check:declare_check",
    ),
    Subcommand(
        "repair",
        "Salvage a damaged managed recording: keep every whole call, set the original aside.",
        "openprogram.cli.recordings_check:declare_repair",
    ),
    Subcommand(
        "diff",
        "Compare two recordings call by call: every request difference and how the answers differ.",
        "openprogram.cli.recordings_diff:declare_diff",
    ),
    Subcommand(
        "cache",
        "Show where the prompt-cache prefix broke, why, and what each break cost.",
        "openprogram.cli.recordings_cache:declare_cache",
    ),
    Subcommand(
        "accept",
        "Keep the program's new requests with the recorded answers (offline, no call made).",
        "openprogram.cli.recordings_resolve:declare_accept",
    ),
    Subcommand(
        "rerecord",
        "Record again from the diverging call: replay what matches, make the rest live.",
        "openprogram.cli.recordings_resolve:declare_rerecord",
    ),
    Subcommand(
        "restore",
        "Put a kept previous version of a managed recording back (the one replaced is kept).",
        "openprogram.cli.recordings_resolve:declare_restore",
    ),
    Subcommand(
        "history",
        "List the previous versions kept of a managed recording (made by accept).",
        "openprogram.cli.recordings_resolve:declare_history",
    ),
    Subcommand(
        "rules",
        "List the matching rules replay of a recording merges (numbered), or remove one.",
        "openprogram.cli.recordings_rules:declare_rules",
    ),
    Subcommand(
        "scan",
        "Look for credentials in recordings: keys, tokens, passwords, scrub-rule matches.",
        "openprogram.cli.recordings_scan:declare_scan",
    ),
    Subcommand(
        "migrate",
        "Rewrite a version-1 recording in the current format (same calls, smaller file).",
        "openprogram.cli.recordings_migrate:declare_migrate",
    ),
    Subcommand(
        "export",
        "Write a recording as an OpenTelemetry trace (OTLP/JSON, GenAI semantic conventions).",
        "openprogram.cli.recordings_otlp:declare_export",
    ),
    Subcommand(
        "import",
        "Turn an OpenTelemetry trace of model calls (OTLP/JSON) into a new recording.",
        "openprogram.cli.recordings_otlp:declare_import",
    ),
)

RECORDINGS_EPILOG = """\
examples:
  openprogram recordings status --json
  openprogram recordings record --name login-flow
  openprogram recordings replay login-flow
  openprogram recordings replay ./fixtures/login.jsonl
  openprogram recordings off
  openprogram recordings list
  openprogram recordings show login-flow --content
  openprogram recordings delete login-flow --yes
  openprogram recordings prune --older-than-days 30 --dry-run
  openprogram recordings record --name echo -- python examples/echo_agent.py hi
  openprogram recordings check echo
  openprogram recordings repair echo
  openprogram recordings rules echo --remove 1
  openprogram recordings export echo --otlp echo-trace.json
  openprogram recordings import prod-trace.json --name prod-bug

Modes apply on the next start of a program. Recordings live in $OPENPROGRAM_HOME/recordings
(default ~/.openprogram/recordings); they can hold prompts, answers and personal data."""


def chosen_subcommand(words: Sequence[str]) -> str | None:
    """The `recordings` subcommand that `words` (the arguments after `openprogram`) run, if any.

    No option of `openprogram` or `openprogram recordings` takes a value, so the subcommand is
    the second word that is not an option, as argparse reads it.
    """
    positional = [word for word in words if not word.startswith("-")]
    if len(positional) < 2 or positional[0] != "recordings":
        return None
    return positional[1] if any(sub.name == positional[1] for sub in SUBCOMMANDS) else None


def register_recordings_command(commands: Subcommands, words: Sequence[str]) -> None:
    """Add `openprogram recordings` and its subcommands; declare only the one `words` runs."""

    parser = commands.add_parser(
        "recordings",
        help="record, replay and manage recordings",
        description="Choose record/replay for the next start, and manage recording files.",
        epilog=RECORDINGS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(help_parser=parser)
    subcommands = parser.add_subparsers(title="subcommands", metavar="SUBCOMMAND")
    chosen = chosen_subcommand(words)
    for sub in SUBCOMMANDS:
        sub_parser = subcommands.add_parser(
            sub.name,
            help=sub.summary,
            description=sub.summary,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if sub.name == chosen:
            module, function = sub.declare.split(":")
            getattr(importlib.import_module(module), function)(sub_parser)
