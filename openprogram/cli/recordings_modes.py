"""`openprogram recordings status`, `record`, `replay` and `off`: the mode of the next start.

Handlers only print: the work is done by `openprogram.recordings`, which never starts the provider
runtime, so these commands keep working while the configured file or the configuration is broken.
`record -- COMMAND` records one run of COMMAND instead (`openprogram.recordings.oneshot`).
"""

from __future__ import annotations

import argparse

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output, UsageRefused
from openprogram.providers.recording.config import (
    read_record_replay_config,
)
from openprogram.providers.recording.scan_facts import INVALID, VALID
from openprogram.recordings import (
    RecordReplayStatus,
    read_status,
    select_replay,
    start_recording,
    turn_off,
)
from openprogram.text import plural
from openprogram.visible_text import visible_line


def declare_status(parser: argparse.ArgumentParser) -> None:
    """Give `status` its arguments and its handler."""
    declare_command(
        parser,
        show_status,
        (
            "  openprogram recordings status\n  openprogram recordings status --json\n\n"
            "exit code 0 when the configuration is usable, 1 when the next start would block"
        ),
    )
    parser.add_argument("--json", action="store_true", help="print stable JSON")


def recording_name(text: str) -> str:
    """argparse's type for `--name`: a bad name is a usage error (exit 2), said before anything
    is created or run."""
    from openprogram.providers.recording.store import RecordingSelectorError, validate_recording_id

    try:
        return validate_recording_id(text)
    except RecordingSelectorError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def declare_record(parser: argparse.ArgumentParser) -> None:
    """Give `record` its arguments and its handler."""
    declare_command(
        parser,
        record,
        (
            "  openprogram recordings record\n  openprogram recordings record --name login-flow\n"
            "  openprogram recordings record --name login-flow --append\n"
            "  openprogram recordings record --name echo -- python examples/echo_agent.py hi\n\n"
            "With `-- COMMAND`: record one run of COMMAND only, leaving the next-start configuration\n"
            "alone; the recording is kept if COMMAND succeeds and its exit code is passed through."
        ),
    )
    parser.add_argument(
        "--name",
        metavar="NAME",
        type=recording_name,
        help="the recording ID (ASCII letters, digits, '.', '_', '-'); default: UTC time plus 8 "
        "hex digits",
    )
    parser.add_argument(
        "--append",
        action="store_true",
        help="with --name: record into that recording when it exists (new calls follow its last one)",
    )
    parser.add_argument(
        "--keep-failed",
        action="store_true",
        help="with a COMMAND: keep the recording even when the command fails",
    )
    parser.add_argument(
        "command",
        nargs="*",
        metavar="-- COMMAND",
        help="record one run of COMMAND only (the next-start configuration is left alone)",
    )


def declare_replay(parser: argparse.ArgumentParser) -> None:
    """Give `replay` its arguments and its handler."""
    declare_command(
        parser,
        replay,
        (
            "  openprogram recordings replay 20261202T101500Z-1a2b3c4d\n"
            "  openprogram recordings replay ./fixtures/login.jsonl\n\n"
            "The file is strictly validated first; a bad file changes nothing. A file outside the\n"
            "managed directory must already have permissions 0600."
        ),
    )
    add_recording_argument(parser, "selector", "ID-or-PATH", "a managed recording ID or a path")


def declare_off(parser: argparse.ArgumentParser) -> None:
    """Give `off` its arguments and its handler."""
    declare_command(
        parser,
        off,
        (
            "  openprogram recordings off\n\n"
            "An unreadable configuration file is moved aside (the backup path is printed)."
        ),
        suggest_off=False,
    )


def _file_line(status: RecordReplayStatus) -> str:
    if status.path is None:
        return status.file or "none"
    where = "managed" if status.managed else "outside the managed directory"
    return f"{status.file}  ({status.path}, {where})"


def _state_line(status: RecordReplayStatus) -> tuple[str, str]:
    if status.file_exists is None:
        return ("-", "")
    if not status.file_exists:
        return ("missing", "red" if status.mode == "replay" else "yellow")
    if status.file_valid:
        counts = f"{plural(status.calls or 0, 'call')}, {plural(status.events or 0, 'event')}"
        return (f"{VALID} (format_version {status.format_version}, {counts})", "green")
    return (f"{INVALID}: {status.reason}", "red")


def show_status(args: argparse.Namespace, out: Output) -> int:
    """Print the status; exit 1 when the next start would block."""
    status = read_status()
    if args.json:
        out.json(status.model_dump(mode="json"))
        return 1 if status.would_block else 0
    if status.config_error:
        out.line("mode:    ", ("unknown (configuration unreadable)", "red"))
    else:
        out.line("mode:    ", (str(status.mode), "bold"))
        kept = "  (kept; unused while off)" if status.mode == "off" and status.file else ""
        out.line("file:    ", _file_line(status), kept)
        out.line("state:   ", _state_line(status))
    out.line(
        "config:  ", str(status.config_path), "" if status.config_exists else "  (not created)"
    )
    if status.note:
        out.line("note:    ", status.note)
    if status.would_block:
        out.line(("blocked: ", "bold red"), str(status.reason))
        out.line("         every provider call will fail until this is fixed; nothing goes live.")
        if status.config_error:
            out.line(
                "fix:     run `openprogram recordings off` (the broken file is kept as a backup)"
            )
        else:
            out.line(
                "fix:     `openprogram recordings off`, or choose another file with "
                "`openprogram recordings replay ID-or-PATH` / `record`"
            )
    else:
        out.line("next start: ", ("ok", "green"))
    out.line((status.applies_on_next_start, "dim"))
    return 1 if status.would_block else 0


def record(args: argparse.Namespace, out: Output) -> int:
    """Create the recording and select it; with `-- COMMAND`, record one run of it instead."""
    if args.append and not args.name:
        raise UsageRefused("--append needs --name (the recording to add to)")
    if args.command:
        if args.append:
            raise UsageRefused(
                "--append does not go with `-- COMMAND` (a one-shot recording is new)"
            )
        return record_once(args, out)
    if args.keep_failed:
        raise UsageRefused("--keep-failed needs a COMMAND after `--`")
    path = start_recording(args.name, append=args.append)
    verb = "adds to" if args.append else "records into"
    out.line(f"Next start {verb} ", (path.stem, "bold"))
    out.line("file:    ", str(path))
    out.line(("Changes apply on the next start.", "dim"))
    out.line(
        ("Recordings can hold prompts, answers and personal data; secrets are removed.", "dim")
    )
    return 0


def record_once(args: argparse.Namespace, out: Output) -> int:
    """Run COMMAND with recording on; pass its exit code through."""
    from openprogram.recordings.oneshot import (  # only this path runs a program
        CommandNotStarted,
        record_command,
    )

    try:
        result = record_command(args.command, name=args.name, keep_failed=args.keep_failed)
    except CommandNotStarted as exc:
        out.error(str(exc))
        return exc.exit_code  # as a shell says it: 127 not found, 126 not runnable
    where = (
        str(result.path) if result.kept else "dropped (the command failed; --keep-failed keeps it)"
    )
    if result.interrupted_by is not None:
        where += f" (stopped by {result.interrupted_by}, passed on to the program)"
    if result.name_taken is not None:
        where += f" ({result.name_taken!r} was taken by another recording meanwhile)"
    print(
        visible_line(
            f"openprogram: recorded {plural(result.calls, 'call')}, "
            f"{plural(result.events, 'event')} as {result.recording_id}: {where}"
        ),
        file=out.stderr,
        flush=True,
    )
    return result.exit_code


def replay(args: argparse.Namespace, out: Output) -> int:
    """Validate the file, then select it for replay."""
    path = select_replay(args.selector)
    out.line("Next start replays from ", (str(path), "bold"))
    out.line(("Changes apply on the next start; provider calls will not go live.", "dim"))
    return 0


def off(args: argparse.Namespace, out: Output) -> int:
    """Select mode off, keeping the last file."""
    backup = turn_off()
    last_file = read_record_replay_config().file
    out.line("Record/replay is ", ("off", "bold"), " from the next start: provider calls go live.")
    if last_file:
        out.line("last file kept: ", last_file)
    if backup is not None:
        out.line(("The unreadable configuration was moved to ", "yellow"), str(backup))
    return 0
