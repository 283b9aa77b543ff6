"""`openprogram recordings cache ID`: where the prompt-cache prefix broke, why, and what it cost."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output
from openprogram.errors import OpenProgramError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.cost import format_cost, price_table
from openprogram.recordings.prompt_cache import (
    CacheBreaks,
    PromptCacheReport,
    prompt_cache_report,
)
from openprogram.text import one_line, plural

MAX_LISTED_CALLS = 12
"""A group of breaks names at most this many calls, then says how many more."""
PATH_LIMIT = 120
"""A field path longer than this (a file's keys can be anything) is cut."""


def declare_cache(parser: argparse.ArgumentParser) -> None:
    """Give `cache` its arguments and its handler."""
    declare_command(
        parser,
        cache_command,
        (
            "  openprogram recordings cache my-session\n"
            "  openprogram recordings cache ./fixtures/agent.jsonl --json\n"
            "  openprogram recordings cache my-session --fail-on-break   # in CI\n\n"
            "A call's prefix breaks when it stops sending what the call before it sent (tools,\n"
            "system prompt, model, options, messages, then that call's answer); every later token\n"
            "is then paid in full. Tokens are the vendor's; costs come from the bundled price table.\n"
            "exit code 0, or 1 with --fail-on-break when a prefix broke; 2 on an error"
        ),
    )
    add_recording_argument(parser, "selector", "ID-or-PATH", "a managed recording ID or a path")
    parser.add_argument("--json", action="store_true", help="print stable JSON")
    parser.add_argument(
        "--fail-on-break",
        action="store_true",
        help="exit 1 when any call's prefix broke (for CI)",
    )


def call_ranges(calls: Sequence[int], limit: int = MAX_LISTED_CALLS) -> str:
    """`1–19`, `3, 7, 12–14`: runs of consecutive calls, at most `limit` numbers named."""
    runs: list[list[int]] = []
    for call in calls:
        if runs and runs[-1][1] + 1 == call:
            runs[-1][1] = call
        else:
            runs.append([call, call])
    parts = [str(a) if a == b else f"{a}–{b}" for a, b in runs[:limit]]
    rest = sum(b - a + 1 for a, b in runs[limit:])
    return ", ".join(parts) + (f" and {rest} more" if rest else "")


def _tokens(count: int) -> str:
    return f"{count:,} tokens"


def _group_line(group: CacheBreaks, report: PromptCacheReport) -> str:
    where = one_line(group.path, PATH_LIMIT)
    calls = group.calls
    named = f"call {calls[0]}" if len(calls) == 1 else f"calls {call_ranges(calls)}"
    line = f"{named}: {group.text} at {where}"
    if len(calls) == 1:
        fact = next(call for call in report.calls if call.call_index == calls[0])
        if fact.cacheable_tokens is not None and fact.cache_read is not None:
            line += (
                f"; {_tokens(fact.cacheable_tokens)} could have been read from cache "
                f"(after call {fact.follows}), the vendor read {fact.cache_read:,} "
                f"and wrote {fact.cache_write or 0:,}"
            )
    else:
        line += f" (every one of {plural(len(calls), 'call')})"
    line += f"; lost {_tokens(group.lost_tokens)}"
    if group.added_cost is not None:
        line += f", +{format_cost(group.added_cost)}"
        if group.unpriced:
            line += f" ({plural(group.unpriced, 'call')} not priced)"
    else:
        line += ", cost unknown (no price for the model)"
    return line


def _totals_line(report: PromptCacheReport) -> str:
    share = report.read_share
    read = f" ({share:.0%})" if share is not None else ""
    line = (
        f"totals: {_tokens(report.total('prompt_tokens'))} in, "
        f"{report.total('cache_read'):,} read from cache{read}, "
        f"{report.total('cache_write'):,} written to it"
    )
    if report.breaks:
        added = report.added_cost
        cost = f" (+{format_cost(added)})" if added is not None else " (cost unknown)"
        line += f"; lost to breaks: {_tokens(report.total('lost_tokens'))}{cost}"
    return line


def cache_command(args: argparse.Namespace, out: Output) -> int:
    """Print the breaks, grouped (one line per kind and path), and the session's totals."""
    try:
        recording = read_recording(locate_recording(args.selector).path)
    except (OpenProgramError, OSError) as exc:  # 2, apart from a break's 1 (as `diff` does)
        out.error(exc)
        return 2
    report = prompt_cache_report(recording.calls)
    broken = report.broken_calls
    if args.json:
        out.json({**report.to_json(), "price_table": price_table()})
    else:
        calls = plural(len(report.calls), "call")
        if broken:
            out.line((f"{calls}: the prompt-cache prefix broke on {broken}", "bold"))
        else:
            out.line((f"{calls}: the prompt-cache prefix never broke", "bold"))
        for group in report.breaks:
            out.line("  ", (_group_line(group, report), "yellow"))
        out.line(_totals_line(report))
        table = price_table()
        out.line(f"prices: {table}" if table else "prices: unknown (install openprogram[cost])")
    return 1 if args.fail_on_break and broken else 0
