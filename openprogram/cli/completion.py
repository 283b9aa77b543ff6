"""`openprogram completion bash|zsh|fish`: the shell script that completes `openprogram` commands.

Completion itself is argcomplete's: the script calls `openprogram` back with the words typed so
far, and the parser (every subcommand and option, from one definition) answers.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

import argcomplete

from openprogram.cli.output import Output

if TYPE_CHECKING:
    from openprogram.cli.commands import Subcommands

SHELLS = ("bash", "zsh", "fish")
INSTALL = """\
install it for your shell:
  bash  echo 'eval "$(openprogram completion bash)"' >> ~/.bashrc
  zsh   echo 'eval "$(openprogram completion zsh)"' >> ~/.zshrc
  fish  openprogram completion fish > ~/.config/fish/completions/openprogram.fish
then start a new shell and type `openprogram rec<TAB>`."""


def recording_ids(prefix: str, **_: object) -> list[str]:
    """The managed recording IDs starting with `prefix` (a directory listing; no file is read)."""
    from openprogram.providers.recording.store import RECORDING_SUFFIX, recordings_dir

    try:
        names = os.listdir(recordings_dir())
    except OSError:
        return []
    ids = (name[: -len(RECORDING_SUFFIX)] for name in names if name.endswith(RECORDING_SUFFIX))
    return sorted(i for i in ids if i.startswith(prefix) and not i.startswith("."))


def _ids_or_files(prefix: str, **kwargs: object) -> list[str]:
    return recording_ids(prefix) + list(argcomplete.completers.FilesCompleter()(prefix, **kwargs))


def add_recording_argument(
    parser: argparse.ArgumentParser, dest: str, metavar: str, help: str
) -> None:
    """A positional argument naming a recording, completed with the managed IDs (`ID`), or the
    IDs and the files (`ID-or-PATH`, `A`, `B`)."""
    action = parser.add_argument(dest, metavar=metavar, help=help)
    action.completer = recording_ids if metavar == "ID" else _ids_or_files  # type: ignore[attr-defined]


def register_completion(commands: Subcommands) -> None:
    """Add `completion SHELL`."""
    parser = commands.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print the script that completes openprogram's commands and options.",
        epilog=INSTALL,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    parser.set_defaults(handler=print_script)


def print_script(args: argparse.Namespace, out: Output) -> int:
    """Print the completion script for `args.shell`."""
    out.raw(argcomplete.shellcode(["openprogram"], shell=args.shell))
    return 0
