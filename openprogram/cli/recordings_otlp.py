"""`openprogram recordings export --otlp` and `import`: recordings as OpenTelemetry traces."""

from __future__ import annotations

import argparse
from pathlib import Path

import argcomplete

from openprogram.cli.commands import declare_command
from openprogram.cli.completion import add_recording_argument
from openprogram.cli.output import Output
from openprogram.cli.recordings_modes import recording_name
from openprogram.providers.recording.rules_sources import project_rules
from openprogram.recordings.otlp_export import export_recording
from openprogram.recordings.otlp_import import import_trace
from openprogram.recordings.otlp_mapping import SCHEMA_URL
from openprogram.text import human_size, plural


def declare_export(parser: argparse.ArgumentParser) -> None:
    """Give `export` its arguments and its handler."""
    declare_command(
        parser,
        export_command,
        (
            "  openprogram recordings export login-flow --otlp login-flow.json\n"
            "  openprogram recordings export ./tests/recordings/agent.jsonl --otlp trace.json\n\n"
            "Writes one OTLP/JSON trace (an ExportTraceServiceRequest): a session span and one\n"
            "gen_ai.client.inference span per call, with the GenAI semantic conventions'\n"
            f"attributes ({SCHEMA_URL}, status Development),\n"
            "the messages included. It holds what the recording holds (already redacted) and\n"
            "nothing more; a call whose times were not recorded has none in the trace either.\n"
            "Open it in a trace viewer, or turn it back with `openprogram recordings import`."
        ),
    )
    add_recording_argument(parser, "selector", "ID-or-PATH", "a managed recording ID or a path")
    target = parser.add_argument(
        "--otlp", metavar="OUT.json", required=True, type=Path, help="the trace file to write"
    )
    target.completer = argcomplete.completers.FilesCompleter()  # type: ignore[attr-defined]


def export_command(args: argparse.Namespace, out: Output) -> int:
    """Write the recording as an OTLP/JSON trace and say what was written."""
    report = export_recording(args.selector, args.otlp)
    line = f"wrote {report.path}: trace {report.trace_id}, {plural(report.calls, 'call')}"
    if report.untimed_calls:
        line += f" ({report.untimed_calls} with times not recorded: start and end 0)"
    out.line(line)
    return 0


def declare_import(parser: argparse.ArgumentParser) -> None:
    """Give `import` its arguments and its handler."""
    declare_command(
        parser,
        import_command,
        (
            "  openprogram recordings import trace.json --name prod-bug-1234\n"
            "  openprogram recordings check prod-bug-1234 -- python my_agent.py\n\n"
            "Reads an OTLP/JSON trace (ours, Phoenix's export, any exporter of the GenAI semantic\n"
            "conventions) and writes a managed recording: one call per inference span, in the\n"
            "order they started, the request rebuilt from the span's input messages and\n"
            "parameters, the answer from its output messages. Redaction and the scrub rules of\n"
            "the nearest pyproject.toml apply as when recording. What a span does not hold (tools\n"
            "offered, options) is said per call: `check ID -- CMD` then shows, field by field,\n"
            "where your program's requests differ."
        ),
    )
    trace = parser.add_argument("trace", metavar="TRACE.json", type=Path, help="the trace file")
    trace.completer = argcomplete.completers.FilesCompleter()  # type: ignore[attr-defined]
    parser.add_argument("--name", required=True, type=recording_name, help="the new recording's ID")
    parser.add_argument("--quiet", action="store_true", help="no progress while reading")


def import_command(args: argparse.Namespace, out: Output) -> int:
    """Import the trace as a new managed recording; one line per call that lacks something."""

    def progress(done: int, total: int) -> None:
        share = 100 * done // total if total else 100
        out.note(f"read {human_size(done)} of {human_size(total)} ({share} %)")

    report = import_trace(
        args.trace,
        args.name,
        rules=project_rules(),
        on_progress=None if args.quiet else progress,
    )
    out.line(
        f"imported {report.recording_id}: {plural(len(report.calls), 'call')} "
        f"from {plural(report.spans_read, 'span')} ({report.path})"
    )
    for call in report.calls:
        if call.missing:
            out.line(
                f"call {call.call_index} (span {call.span_id}): not in the trace: "
                + ", ".join(call.missing)
            )
    return 0
