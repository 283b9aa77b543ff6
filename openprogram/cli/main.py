"""The `openprogram` command: `openprogram recordings …` and `openprogram --version`."""

from __future__ import annotations

import argparse
import os
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


def build_parser(words: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser: every command, and the arguments of the subcommand `words` run."""
    parser = argparse.ArgumentParser(
        prog="openprogram",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"openprogram {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    register_recordings_command(commands, words)
    register_completion(commands)
    return parser


def completed_words() -> list[str] | None:
    """The words typed before the cursor when a shell asks to complete (argcomplete's protocol)."""
    if "_ARGCOMPLETE" not in os.environ:
        return None
    line = os.environ.get("COMP_LINE", "")
    point = int(os.environ.get("COMP_POINT", len(line)))
    typed = argcomplete.split_line(line, point)[3]
    return typed[int(os.environ["_ARGCOMPLETE"]) :]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 failed, 2 usage)."""
    given = sys.argv[1:] if argv is None else argv
    # argparse would otherwise refuse `check ID --json -- python -c ...`.
    words, command = split_command(given)
    parser = build_parser(completed_words() or words)
    argcomplete.autocomplete(parser)  # answers a shell's completion request, else does nothing
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
    try:
        return int(handler(args, Output()))
    except BrokenPipeError:
        # Whoever read the output went away (`… | head`): stop quietly, as rich's console does
        # for what it prints, and let nothing try to write the rest at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
