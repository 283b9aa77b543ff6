"""The command line a recording's header keeps (`entry` and `produced_by.command`).

A header travels with the file, so what it says about the command is redacted like a request
(`remove_secret_argv`) and then rewritten by the user's scrub rules that cover every field (`**`):
the project's (the nearest `pyproject.toml` from the command's folder) and the recording's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from openprogram.providers.recording.redaction import remove_secret_argv
from openprogram.providers.recording.rules import MatchingRules, ScrubRule, scrub_text
from openprogram.providers.recording.rules_sources import project_rules, rules_from_header


def entry_scrub_rules(
    cwd: str | None, header: Mapping[str, Any] | None = None, recording: str = ""
) -> tuple[ScrubRule, ...]:
    """The scrub rules for a command run in `cwd`: the project's, then those of `header`."""
    rules = project_rules(Path(cwd)) if cwd else MatchingRules()
    if header is not None:
        rules = rules.merged(rules_from_header(header, recording))
    return rules.scrub


def kept_command(argv: Sequence[str], scrub: Iterable[ScrubRule] = ()) -> list[str]:
    """`argv` as a header keeps it: secrets removed, then every `**` scrub rule applied."""
    rules = tuple(scrub)
    return [scrub_text(argument, rules) for argument in remove_secret_argv(argv)]


def kept_entry(argv: Sequence[str], cwd: str, scrub: Iterable[ScrubRule] = ()) -> dict[str, Any]:
    """The header's `entry`: the kept command and its folder, both scrubbed."""
    rules = tuple(scrub)
    return {"argv": kept_command(argv, rules), "cwd": scrub_text(cwd, rules)}


def rewritten_entry(
    entry: Mapping[str, Any], command: Sequence[str], scrub: Iterable[ScrubRule] = ()
) -> dict[str, Any]:
    """The `entry` of a new version: `command` (else the old argv) and the old folder, scrubbed
    again, since the rules in force may be newer than the recording."""
    rules = tuple(scrub)
    old = entry.get("argv")
    argv = command or ([str(a) for a in old] if isinstance(old, list) else [])
    kept = {**entry, "argv": kept_command(argv, rules)}
    if isinstance(entry.get("cwd"), str):
        kept["cwd"] = scrub_text(entry["cwd"], rules)
    return kept
