"""`openprogram-tui`'s command line, both forms: `[PATH ...] [options]` and `diff A B`.

The COMMAND after `--` (for `--check PATH -- COMMAND`) is split off first, by the library's
`split_command`, as `openprogram` does; what is left is parsed here.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from tui import version
from tui.model.navigation import GotoError, GotoTarget, parse_goto

EXAMPLES = """\
examples:
  openprogram-tui --demo                 try it on a bundled demo (no API key needed)
  openprogram-tui                        the managed recordings, and the next start's mode
  openprogram-tui session.jsonl          one recording (a path, or a managed ID)
  openprogram-tui session.jsonl --call 2.5
                                         start at call 2, event 5
  openprogram-tui --follow session.jsonl show calls as a running program records them
  openprogram-tui --check echo           check recording `echo` with its recorded command
  openprogram-tui --check echo -- python examples/echo_agent.py bye
                                         check it with another command, open on the result

keys: ? help, q back (quit on the first screen), ctrl+q quit, s settings, ctrl+p commands.
More in docs/tui.md."""


class _VersionAction(argparse.Action):
    """`--version`: the installed version, looked up only when asked (importlib.metadata costs
    ~20 ms at every start otherwise)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        print(f"openprogram-tui {version()}")
        parser.exit()


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line: `PATH ...`, `--demo`, `--call`, `--field`, `--check`, `--light`/`--dark`."""
    parser = argparse.ArgumentParser(
        prog="openprogram-tui",
        usage=(
            "%(prog)s [options] [PATH ...]\n"
            "       %(prog)s --check PATH [-- COMMAND ...]\n"
            "       %(prog)s diff A B"
        ),
        description="Browse OpenProgram recordings call by call and choose the record/replay mode.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="recording files or managed IDs to open (none: the managed recordings)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="open a bundled demo recording in a temporary state directory (no API key needed)",
    )
    parser.add_argument(
        "--call",
        type=_goto_argument,
        metavar="N[.K]",
        help="start at call N (and its event K) of the recording opened",
    )
    parser.add_argument(
        "--field",
        type=_field_argument,
        metavar="PATH",
        help="open the call's request at this field, e.g. 'context.messages[0].content'",
    )
    parser.add_argument(
        "--follow",
        action="store_true",
        help="show new calls and events of the recording as they are written (on by default "
        "for the file the configuration records into; f toggles it)",
    )
    _theme_options(parser)
    parser.add_argument(
        "--check",
        metavar="PATH",
        help="check the recording PATH (or managed ID) against the current code and open the "
        "result; a COMMAND after -- runs instead of the recorded one",
    )
    parser.add_argument("--version", action=_VersionAction)
    args = parser.parse_args(argv)
    if (args.call or args.field) and len(args.paths) + args.demo != 1:
        parser.error("--call and --field need exactly one recording (one PATH, or --demo)")
    if args.follow and len(args.paths) + args.demo != 1:
        parser.error("--follow needs exactly one recording (one PATH, or --demo)")
    return args


def _goto_argument(text: str) -> GotoTarget:
    try:
        return parse_goto(text)
    except GotoError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _field_argument(text: str) -> tuple[str | int, ...]:
    from openprogram.providers.recording.field_patterns import FieldPatternError, parse_field_path

    try:
        return parse_field_path(text)
    except FieldPatternError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


DIFF_EXAMPLES = """\
examples:
  openprogram-tui diff yesterday today            two managed recordings
  openprogram-tui diff old.jsonl new.jsonl        two files
  git difftool -x 'openprogram-tui diff' -- tests/recordings/
                                                  every recording a change rewrote

The same comparison as `openprogram recordings diff A B`, with the matching rules of the
pyproject.toml found from the working directory.
"""


def parse_diff_arguments(argv: Sequence[str]) -> argparse.Namespace:
    """`diff A B`: two recordings, and `--light`/`--dark`."""
    parser = argparse.ArgumentParser(
        prog="openprogram-tui diff",
        description="Compare two recordings call by call: requests side by side, answers as answers.",
        epilog=DIFF_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("a", metavar="A", help="the first recording (path or managed ID)")
    parser.add_argument("b", metavar="B", help="the second recording (path or managed ID)")
    _theme_options(parser)
    return parser.parse_args(list(argv))


def _theme_options(parser: argparse.ArgumentParser) -> None:
    themes = parser.add_mutually_exclusive_group()
    themes.add_argument(
        "--light", action="store_true", help="start with the light theme (not remembered)"
    )
    themes.add_argument(
        "--dark", action="store_true", help="start with the dark theme (not remembered)"
    )
