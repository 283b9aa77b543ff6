"""`recordings record -- COMMAND` (one-shot), `recordings check` (run again and compare), `repair`."""

from __future__ import annotations

import argparse
import json
import math
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import ValidationError

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output, UsageRefused
from openprogram.cli.recordings_check_faults import add_fault_arguments, check_faults
from openprogram.cli.recordings_check_runs import add_runs_arguments, check_runs
from openprogram.errors import OpenProgramError
from openprogram.providers.recording.rules import IgnoreRule, MatchingRules, NormalizeRule
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.check import (
    CheckProgress,
    CheckResult,
    CheckUsageError,
    check_refused,
    run_check,
)
from openprogram.recordings.repair import repair_recording
from openprogram.recordings.trust import (
    trust_command,
    untrusted_command,
)
from openprogram.text import plural
from openprogram.visible_text import visible, visible_line

PACED_TIMEOUT_SECONDS = 600.0
"""How long `check --pace` lets the program run unless `--timeout` says: a paced replay waits as
long as the recording's times say (up to a week for one event, the reader's bound)."""

CHECK_EPILOG = """\
  openprogram recordings check echo
  openprogram recordings check echo --json
  openprogram recordings check ./session.jsonl -- python my_agent.py --flag
  openprogram recordings check echo --timeout 60
  openprogram recordings check echo --ignore options.metadata.request_id
  openprogram recordings check echo --normalize context.system_prompt iso-datetime
  openprogram recordings check echo --fault cut@0:2 -- python examples/echo_agent.py hi
  openprogram recordings check echo --faults -- python examples/echo_agent.py hi
  openprogram recordings check echo --runs 3 --accept-rules

The program runs in a fresh process against the code on disk, with replay forced on the
recording and no access to your own configuration. It reports:
  ok          every recorded call was made, in order, with the same requests
  mismatch    the first call and field that differ, both values and both whole requests
  incomplete  the program finished having made fewer calls than were recorded
  error       the program failed another way (exit code, last lines of stderr) or timed out
A command stored in the recording runs without a question only when this machine recorded it or
was told yes for that file; otherwise it is shown whole and you are asked (--yes where no terminal
can answer). A command given after -- is yours and runs.
exit code 0 only for ok; 1 otherwise; 2 when there is no command to run or it was not allowed"""


def declare_check(parser: argparse.ArgumentParser) -> None:
    """Give `check` its arguments and its handler."""
    declare_command(parser, check, (CHECK_EPILOG))
    add_recording_argument(parser, "selector", "ID-or-PATH", "a managed recording ID or a path")
    parser.add_argument("--json", action="store_true", help="print the result as stable JSON")
    parser.add_argument(
        "--html",
        metavar="FILE",
        type=Path,
        help="also write the result as one self-contained HTML page (the mismatch side by side, "
        "then the recording's calls) to FILE, for a browser or a CI artifact",
    )
    parser.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="run the command stored in the recording without asking (and remember the yes)",
    )
    parser.add_argument(
        "--timeout",
        type=_positive_number,
        metavar="S",
        help="stop the program after S seconds (an error; default: no limit, or "
        f"{PACED_TIMEOUT_SECONDS:g} with --pace)",
    )
    parser.add_argument(
        "--pace",
        type=_positive_number,
        metavar="FACTOR",
        help="deliver events at the recorded pace times FACTOR (1: as recorded, 2: twice as fast; "
        "default: at once; the program is then stopped after --timeout)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="PATTERN",
        help="leave fields matching PATTERN out of the comparison (repeatable), "
        "e.g. 'options.metadata.request_id' or '**.trace_id'",
    )
    parser.add_argument(
        "--normalize",
        action="append",
        nargs=2,
        default=[],
        metavar=("PATTERN", "PRESET"),
        help="compare fields matching PATTERN after rewriting values PRESET recognises "
        "(iso-datetime, uuid, tmp-path, hex-id, unix-ms; repeatable)",
    )
    add_fault_arguments(parser)
    add_runs_arguments(parser)
    parser.add_argument(
        "command",
        nargs="*",
        metavar="-- COMMAND",
        help="the program to run (default: the command stored in the recording)",
    )


def _positive_number(text: str) -> float:
    try:
        pace = float(text)
    except ValueError:
        pace = math.nan
    if not (math.isfinite(pace) and pace > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return pace


def allow_stored_command(
    selector: str, given: Sequence[str], out: Output, *, assume_yes: bool
) -> None:
    """Before the command stored in a recording runs: unless this machine recorded or allowed it,
    show it whole and ask (`--yes` answers; without a terminal, refuse naming `--yes`). The yes
    is remembered for this file and this exact command (`openprogram.recordings.trust`)."""
    if given:
        return  # the user's own command
    try:
        path = locate_recording(selector).path
    except (OpenProgramError, OSError):
        return  # the run itself reports an unusable recording, and runs nothing
    entry = untrusted_command(path)
    if entry is None:
        return
    shown = [
        f"{path} stores a command this machine has not recorded or allowed:",
        f"  command: {shlex.join(entry.argv)}",
        f"  in:      {entry.cwd}",
    ]
    for line in shown:
        # Every argument, escapes and newlines visible: an argument cannot print a line of its own.
        print(visible_line(line), file=out.stderr, flush=True)
    out.confirm(
        "Run this command?",
        assume_yes=assume_yes,
        what=f"run the command stored in {visible(str(path))}",
    )
    trust_command(path, entry)


def progress_printer(out: Output) -> Callable[[CheckProgress], None] | None:
    if not out.stderr.isatty():
        return None

    def show(progress: CheckProgress) -> None:
        out.stderr.write(
            f"\rreplaying: {progress.calls_consumed}/{progress.calls_recorded} calls consumed "
        )
        out.stderr.flush()

    return show


def tui_check_command(result: CheckResult, command: Sequence[str] = ()) -> str:
    """`openprogram-tui --check PATH [-- COMMAND]`: the same check, its result side by side."""
    line = ["openprogram-tui", "--check", result.recording]
    if command:
        line += ["--", *command]
    return shlex.join(line)


def _print_tail(out: Output, stream: str, lines: Sequence[str]) -> None:
    """The program's last lines of one stream, under a line naming it."""
    if not lines:
        return
    out.line((f"{stream} (last {plural(len(lines), 'line')}):", "dim"))
    for line in lines:
        out.line(("  | ", "dim"), line)


def given_rule_arguments(args: argparse.Namespace) -> list[str]:
    """The `--ignore`/`--normalize` arguments of this check, as typed, for a command to suggest."""
    given: list[str] = []
    for pattern in args.ignore:
        given += ["--ignore", pattern]
    for pattern, preset in args.normalize:
        given += ["--normalize", pattern, preset]
    return given


def suggestion_fixes(
    result: CheckResult, command: Sequence[str] = (), given_rules: Sequence[str] = ()
) -> dict[str, str] | None:
    """The mismatch's suggested rule as what to type: `command`, the same check with it
    (the rules already given, then `--normalize PATH PRESET`, repeated), and `pyproject`, the
    lines that keep it for every replay of the project; None without a suggestion."""
    suggestion = result.mismatch.suggestion if result.mismatch is not None else None
    if suggestion is None:
        return None
    path, presets = suggestion.path, suggestion.presets
    line = ["openprogram", "recordings", "check", result.recording, *given_rules]
    for preset in presets:
        line += ["--normalize", path, preset]
    if command:
        line += ["--", *command]
    items = "".join(
        f"  {{ path = {json.dumps(path)}, preset = {json.dumps(p)} }},\n" for p in presets
    )
    pyproject = f"[tool.openprogram.replay]\nnormalize = [\n{items}]\n"
    return {"command": shlex.join(line), "pyproject": pyproject}


def _print_suggestion(
    result: CheckResult, out: Output, command: Sequence[str], given_rules: Sequence[str]
) -> None:
    fixes = suggestion_fixes(result, command, given_rules)
    if fixes is None:
        return
    out.line("try it:  ", fixes["command"])
    out.line("keep it: add to pyproject.toml")
    for line in fixes["pyproject"].splitlines():
        out.line("  ", line)


def print_check(
    result: CheckResult,
    out: Output,
    command: Sequence[str] = (),
    given_rules: Sequence[str] = (),
) -> None:
    """The result for people: the verdict first, then what it takes to act on it."""
    colour = {"ok": "green", "mismatch": "red", "incomplete": "yellow", "error": "red"}
    out.line((result.status, f"bold {colour[result.status]}"), f"  {result.recording}")
    out.line("command: ", shlex.join(result.argv), f"  (in {result.cwd})")
    out.line(
        f"calls:   {result.calls_consumed}/{result.calls_recorded} consumed in "
        f"{result.duration_seconds:.2f} s"
    )
    for rule in result.rules:
        out.line("rule:    ", rule)
    absorbed = result.absorbed_summary()
    if absorbed is not None:
        out.line(f"absorbed: {absorbed}")
    if result.mismatch is not None:
        out.raw(result.mismatch.message + "\n")
        _print_suggestion(result, out, command, given_rules)
    elif result.status == "incomplete":
        never = ", ".join(str(index) for index in result.never_requested)
        out.line(f"never requested: call {never}")
        _print_tail(out, "stdout", result.stdout_tail)
    elif result.status == "error":
        out.line(f"error:   {result.error}")
        _print_tail(out, "stdout", result.stdout_tail)
        _print_tail(out, "stderr", result.stderr_tail)
    if result.status != "ok":
        out.line("inspect: ", tui_check_command(result, command))


def check(args: argparse.Namespace, out: Output) -> int:
    """Run again and report; exit 0 only for ok. With `--json` every outcome is JSON on stdout,
    including a recording that cannot be used (status `error`, the reader's line and reason)."""
    try:
        allow_stored_command(args.selector, args.command, out, assume_yes=args.yes)
    except UsageRefused as exc:
        if args.json:  # every outcome is JSON on stdout; the one-line refusal is on stderr too
            out.json(check_refused(args.selector, args.command, exc).json_value())
        raise
    progress = progress_printer(out)
    try:
        rules = MatchingRules(
            ignore=tuple(IgnoreRule(path=p, source="--ignore") for p in args.ignore),
            normalize=tuple(
                NormalizeRule.model_validate({"path": p, "preset": preset, "source": "--normalize"})
                for p, preset in args.normalize
            ),
        )
        if (args.fault is not None or args.faults) and args.runs is not None:
            raise UsageRefused(
                "--runs and --fault/--faults do not go together: run one, then the other"
            )
        if args.fault is not None and args.faults:
            raise UsageRefused("--fault names one variant and --faults runs them all: give one")
        if args.fault is not None or args.faults:
            return check_faults(args, out, rules, args.command)
        if args.runs is not None:
            return check_runs(args, out, rules, args.command)
        result = run_check(
            args.selector,
            args.command or None,
            timeout=PACED_TIMEOUT_SECONDS
            if args.timeout is None and args.pace is not None
            else args.timeout,
            on_progress=progress,
            rules=rules,
            pace=args.pace,
        )
    except ValidationError as exc:
        raise UsageRefused(f"--normalize: {exc.errors()[0]['msg']}") from None
    except (OpenProgramError, OSError) as exc:
        if not args.json:
            if isinstance(exc, CheckUsageError):
                raise UsageRefused(str(exc)) from None
            raise
        out.json(check_refused(args.selector, args.command, exc).json_value())
        return 2 if isinstance(exc, CheckUsageError) else 1
    finally:
        if progress is not None:
            out.stderr.write("\r\033[K")
    if args.json:
        value = result.json_value()
        fixes = suggestion_fixes(result, args.command, given_rule_arguments(args))
        if fixes is not None:
            value["mismatch"]["suggestion_command"] = fixes["command"]
            value["mismatch"]["suggestion_pyproject"] = fixes["pyproject"]
        out.json(value)
    else:
        print_check(result, out, args.command, given_rule_arguments(args))
    if args.html is not None:
        _write_html(args.html, result, out, quiet=args.json)
    return 0 if result.status == "ok" else 1


def _write_html(path: Path, result: CheckResult, out: Output, quiet: bool) -> None:
    """The check's page, with the recording's calls (whole ones, if the file is damaged)."""
    from openprogram.html_report.page import write_page
    from openprogram.html_report.reports import check_page
    from openprogram.providers.recording.reader import scan_recording

    try:
        calls = scan_recording(result.recording).calls
    except (OpenProgramError, OSError):
        calls = ()
    write_page(path, check_page(result, calls))
    if not quiet:
        out.line(f"wrote {path}")


def declare_repair(parser: argparse.ArgumentParser) -> None:
    """Give `repair` its arguments and its handler."""
    declare_command(
        parser,
        repair,
        (
            "  openprogram recordings repair 20261202T101500Z-1a2b3c4d\n\n"
            "The original is kept as a previous version (history ID, restore ID VERSION); calls\n"
            "after a dropped one are renumbered."
        ),
    )
    add_recording_argument(parser, "recording_id", "ID", "a managed recording ID")
    parser.add_argument("--json", action="store_true", help="print the report as stable JSON")


def repair(args: argparse.Namespace, out: Output) -> int:
    """Repair and report what was kept and dropped."""
    report = repair_recording(args.recording_id)
    if args.json:
        out.json(report.model_dump(mode="json"))
        return 0
    if report.already_valid:
        out.line(
            f"{report.recording_id} is already valid ({plural(report.kept_calls, 'call')}); unchanged"
        )
        return 0
    out.line(
        ("repaired ", "bold green"),
        f"{report.recording_id}: kept {plural(report.kept_calls, 'call')}, "
        f"{plural(report.kept_events, 'event')}",
    )
    out.line(f"original kept as a previous version: {report.damaged_copy}")
    for part in report.dropped:
        where = f"line {part.line_number}" if part.line_number is not None else "file"
        call = f", call {part.call_index}" if part.call_index is not None else ""
        out.line(("dropped: ", "yellow"), f"{where}{call}: {part.reason}")
    for old, new in report.renumbered.items():
        out.line(f"renumbered: call {old} is now call {new}")
    return 0
