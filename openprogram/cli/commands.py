"""What every `openprogram` subcommand shares: registration with examples, and error handling.

A handler only prints; every library error (`OpenProgramError`) and system error becomes one
`error: …` line and exit 1, a refused confirmation or bad usage exit 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, TypeAlias

from openprogram.cli.output import Output, UsageRefused
from openprogram.errors import OpenProgramError
from openprogram.providers.recording.config import ConfigError, config_path

Handler = Callable[[argparse.Namespace, Output], int]
if TYPE_CHECKING:
    Subcommands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
EXPECTED_ERRORS = (OpenProgramError, OSError)
"""Failures a command reports as one `error: …` line: every library error, and the system's."""


def handles_errors(handler: Handler, *, suggest_off: bool = True) -> Handler:
    """Turn expected failures into `error: …` (exit 1) and refused confirmations into exit 2.

    An unreadable configuration suggests `recordings off` (which resets it) unless `suggest_off`
    is False (for `off` itself).
    """

    @wraps(handler)
    def run(args: argparse.Namespace, out: Output) -> int:
        try:
            return handler(args, out)
        except UsageRefused as exc:
            out.error(exc)
            return 2
        except BrokenPipeError:
            raise  # whoever read the output went away (`| head`): `main` stops quietly
        except ConfigError as exc:
            resettable = suggest_off and exc.path == config_path()
            hint = "; `openprogram recordings off` sets it aside and resets it"
            out.error(f"{exc}{hint}" if resettable and "recordings off" not in str(exc) else exc)
            return 1
        except EXPECTED_ERRORS as exc:
            out.error(exc)
            return 1

    return run


def declare_command(
    parser: argparse.ArgumentParser,
    handler: Handler,
    epilog: str,
    *,
    suggest_off: bool = True,
) -> argparse.ArgumentParser:
    """Give one `recordings` subcommand's parser its examples and its handler.

    The parser, with its one-line summary, comes from the table in `openprogram.cli.recordings`.
    """
    parser.epilog = f"examples:\n{epilog}"
    parser.set_defaults(handler=handles_errors(handler, suggest_off=suggest_off))
    return parser
