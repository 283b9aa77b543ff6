"""`openprogram recordings diff A B`: two recordings compared call by call (exit codes as `diff`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output
from openprogram.errors import OpenProgramError
from openprogram.providers.recording.difference_text import diff_change, format_path, format_value
from openprogram.providers.recording.differences import MISSING
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.call_stats import StatsDelta, session_stats
from openprogram.recordings.cost import TokenCounts, price_table
from openprogram.recordings.diff import (
    CallPair,
    DiffedCall,
    RecordingDiff,
    diff_sides,
    read_diff_side,
)
from openprogram.recordings.prompt_cache import PromptCacheReport, better_kept
from openprogram.text import plural
from openprogram.word_diff import marked_words

STATUS_TEXT = {
    "same": "same",
    "request_changed": "request changed",
    "answer_changed": "answer changed",
    "both_changed": "request and answer changed",
    "only_a": "only in A",
    "only_b": "only in B",
}


def declare_diff(parser: argparse.ArgumentParser) -> None:
    """Give `diff` its arguments and its handler."""
    declare_command(
        parser,
        diff_command,
        (
            "  openprogram recordings diff yesterday today\n"
            "  openprogram recordings diff old.jsonl new.jsonl --stat\n"
            "  openprogram recordings diff old.jsonl new.jsonl --json\n"
            "  openprogram recordings diff old.jsonl new.jsonl --html diff.html\n\n"
            "Calls are paired by index when both recordings have the same shape, else by what each\n"
            "call asks (model, tools, last message), so an inserted call is 'only in B'. Matching rules\n"
            "in pyproject.toml mark the request differences they absorb.\n"
            "exit code 0 when the recordings are the same, 1 when they differ, 2 on an error"
        ),
    )
    add_recording_argument(parser, "a", "A", "a managed recording ID or a path")
    add_recording_argument(parser, "b", "B", "a managed recording ID or a path")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print stable JSON")
    output.add_argument("--stat", action="store_true", help="one line per call")
    output.add_argument(
        "--html",
        metavar="FILE",
        type=Path,
        help="write one self-contained HTML page of the comparison to FILE (for a browser or CI)",
    )


def diff_command(args: argparse.Namespace, out: Output) -> int:
    """Print the comparison; 0 same, 1 different, 2 when a recording cannot be read."""
    from openprogram.providers.recording.rules_sources import project_rules

    priced = bool(args.json or args.html)  # the text prints no cost: no price table loaded
    try:
        a = read_diff_side(locate_recording(args.a).path, priced=priced)
        b = read_diff_side(locate_recording(args.b).path, priced=priced)
        rules = project_rules()
    except (OpenProgramError, OSError) as exc:
        out.error(exc)
        return 2
    diff = diff_sides(a, b, rules)
    status = 0 if diff.identical else 1
    if args.html is not None:
        from openprogram.html_report.reports import write_diff_page

        head, calls = diff_json_parts(diff)
        summary, b_path = summary_line(diff), diff.b
        # B is read again for the calls the page opens: the page takes each call's JSON first
        # and, `calls` exhausted, nothing holds the diff (its sides' numbers and rows) any more.
        del a, b, diff
        try:
            write_diff_page(head, calls, b_path, args.html)
        except (OpenProgramError, OSError) as exc:
            out.error(exc)
            return 2
        out.line(f"wrote {args.html} ({summary})")
        return status
    if args.json:
        print_diff_json(diff, out)
    elif args.stat:
        for pair in diff.pairs:
            out.line(stat_line(pair))
        out.line(summary_line(diff))
        out.line(cache_line(diff))
    else:
        print_diff(diff, out)
    return status


def _index(call: DiffedCall | None) -> str:
    return "-" if call is None else str(call.call_index)


def stat_line(pair: CallPair) -> str:
    """`call 1 ↔ 1  request changed (2 fields)`."""
    text = f"call {_index(pair.a):>3} ↔ {_index(pair.b):<3}  {STATUS_TEXT[pair.status]}"
    fields = len(pair.counting_request_differences)
    return text + (f" ({plural(fields, 'field')})" if fields else "")


def _tokens(usage: TokenCounts) -> str:
    return f"{usage.input} in / {usage.output} out"


def summary_line(diff: RecordingDiff) -> str:
    """`3 same · 1 request changed · 0 answer changed · 1 only in A · 0 only in B; tokens ...`."""
    s = diff.summary()
    counts = (
        f"{s.same} same · {s.request_changed} request changed · {s.answer_changed} answer "
        f"changed · {s.only_a} only in A · {s.only_b} only in B"
    )
    return f"{counts}; tokens A {_tokens(s.tokens_a)}, B {_tokens(s.tokens_b)}"


def cache_reports(diff: RecordingDiff) -> tuple[PromptCacheReport, PromptCacheReport]:
    """Each side's prompt-cache facts (tokens, no prices), from the calls the diff paired."""
    a = (pair.a.cache for pair in diff.pairs if pair.a and pair.a.cache)
    b = (pair.b.cache for pair in diff.pairs if pair.b and pair.b.cache)
    return PromptCacheReport.of(a), PromptCacheReport.of(b)


def _kept(report: PromptCacheReport) -> str:
    if not report.broken_calls:
        return "never broke"
    lost = report.total("lost_tokens")
    return f"broke on {plural(report.broken_calls, 'call')}, {lost:,} tokens lost"


def cache_line(diff: RecordingDiff) -> str:
    """`prompt cache: B kept its prefix better (A broke on 1 call, 744 tokens lost; B never broke)`."""
    a, b = cache_reports(diff)
    better = better_kept(a, b)
    verdict = (
        "as well kept in both" if better is None else f"{better.upper()} kept its prefix better"
    )
    return f"prompt cache: {verdict} (A {_kept(a)}; B {_kept(b)})"


def print_diff(diff: RecordingDiff, out: Output) -> None:
    """The summary, then every call that is not the same with its differences."""
    out.line(("A ", "bold"), str(diff.a))
    out.line(("B ", "bold"), str(diff.b))
    for rule in diff.rules.describe():
        out.line("rule: ", rule)
    for pair in diff.pairs:
        if pair.status == "same":
            continue
        out.line((stat_line(pair), "bold"))
        for ruled in pair.request:
            d = ruled.difference
            absorbed = f"  (absorbed: {ruled.absorbed_by.describe()})" if ruled.absorbed_by else ""
            out.line(f"  {format_path(d.field_path)}: {diff_change(d)}", (absorbed, "dim"))
        answer = pair.answer
        if answer.text:
            out.line("  answer text: ", format_value(marked_words(answer.text), 400))
        if answer.thinking:
            out.line("  thinking: ", format_value(marked_words(answer.thinking), 400))
        for d in answer.tool_calls:
            out.line(f"  {format_path(d.field_path)}: {diff_change(d)}")
        if answer.stop_reason:
            out.line(f"  stop reason: {answer.stop_reason[0]} → {answer.stop_reason[1]}")
        if answer.error:
            out.line(f"  error: {format_value(answer.error[0])} → {format_value(answer.error[1])}")
        if pair.usage_a is not None and pair.usage_b is not None and pair.usage_a != pair.usage_b:
            out.line(f"  tokens: {_tokens(pair.usage_a)} → {_tokens(pair.usage_b)}")
    out.line(summary_line(diff))
    out.line(cache_line(diff))


def _cache_json(diff: RecordingDiff) -> dict[str, Any]:
    a, b = cache_reports(diff)
    return {"a": a.totals_json(), "b": b.totals_json(), "kept_better": better_kept(a, b)}


def _value(value: Any) -> Any:
    return None if value is MISSING else value


def diff_json_parts(diff: RecordingDiff) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The stable JSON of `diff --json` in two parts: all but its `calls`, and each call's JSON
    made as it is asked for (the iterator holds `diff` until it is exhausted): the document is
    never whole in memory (`print_diff_json`, `diff --html`)."""
    return _json_head(diff), (_call_json(pair) for pair in diff.pairs)


def _json_head(diff: RecordingDiff) -> dict[str, Any]:
    s = diff.summary()
    return {
        "a": str(diff.a),
        "b": str(diff.b),
        "aligned_by": diff.aligned_by,
        "rules": diff.rules.describe(),
        "identical": diff.identical,
        "summary": {
            "same": s.same,
            "request_changed": s.request_changed,
            "answer_changed": s.answer_changed,
            "only_a": s.only_a,
            "only_b": s.only_b,
            "tokens_a": _usage_json(s.tokens_a),
            "tokens_b": _usage_json(s.tokens_b),
            "session_a": session_stats(pair.a.stats for pair in diff.pairs if pair.a).to_json(),
            "session_b": session_stats(pair.b.stats for pair in diff.pairs if pair.b).to_json(),
            "price_table": price_table(),
            "cache": _cache_json(diff),
        },
    }


def _usage_json(usage: TokenCounts) -> dict[str, int]:
    """A call's usage as the vendor's `Usage` writes it (reasoning only when the vendor said)."""
    reasoning = {} if usage.reasoning is None else {"reasoning": usage.reasoning}
    return {
        "input": usage.input,
        "output": usage.output,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
        "total_tokens": usage.total_tokens,
        **reasoning,
    }


def _call_json(pair: CallPair) -> dict[str, Any]:
    return {
        "a": None if pair.a is None else pair.a.call_index,
        "b": None if pair.b is None else pair.b.call_index,
        "status": pair.status,
        "request": [
            {
                "field_path": r.difference.field_path,
                "kind": r.difference.kind,
                "a": _value(r.difference.recorded),
                "b": _value(r.difference.incoming),
                "absorbed_by": r.absorbed_by.describe() if r.absorbed_by else None,
            }
            for r in pair.request
        ],
        "answer": {
            "text": [[c.op, c.text] for c in pair.answer.text],
            "thinking": [[c.op, c.text] for c in pair.answer.thinking],
            "tool_calls": [
                {
                    "field_path": d.field_path,
                    "a": _value(d.recorded),
                    "b": _value(d.incoming),
                }
                for d in pair.answer.tool_calls
            ],
            "stop_reason": list(pair.answer.stop_reason) if pair.answer.stop_reason else None,
            "error": list(pair.answer.error) if pair.answer.error else None,
        },
        "usage_a": None if pair.usage_a is None else _usage_json(pair.usage_a),
        "usage_b": None if pair.usage_b is None else _usage_json(pair.usage_b),
        **_deltas(pair),
    }


def print_diff_json(diff: RecordingDiff, out: Output) -> None:
    """The JSON of `diff --json` written a call at a time: memory holds one call's JSON, not the
    document (which outgrows the recordings: every call's usage and numbers)."""
    head, calls = diff_json_parts(diff)
    out.json_listing(head, "calls", calls)


def _deltas(pair: CallPair) -> dict[str, Any]:
    """Tokens by kind and cost of each side, and B − A where both are known."""
    a = None if pair.a is None else pair.a.stats
    b = None if pair.b is None else pair.b.stats
    return StatsDelta(a, b).to_json()
