"""`openprogram recordings rules`: the matching rules replay of a recording merges, and removing one."""

from __future__ import annotations

import argparse
from pathlib import Path

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output, UsageRefused
from openprogram.providers.recording.rules import NormalizeRule, ScrubRule
from openprogram.providers.recording.rules_sources import HEADER_SOURCE
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.rule_edits import (
    remove_rule_from_header,
    remove_rule_from_pyproject,
    rules_in_force,
)
from openprogram.text import plural


def declare_rules(parser: argparse.ArgumentParser) -> None:
    """Give `rules` its arguments and its handler."""
    declare_command(
        parser,
        rules_command,
        (
            "  openprogram recordings rules login-flow\n"
            "  openprogram recordings rules login-flow --json\n"
            "  openprogram recordings rules login-flow --remove 2\n\n"
            "Rules come from the nearest pyproject.toml with [tool.openprogram] (looked up from the\n"
            "current directory, as replay does from the program's) and from the recording's header.\n"
            "--remove N takes rule N out of the file it comes from (the header is rewritten with\n"
            "every other row byte for byte; pyproject.toml keeps its comments and layout)."
        ),
    )
    add_recording_argument(parser, "recording", "ID-or-PATH", "a recording ID or a file path")
    parser.add_argument("--remove", metavar="N", type=int, help="remove rule N of the list")
    parser.add_argument("--json", action="store_true", help="print the rules as JSON")


def rules_command(args: argparse.Namespace, out: Output) -> int:
    path = locate_recording(args.recording).path
    rules = rules_in_force(path, Path.cwd()).all()
    if args.remove is not None:
        if not 1 <= args.remove <= len(rules):
            raise UsageRefused(
                f"--remove {args.remove}: {path.name} has {plural(len(rules), 'rule')} in force; "
                f"`openprogram recordings rules {args.recording}` lists them"
            )
        rule = rules[args.remove - 1]
        if isinstance(rule, ScrubRule):
            raise UsageRefused(f"rule {args.remove} is a scrub rule; edit {rule.source} by hand")
        if rule.source == HEADER_SOURCE:
            remove_rule_from_header(path, rule)
            where = f"the header of {path.name}"
        else:
            where = str(remove_rule_from_pyproject(Path(rule.source), rule))
        out.line(f"removed `{rule.describe()}` from {where}")
        return 0
    if args.json:
        out.json(
            [
                {
                    "number": number,
                    "kind": rule.kind,
                    "path": rule.path,
                    "preset": rule.preset if isinstance(rule, NormalizeRule | ScrubRule) else None,
                    "rule": rule.describe(),
                    "source": rule.source,
                }
                for number, rule in enumerate(rules, 1)
            ]
        )
        return 0
    if not rules:
        out.line(f"no matching rules in force for {path.name}")
        return 0
    for number, rule in enumerate(rules, 1):
        out.line(f"{number:>3}  {rule.describe()}  ({rule.source})")
    return 0
