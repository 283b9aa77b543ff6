"""`openprogram recordings delete` and `prune`: removal inside the managed root, after confirmation."""

from __future__ import annotations

import argparse
from pathlib import Path

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output
from openprogram.recordings import (
    PruneReport,
    delete_recording,
    plan_deletion,
    prune_recordings,
    versions_note,
)
from openprogram.recordings.unused_removal import UnusedPlan, plan_unused, remove_unused
from openprogram.text import human_size, plural


def _days(text: str) -> int:
    try:
        days = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of days, got {text!r}") from None
    if days < 0:
        raise argparse.ArgumentTypeError("the number of days must not be negative")
    return days


def declare_delete(parser: argparse.ArgumentParser) -> None:
    """Give `delete` its arguments and its handler."""
    declare_command(
        parser,
        delete_command,
        (
            "  openprogram recordings delete 20261202T101500Z-1a2b3c4d\n"
            "  openprogram recordings delete login-flow --yes\n\n"
            "Asks for confirmation on a terminal; otherwise --yes is required (exit 2 without it)."
        ),
    )
    add_recording_argument(parser, "recording_id", "ID", "a managed recording ID")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")


def declare_prune(parser: argparse.ArgumentParser) -> None:
    """Give `prune` its arguments and its handler."""
    declare_command(
        parser,
        prune_command,
        (
            "  openprogram recordings prune --older-than-days 30 --dry-run\n"
            "  openprogram recordings prune --older-than-days 30 --yes\n"
            "  openprogram recordings prune --unused --dry-run\n\n"
            "Age comes from the file's last write (its modification time), not the header's\n"
            "created_at. The configured recording, symlinks and files being written are never\n"
            "removed; a recording removed takes its kept previous versions with it.\n"
            "--unused removes the recordings the last complete `pytest --openprogram-unused` run\n"
            "found no collected test using (its list is in .pytest_cache, looked up from here).\n"
            "Exit code 1 when any matched recording could not be removed."
        ),
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--older-than-days", metavar="N", type=_days, help="minimum age in days")
    which.add_argument(
        "--unused",
        action="store_true",
        help="test recordings the last complete pytest run found no test using",
    )
    parser.add_argument("--dry-run", action="store_true", help="only show what would be removed")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--json", action="store_true", help="print the report as stable JSON")


def delete_command(args: argparse.Namespace, out: Output) -> int:
    """Check, confirm, delete."""
    summary = plan_deletion(args.recording_id)
    question = (
        f"Delete recording {summary.recording_id} ({plural(summary.facts.calls, 'call')}, "
        f"{human_size(summary.facts.size)}, {summary.path}){versions_note(args.recording_id)}?"
    )
    out.confirm(question, assume_yes=args.yes, what="delete")
    deleted = delete_recording(args.recording_id)
    removed = (
        f", and {plural(deleted.versions, 'kept previous version')}" if deleted.versions else ""
    )
    out.line("Deleted ", (deleted.recording_id, "bold"), f" ({human_size(deleted.size)}){removed}")
    return 0


def _print_report(report: PruneReport, out: Output) -> None:
    for skipped in report.skipped:
        out.line("skipped ", skipped.recording_id, (f": {skipped.reason}", "dim"))
    for failure in report.failed:
        out.line(("failed  ", "red"), failure.recording_id, f": {failure.reason}")
    verb = "would free" if report.dry_run else "freed"
    if report.versions:
        removed = "would remove" if report.dry_run else "removed"
        out.line(
            f"{removed} {plural(len(report.versions), 'kept previous version')} older than the cutoff"
        )
    out.line(
        f"matched {len(report.matched)}, deleted {len(report.deleted)}, "
        f"failed {len(report.failed)}, {verb} {human_size(report.bytes)} ({report.bytes} bytes)"
    )


def prune_unused_command(args: argparse.Namespace, out: Output) -> int:
    """Show what the last complete pytest run found unused, confirm, delete exactly those."""
    plan = plan_unused(Path.cwd())
    if args.json and (args.dry_run or not plan.remove):
        out.json(_unused_json(plan, [], [], dry_run=True))
        return 0
    if not args.json:
        out.line(f"from the pytest run of {plan.made_at} ({plan.cache}):")
        for path in plan.remove:
            out.line("would delete " if args.dry_run else "unused ", str(path))
        for path, reason in plan.left:
            out.line("skipped ", str(path), (f": {reason}", "dim"))
    if args.dry_run or not plan.remove:
        if not args.json:
            out.line(
                plural(len(plan.remove), "unused recording")
                + ("" if plan.remove else "; nothing to do")
            )
        return 0
    out.confirm(
        f"Delete {plural(len(plan.remove), 'recording')} no test uses?",
        assume_yes=args.yes,
        what="prune",
    )
    removed, failed = remove_unused(plan)
    if args.json:
        out.json(_unused_json(plan, removed, failed, dry_run=False))
    else:
        for path in removed:
            out.line(("deleted ", "green"), str(path))
        for path, reason in failed:
            out.line(("failed  ", "red"), str(path), f": {reason}")
    return 1 if failed else 0


def _unused_json(
    plan: UnusedPlan, removed: list[Path], failed: list[tuple[Path, str]], dry_run: bool
) -> dict[str, object]:
    return {
        "from": str(plan.cache),
        "made_at": plan.made_at,
        "dry_run": dry_run,
        "matched": [str(path) for path in plan.remove],
        "deleted": [str(path) for path in removed],
        "failed": [{"path": str(path), "reason": reason} for path, reason in failed],
        "skipped": [{"path": str(path), "reason": reason} for path, reason in plan.left],
    }


def prune_command(args: argparse.Namespace, out: Output) -> int:
    """Dry run, confirm the matched IDs, delete exactly those."""
    if args.unused:
        return prune_unused_command(args, out)
    plan = prune_recordings(args.older_than_days, dry_run=True)
    if not args.json:
        for recording_id in plan.matched:
            out.line("would delete " if args.dry_run else "matched ", recording_id)
    if args.dry_run or not (plan.matched or plan.versions):
        if args.json:
            out.json(plan.to_json())
        else:
            _print_report(plan, out)
        return 0
    question = (
        f"Delete {plural(len(plan.matched), 'recording')} and "
        f"{plural(len(plan.versions), 'kept version')} older "
        f"than {args.older_than_days} days ({human_size(plan.bytes)})?"
    )
    out.confirm(question, assume_yes=args.yes, what="prune")
    report = prune_recordings(
        args.older_than_days, only=set(plan.matched), only_versions=set(plan.versions)
    )
    if args.json:
        out.json(report.to_json())
        return 1 if report.failed else 0
    for recording_id in report.deleted:
        out.line(("deleted ", "green"), recording_id)
    _print_report(report, out)
    return 1 if report.failed else 0
