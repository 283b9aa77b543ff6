"""`recordings accept` (keep the new requests, offline) and `recordings history` (kept versions)."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING, Any

from openprogram.cli.commands import add_command
from openprogram.cli.output import Output, UsageRefused
from openprogram.cli.recordings_rerun import progress_printer
from openprogram.recordings.accept import AcceptRun, list_versions, run_accept, write_accepted
from openprogram.text import human_size, plural

if TYPE_CHECKING:
    from openprogram.cli.commands import Subcommands

ACCEPT_EPILOG = """\
  openprogram recordings accept echo
  openprogram recordings accept ./session.jsonl -- python my_agent.py --flag
  openprogram recordings accept echo --json --yes

When a change to the program is intended (a reworded system prompt, a new tool description), a
check mismatches on every run. accept reruns the program offline, with replay in accept mode: each
call whose request differs keeps its recorded answer and takes the new request. No call is made, no
key is needed. It shows every accepted call with its differences and asks before writing (--yes on
a terminal-less run). The new version is checked with the strict reader before it replaces the old;
a managed recording keeps its previous versions (recordings history ID); a file given by path is
replaced atomically (git is its history).

It is refused, nothing written, when the run needs a live answer: more calls than recorded, fewer,
or a read past the end of a recorded stream. Record again then.
exit code 0 when accepted (or nothing differed); 1 when refused or not confirmed; 2 on usage"""


def register(commands: Subcommands) -> None:
    """Add `accept` and `history`."""
    parser = add_command(
        commands,
        "accept",
        accept_command,
        "Keep the program's new requests with the recorded answers (offline, no call made).",
        ACCEPT_EPILOG,
    )
    parser.add_argument("selector", metavar="ID-or-PATH", help="a managed recording ID or a path")
    parser.add_argument("--json", action="store_true", help="print the result as stable JSON")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "command",
        nargs="*",
        metavar="-- COMMAND",
        help="the program to run (default: the command stored in the recording)",
    )
    parser = add_command(
        commands,
        "history",
        history_command,
        "List the previous versions kept of a managed recording (made by accept).",
        "  openprogram recordings history echo\n  openprogram recordings history echo --json",
    )
    parser.add_argument("recording_id", metavar="ID", help="a managed recording ID")
    parser.add_argument("--json", action="store_true", help="print the list as stable JSON")


def _json(run: AcceptRun, written: bool, kept: str | None) -> dict[str, Any]:
    return {
        "status": "accepted" if written else ("refused" if run.refusal else "not_written"),
        "recording": str(run.recording),
        "refusal": run.refusal,
        "accepted": [call.model_dump(mode="json") for call in run.accepted],
        "previous_version": kept,
        "check": run.result.model_dump(mode="json"),
    }


def _print_accepted(run: AcceptRun, out: Output) -> None:
    for call in run.accepted:
        out.line(("call ", "bold"), (str(call.call_index), "bold"))
        for difference in call.differences:
            out.line("  ", difference.field_path)
            out.line(("    recorded  ", "dim"), (difference.recorded, "red"))
            out.line(("    incoming  ", "dim"), (difference.incoming, "green"))


def accept_command(args: argparse.Namespace, out: Output) -> int:
    """Run in accept mode, show what would change, confirm, write."""
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
    kept = write_accepted(run, command)
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


def history_command(args: argparse.Namespace, out: Output) -> int:
    """The kept versions, oldest first."""
    versions = list_versions(args.recording_id)
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
