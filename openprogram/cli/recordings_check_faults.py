"""`recordings check --fault KIND[@CALL[:EVENT]]` and `--faults`: the program under broken streams."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from openprogram.cli.output import Output, UsageRefused
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.rules import MatchingRules
from openprogram.providers.recording.store import locate_recording
from openprogram.providers.recording.stream_faults import (
    StreamFault,
    StreamFaultError,
    parse_fault,
)
from openprogram.recordings.fault_runs import (
    DEFAULT_FAULT_TIMEOUT,
    OUTCOME_WORDS,
    FaultRun,
    run_faults,
    variants_of,
)
from openprogram.text import plural

OUTCOME_COLOURS = {
    "clean": "green",
    "raised": "yellow",
    "hung": "red",
    "partial": "red",
    "not_reached": "dim",
}
BAD_OUTCOMES = ("hung", "partial")
"""A variant with one of these outcomes makes the check exit 1."""


def add_fault_arguments(parser: argparse.ArgumentParser) -> None:
    """`--fault`, `--faults`, `--stall`, `--max-runs`."""
    parser.add_argument(
        "--fault",
        metavar="KIND[@CALL[:EVENT]]",
        help="break one recorded stream: cut (the connection drops after EVENT), error (a vendor "
        "error after EVENT), stall (nothing for --stall seconds before EVENT), cancel (the "
        "program's task is cancelled after EVENT); CALL defaults to 0, EVENT to the middle",
    )
    parser.add_argument(
        "--faults",
        action="store_true",
        help="run each fault kind against each recorded call, one run each (see --max-runs)",
    )
    parser.add_argument(
        "--stall",
        type=float,
        default=None,
        metavar="S",
        help="how long a stall lasts (default: 120, past the HTTP providers' 60 s read timeout)",
    )
    parser.add_argument(
        "--max-runs",
        type=int,
        default=50,
        metavar="N",
        help="refuse --faults when it would run more than N variants (default: 50)",
    )


def _faults(args: argparse.Namespace) -> list[StreamFault]:
    seconds = {} if args.stall is None else {"seconds": args.stall}
    try:
        if args.faults:
            faults = variants_of(args.selector, **seconds)
            if len(faults) > args.max_runs:
                raise UsageRefused(
                    f"--faults would run {len(faults)} variants, more than --max-runs "
                    f"{args.max_runs}; raise --max-runs or pick one with --fault"
                )
            return faults
        fault = parse_fault(args.fault, **seconds)
        recording = read_recording(locate_recording(args.selector).path)
        if fault.call >= len(recording.calls):
            raise UsageRefused(
                f"--fault {args.fault}: the recording has {plural(len(recording.calls), 'call')}"
            )
        fault.event_in(recording.calls[fault.call].events)
        return [fault]
    except (StreamFaultError, ValueError) as exc:
        if isinstance(exc, StreamFaultError):
            raise UsageRefused(f"--fault: {exc}") from None
        raise UsageRefused(f"--fault: {' '.join(str(exc).split())}") from None


def _line(run: FaultRun) -> tuple[str | tuple[str, str], ...]:
    at = "" if run.event_index is None else f" (event {run.event_index})"
    return (
        f"{run.fault.describe():<22}",
        (f"{OUTCOME_WORDS[run.outcome]:<34}", OUTCOME_COLOURS[run.outcome]),
        run.detail + at,
    )


def check_faults(
    args: argparse.Namespace, out: Output, rules: MatchingRules, command: Sequence[str]
) -> int:
    """Run the variants, one line each as it ends; exit 1 when one hung or took a partial answer
    as complete."""
    faults = _faults(args)
    timeout = args.timeout if args.timeout is not None else DEFAULT_FAULT_TIMEOUT
    if not args.json:
        out.line(
            f"running {plural(len(faults), 'variant')} of {args.selector}, "
            f"each stopped after {timeout:g} s"
        )

    def show(number: int, run: FaultRun) -> None:
        if not args.json:
            out.line(f"[{number}/{len(faults)}] ", *_line(run))

    runs = run_faults(
        args.selector, command or None, faults, timeout=timeout, rules=rules, on_run=show
    )
    if args.json:
        out.json(
            {"recording": args.selector, "runs": [run.model_dump(mode="json") for run in runs]}
        )
    else:
        counts = {o: sum(run.outcome == o for run in runs) for o in OUTCOME_WORDS}
        out.line(", ".join(f"{n} {OUTCOME_WORDS[o]}" for o, n in counts.items() if n))
    return 1 if any(run.outcome in BAD_OUTCOMES for run in runs) else 0
