"""The `openprogram` command: `openprogram recordings …` and `openprogram --version`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import argcomplete

from openprogram import __version__
from openprogram.cli.completion import register_completion
from openprogram.cli.output import Output
from openprogram.cli.recordings import register_recordings_command
from openprogram.text import split_command

DESCRIPTION = """\
Record real model calls at the provider boundary and replay them offline.

Record/replay is configured for the next start of a program: choose a mode here, then run the
program as usual."""

EPILOG = """\
examples:
  openprogram recordings status          what the next start will do
  openprogram recordings record          record the next runs into a new recording
  openprogram recordings replay ID       answer from that recording, offline
  openprogram recordings off             back to live calls
  openprogram recordings list            every managed recording
  openprogram completion bash            shell completion (bash, zsh, fish)

exit codes: 0 ok, 1 failed, 2 usage error or refused confirmation"""


def build_parser() -> argparse.ArgumentParser:
    """The whole argument parser (every subcommand registered)."""
    parser = argparse.ArgumentParser(
        prog="openprogram",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"openprogram {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    register_recordings_command(commands)
    register_completion(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 failed, 2 usage)."""
    parser = build_parser()
    argcomplete.autocomplete(parser)  # answers a shell's completion request, else does nothing
    # argparse would otherwise refuse `check ID --json -- python -c ...`.
    given = sys.argv[1:] if argv is None else argv
    words, command = split_command(given)
    args = parser.parse_args(words)
    if "--" in given and not command:  # `record --name X --` would switch record mode on instead
        parser.error("`--` must be followed by the command to run; nothing was changed")
    if command:
        if not hasattr(args, "command"):
            parser.error(
                "`-- COMMAND` is only accepted by `recordings record` and `recordings check`"
            )
        args.command = command
    handler = getattr(args, "handler", None)
    if handler is None:
        (getattr(args, "help_parser", None) or parser).print_help(sys.stderr)
        return 2
    return int(handler(args, Output()))


if __name__ == "__main__":
    raise SystemExit(main())
