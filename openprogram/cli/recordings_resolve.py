"""Resolving a mismatch: `accept` (keep the new requests, offline), `rerecord` (live from the
diverging call); and the versions they keep: `history`, `restore`."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output, UsageRefused
from openprogram.cli.recordings_check import allow_stored_command, progress_printer
from openprogram.providers.recording.store import RecordingSelectorError, locate_recording
from openprogram.recordings.accept import run_accept
from openprogram.recordings.rerecord import plan_rerecord, run_rerecord
from openprogram.recordings.trust import trust_stored_command
from openprogram.recordings.versions import (
    RewriteRun,
    list_versions,
    restore_version,
    write_rewrite,
)
from openprogram.text import human_size, plural

ACCEPT_EPILOG = """\
  openprogram recordings accept echo
  openprogram recordings accept ./session.jsonl -- python my_agent.py --flag
  openprogram recordings accept echo --json --yes

When a change to the program is intended (a reworded system prompt, a new tool description), a
check mismatches on every run. accept runs the program again offline, with replay in accept mode: each
call whose request differs keeps its recorded answer and takes the new request. No call is made, no
key is needed. It shows every accepted call with its differences and asks before writing (--yes on
a terminal-less run). A stored command this machine has not recorded or allowed is shown whole and
asked about first, as check does. The new version is checked with the strict reader before it
replaces the old; a managed recording keeps its previous versions (recordings history ID); a file
given by path is replaced atomically (git is its history).

It is refused, nothing written, when the run needs a live answer: more calls than recorded, fewer,
or a read past the end of a recorded stream. Record again then.
exit code 0 when accepted (or nothing differed); 1 when refused or not confirmed; 2 on usage"""


RERECORD_EPILOG = """\
  openprogram recordings rerecord echo
  openprogram recordings rerecord echo --from-call 3
  openprogram recordings rerecord ./session.jsonl --yes -- python my_agent.py --flag

When the answers must change too, rerecord runs the program again with replay in rerecord mode: calls
are answered from the recording while they match (and copied as recorded); from the first call
that differs (found first by an offline check), or --from-call K, every call goes to the real
providers and is recorded. Before anything goes live it says from which call, how many recorded
calls follow, which provider/model they reach, and that their credentials are needed; it asks
(--yes where no terminal can answer); a stored command not recorded or allowed here is asked
about first, as check does. The new version is written only when the program ends
successfully, checked with the strict reader; the previous version is kept (recordings history).
exit code 0 when written (or nothing differed); 1 when the program failed or not confirmed"""


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    """ID-or-PATH, --json, --yes and -- COMMAND: what accept and rerecord share."""
    add_recording_argument(parser, "selector", "ID-or-PATH", "a managed recording ID or a path")
    parser.add_argument("--json", action="store_true", help="print the result as stable JSON")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "command",
        nargs="*",
        metavar="-- COMMAND",
        help="the program to run (default: the command stored in the recording)",
    )


def declare_accept(parser: argparse.ArgumentParser) -> None:
    """Give `accept` its arguments and its handler."""
    declare_command(parser, accept_command, (ACCEPT_EPILOG))
    _run_arguments(parser)


def declare_rerecord(parser: argparse.ArgumentParser) -> None:
    """Give `rerecord` its arguments and its handler."""
    declare_command(parser, rerecord_command, (RERECORD_EPILOG))
    _run_arguments(parser)
    parser.add_argument(
        "--from-call", type=int, metavar="K", help="make every call from call K on live"
    )


def declare_restore(parser: argparse.ArgumentParser) -> None:
    """Give `restore` its arguments and its handler."""
    declare_command(
        parser,
        restore_command,
        (
            "  openprogram recordings history echo\n  openprogram recordings restore echo 20261203T101500Z-123456"
        ),
    )
    add_recording_argument(parser, "recording_id", "ID", "a managed recording ID")
    parser.add_argument("version", metavar="VERSION", help="a version name `history` lists")


def declare_history(parser: argparse.ArgumentParser) -> None:
    """Give `history` its arguments and its handler."""
    declare_command(
        parser,
        history_command,
        ("  openprogram recordings history echo\n  openprogram recordings history echo --json"),
    )
    add_recording_argument(parser, "recording_id", "ID", "a managed recording ID")
    parser.add_argument("--json", action="store_true", help="print the list as stable JSON")


def _json(run: RewriteRun, written: bool, kept: str | None) -> dict[str, Any]:
    return {
        "status": "accepted" if written else ("refused" if run.refusal else "not_written"),
        "recording": str(run.recording),
        "refusal": run.refusal,
        "accepted": [call.json_value() for call in run.accepted],
        "previous_version": kept,
        "check": run.result.json_value(),
    }


def _print_accepted(run: RewriteRun, out: Output) -> None:
    for call in run.accepted:
        out.line(("call ", "bold"), (str(call.call_index), "bold"))
        for difference in call.differences:
            if difference.absorbed_by is None:
                out.line("  ", difference.field_path)
            else:
                out.line(
                    "  ",
                    difference.field_path,
                    (
                        f"  (written too; {difference.absorbed_by.describe()} already absorbs it)",
                        "dim",
                    ),
                )
            out.line(("    recorded  ", "dim"), (difference.recorded, "red"))
            out.line(("    incoming  ", "dim"), (difference.incoming, "green"))


def accept_command(args: argparse.Namespace, out: Output) -> int:
    """Run in accept mode, show what would change, confirm, write."""
    allow_stored_command(args.selector, args.command, out, assume_yes=args.yes)
    progress = None if args.json else progress_printer(out)
    try:
        run = run_accept(args.selector, args.command or None, on_progress=progress)
    finally:
        if progress is not None:
            out.stderr.write("\r\033[K")
    if run.refusal is not None:
        if args.json:
            out.json(_json(run, False, None))
        else:
            out.line(("refused", "bold red"), f"  {run.recording}: {run.refusal}; nothing written")
        return 1
    if not run.accepted:
        run.discard()
        if args.json:
            out.json({**_json(run, False, None), "status": "nothing"})
        else:
            out.line(
                ("ok", "bold green"), f"  {run.recording}: every request matches; nothing to accept"
            )
        return 0
    if not args.json:
        _print_accepted(run, out)
    try:
        question = (
            f"Accept the new requests of {plural(len(run.accepted), 'call')} into "
            f"{run.recording} (the recorded answers are kept)?"
        )
        out.confirm(question, assume_yes=args.yes, what="accept")
    except UsageRefused:
        run.discard()
        raise
    command = args.command or run.result.argv
    kept = write_rewrite(run, command)
    trust_stored_command(run.recording)  # the command it now stores ran here
    if args.json:
        out.json(_json(run, True, str(kept) if kept else None))
        return 0
    out.line(
        ("accepted", "bold green"),
        f"  {plural(len(run.accepted), 'call')} into {run.recording}",
    )
    if kept is not None:
        out.line("previous version kept: ", str(kept))
    out.line("check it: ", shlex.join(["openprogram", "recordings", "check", args.selector]))
    return 0


def _recording_exists(selector: str) -> bool:
    try:
        path = locate_recording(selector).path
    except RecordingSelectorError:
        return False
    return path.exists() or path.is_symlink()


def history_command(args: argparse.Namespace, out: Output) -> int:
    """The kept versions, oldest first; an ID that names no recording and no kept version is
    refused (exit 1), as every command refuses a recording that is not there."""
    versions = list_versions(args.recording_id)
    if not versions and not _recording_exists(args.recording_id):
        out.error(f"{args.recording_id}: no such recording and no kept versions")
        return 1
    if args.json:
        out.json(
            {
                "recording_id": args.recording_id,
                "versions": [{"path": str(path), "size": path.stat().st_size} for path in versions],
            }
        )
        return 0
    if not versions:
        out.line(f"{args.recording_id}: no previous versions kept")
        return 0
    for path in versions:
        out.line(path.stem, f"  {human_size(path.stat().st_size)}  ", (str(path), "dim"))
    return 0


def rerecord_command(args: argparse.Namespace, out: Output) -> int:
    """Plan (offline), say what goes live, confirm, run, write."""
    allow_stored_command(args.selector, args.command, out, assume_yes=args.yes)
    plan = plan_rerecord(args.selector, args.command or None, from_call=args.from_call)
    if plan.from_call is None:
        if args.json:
            out.json({"status": "nothing", "recording": str(plan.recording), "reason": plan.reason})
        else:
            out.line(("ok", "bold green"), f"  {plan.recording}: {plan.reason}")
        return 0
    models = ", ".join(plan.live_models) or "the providers the program calls"
    if not args.json:
        out.line(("from call ", "bold"), (str(plan.from_call), "bold"), f"  ({plan.reason})")
        cost = (
            "their credentials (API keys) are needed and the calls are billed"
            if plan.needs_credentials
            else "it needs no credentials and bills nothing"
        )
        recorded = plural(plan.live_calls, "recorded call")
        out.line(
            f"live: every call from call {plan.from_call} on ({recorded} from there) goes to "
            f"{models}; {cost}"
        )
    out.confirm(
        f"Make these calls live and record them into {plan.recording}?",
        assume_yes=args.yes,
        what="make live calls",
    )
    progress = None if args.json else progress_printer(out)
    try:
        run = run_rerecord(plan, on_progress=progress)
    finally:
        if progress is not None:
            out.stderr.write("\r\033[K")
    if run.refusal is not None:
        if args.json:
            out.json(
                {
                    "status": "refused",
                    "recording": str(plan.recording),
                    "refusal": run.refusal,
                    "check": run.result.json_value(),
                }
            )
        else:
            out.line(("not written", "bold red"), f"  {plan.recording}: {run.refusal}")
        return 1
    kept = write_rewrite(run, args.command or run.result.argv)
    trust_stored_command(run.recording)  # the command it now stores ran here
    if args.json:
        out.json(
            {
                "status": "rerecorded",
                "recording": str(plan.recording),
                "from_call": plan.from_call,
                "previous_version": str(kept) if kept else None,
            }
        )
        return 0
    out.line(("rerecorded", "bold green"), f"  {plan.recording} from call {plan.from_call}")
    if kept is not None:
        out.line("previous version kept: ", str(kept))
    return 0


def restore_command(args: argparse.Namespace, out: Output) -> int:
    """Put a kept version back."""
    path = restore_version(args.recording_id, args.version)
    out.line("restored ", (args.version, "bold"), f" into {path} (the replaced version is kept)")
    return 0
