"""`openprogram completion bash|zsh|fish`: the shell script that completes `openprogram` commands.

Completion itself is argcomplete's: the script calls `openprogram` back with the words typed so
far, and the parser (every subcommand and option, from one definition) answers.
"""

from __future__ import annotations

import argparse
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
