"""`recordings check --runs N [--accept-rules]`: differences that change by themselves, and the code's."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from openprogram.cli.output import Output, UsageRefused
from openprogram.providers.recording.rules import MatchingRules, NormalizeRule
from openprogram.recordings.check import CheckResult
from openprogram.recordings.stability import StableDifference, check_stability


def add_runs_arguments(parser: argparse.ArgumentParser) -> None:
    """`--runs` and `--accept-rules`."""
    parser.add_argument(
        "--runs",
        type=int,
        metavar="N",
        help="run the program up to N times (at least 2) and sort every difference into "
        "'changes by itself' (differs between runs) and 'the code changed' (the same every run); "
        "rules for the first kind are proposed, and written to pyproject.toml when you say yes",
    )
    parser.add_argument(
        "--accept-rules",
        action="store_true",
        help="with --runs: write the proposed rules without asking",
    )


def _line(out: Output, difference: StableDifference) -> None:
    out.line(f"  call {difference.call_index}  {difference.field_path}")
    out.line("    recorded: ", difference.recorded)
    if difference.kind == "code_changed":
        out.line("    incoming: ", difference.incoming[0], "  (every run)")
        return
    for number, value in enumerate(difference.incoming, start=1):
        out.line(f"    run {number}:    ", value)
    for rule in difference.rules:
        out.line("    rule:     ", rule)
    if not difference.rules:
        out.line("    rule:     none fits: no preset makes the runs' values equal")


def check_runs(
    args: argparse.Namespace, out: Output, rules: MatchingRules, command: Sequence[str]
) -> int:
    """Run, sort, propose (and write) rules; exit 0 only when no difference is left."""
    if args.runs < 2:
        raise UsageRefused("--runs needs at least 2 runs to compare")

    def accept(proposed: list[NormalizeRule], _sorted: list[StableDifference]) -> bool:
        if not args.json:
            out.line("rules that absorb what changes by itself:")
            for rule in proposed:
                out.line("  ", rule.describe())
        if args.accept_rules:
            return True
        if not sys.stdin.isatty():
            if not args.json:
                out.line("not written: pass --accept-rules (or answer on a terminal)")
            return False
        try:
            out.confirm("Write them to pyproject.toml?", assume_yes=False, what="write rules")
        except UsageRefused:
            return False
        return True

    def progress(number: int, result: CheckResult) -> None:
        if not args.json:
            calls = len(result.accepted)
            out.line(
                f"run {number}/{args.runs}: exit code {result.exit_code}, "
                f"{calls} call{'s' if calls != 1 else ''} with differences"
            )

    report = check_stability(
        args.selector,
        command or None,
        args.runs,
        accept=accept,
        rules=rules,
        timeout=args.timeout,
        on_run=progress,
    )
    if args.json:
        out.json(report.json_value())
    else:
        if report.rules_written:
            out.line(f"wrote to {report.rules_file}:")
            for rule in report.rules_written:
                out.line("  ", rule)
        if report.ruled:
            out.line(("ruled", "bold green"), " (changed by itself; the rules written absorb it):")
            for difference in report.ruled:
                _line(out, difference)
        if report.changes_by_itself:
            out.line(
                ("changes by itself", "bold yellow"), " (the incoming value differs between runs):"
            )
            for difference in report.changes_by_itself:
                _line(out, difference)
        if report.code_changed:
            out.line(("the code changed", "bold red"), " (the same incoming value every run):")
            for difference in report.code_changed:
                _line(out, difference)
        if not (report.changes_by_itself or report.code_changed):
            out.line(("stable", "bold green"), f": no difference left after {report.runs} runs")
    return 0 if not (report.changes_by_itself or report.code_changed) else 1
