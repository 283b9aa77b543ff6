"""`recordings scan`: find credentials in recording files, with the rules redaction uses.

A recording written by us is clean by construction; the scan is for what construction cannot
vouch for: hand edits, files from other tools, kept versions written before a rule existed, and
the user's scrub rules added later. Every string and every dict key of every row is checked with
the redaction rules (`secret_kinds`), every dict entry by its name (`is_secret_entry`), the
header's command line as `remove_secret_argv` reads it, the streamed pieces of each content block
assembled (a key split over two deltas; tool arguments parsed as recording parses them), the
project's scrub rules, and an entropy check for long random-looking strings. A finding names file,
line, call, field and the kind of secret, never the secret itself (a key holding one is shown as
`SECRET_PLACEHOLDER`).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openprogram.providers.recording.block_redaction import closed_arguments
from openprogram.providers.recording.differences import format_field_path
from openprogram.providers.recording.errors import RecordingFileError, open_for_reading
from openprogram.providers.recording.redaction import (
    SECRET_PLACEHOLDER,
    is_opaque_signature,
    is_secret_entry,
    remove_secret_argv,
    secret_kinds,
    signature_text_to_check,
)
from openprogram.providers.recording.rules import RulesConfigError, ScrubRule
from openprogram.providers.recording.rules_sources import rules_from_header
from openprogram.providers.recording.store import RECORDING_SUFFIX, recordings_dir

RANDOM_MIN_LENGTH = 32
"""Shorter strings are never called random-looking (ids and hashes are often this long)."""
RANDOM_MIN_BITS = 4.3
"""Shannon entropy per character above which a mixed-case alphanumeric token looks random.
Hex (at most 4 bits) and words (about 3 to 4) stay below it; base64 keys of 32+ characters
are around 4.5 to 5."""
_TOKEN = re.compile(rf"[A-Za-z0-9+/=_\-]{{{RANDOM_MIN_LENGTH},}}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+")
"""URLs are left out of the entropy check (redirect and signed links are random by design; a
secret in a URL is found by the shape rules: userinfo, query keys, webhook paths)."""
_OPAQUE_FIELD = re.compile(r"(?:^|_)(?:id|ids|signature|encrypted_content|data)$|Id$|Signature$")
"""Fields that hold vendor ids, signatures and encrypted reasoning: random by design, never
checked for entropy (the named-secret and shape checks still apply)."""
_DELTA_EVENTS = frozenset({"text_delta", "thinking_delta", "toolcall_delta"})
MAX_DEPTH = 200
"""Rows nested deeper are reported as unreadable rather than walked."""


@dataclass(frozen=True)
class SecretFinding:
    """One place a secret was found: file, line, call, field and what kind, not the value."""

    path: Path
    line: int
    call_index: int | None
    field: str
    kind: str

    def describe(self) -> str:
        """`rec.jsonl:7: call 1, field context.messages[0].content: OpenAI / Anthropic key`."""
        call = f"call {self.call_index}, " if self.call_index is not None else ""
        return f"{self.path}:{self.line}: {call}field {self.field}: {self.kind}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "line": self.line,
            "call_index": self.call_index,
            "field": self.field,
            "kind": self.kind,
        }


@dataclass
class FileScan:
    """What the scan of one file found, and the lines it could not read."""

    path: Path
    findings: list[SecretFinding] = field(default_factory=list)
    unreadable: str | None = None
    """Why the file (or a line of it) could not be read: the scan cannot vouch for it."""


def looks_random(token: str) -> bool:
    """True for a long token mixing upper and lower case letters and digits with high entropy."""
    if len(token) < RANDOM_MIN_LENGTH or SECRET_PLACEHOLDER in token:
        return False
    if not (any(c.isupper() for c in token) and any(c.islower() for c in token)):
        return False
    if not any(c.isdigit() for c in token):
        return False
    counts = Counter(token)
    bits = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return bits >= RANDOM_MIN_BITS


def _string_kinds(text: str, opaque: bool, scrub: tuple[ScrubRule, ...]) -> list[str]:
    kinds = secret_kinds(text)
    for rule in scrub:
        if rule.rewrite(text) != text:
            kinds.append(f"scrub rule `{rule.describe()}`")
    if not opaque and not kinds:
        for token in _TOKEN.findall(_URL.sub(" ", text)):
            if looks_random(token):
                kinds.append(f"random-looking string ({len(token)} characters)")
                break
    return kinds


FieldAt = tuple[str | int, ...]


def _walk(value: Any) -> Iterator[tuple[FieldAt, Any, dict[str, Any] | None]]:
    """Every value with its path and the dict holding it (iteratively: no recursion limit)."""
    stack: list[tuple[FieldAt, Any, dict[str, Any] | None]] = [((), value, None)]
    while stack:
        path, item, parent = stack.pop()
        if len(path) > MAX_DEPTH:
            raise ValueError(f"nested more than {MAX_DEPTH} deep")
        yield path, item, parent
        if isinstance(item, dict):
            stack.extend(((*path, key), inner, item) for key, inner in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, i), inner, None) for i, inner in reversed(list(enumerate(item))))


class _Keys:
    """What the scan found in each dict key of a file, and the key as a finding may show it: a key
    holding a secret is shown as `SECRET_PLACEHOLDER`, so no output repeats what was found."""

    def __init__(self, scrub: tuple[ScrubRule, ...]) -> None:
        self.scrub = scrub
        self._kinds: dict[str, list[str]] = {}

    def kinds(self, key: str) -> list[str]:
        if key not in self._kinds:
            self._kinds[key] = _string_kinds(key, False, self.scrub)
        return self._kinds[key]

    def field(self, at: FieldAt, prefix: str = "", keep: int = 0) -> str:
        """The field `at` as shown; `keep`: the messages a request row keeps from its base come
        first, so a stored row's message `i` is the full request's `keep + i` (as every other
        view numbers it)."""
        if keep and at[:2] == ("context", "messages") and len(at) > 2 and isinstance(at[2], int):
            at = (*at[:2], at[2] + keep, *at[3:])
        shown = [SECRET_PLACEHOLDER if isinstance(k, str) and self.kinds(k) else k for k in at]
        where = format_field_path(shown) if at else ""
        return f"{prefix}{'.' if prefix and where and not where.startswith('[') else ''}{where}"


def _value_findings(
    value: Any, keys: _Keys, prefix: str = "", keep: int = 0
) -> Iterator[tuple[str, str]]:
    """(field, kind) of every secret in a row or a value: entries named for a credential, keys and
    strings holding one (a reasoning signature: only what redaction inspects of it). `keep`: a
    request row's kept messages (`_Keys.field`)."""
    for at, item, parent in _walk(value):
        name = at[-1] if at else None
        if parent is not None and isinstance(name, str):
            key_kinds = keys.kinds(name)
            for kind in key_kinds:
                yield keys.field(at, prefix, keep), f"{kind} (in a key)"
            if is_secret_entry(parent, name):
                if item is not None and item != SECRET_PLACEHOLDER:
                    shown = SECRET_PLACEHOLDER if key_kinds else name
                    yield keys.field(at, prefix, keep), f"field named `{shown}`"
                continue
            if is_opaque_signature(parent, name) and isinstance(item, str):
                for kind in _string_kinds(signature_text_to_check(item), True, keys.scrub):
                    yield keys.field(at, prefix, keep), kind
                continue
        if isinstance(item, str):
            opaque = isinstance(name, str) and _OPAQUE_FIELD.search(name) is not None
            for kind in _string_kinds(item, opaque, keys.scrub):
                yield keys.field(at, prefix, keep) or prefix or "(row)", kind


class _Blocks:
    """The streamed pieces of each content block, assembled, to find a secret split across them."""

    def __init__(self) -> None:
        self.text: dict[tuple[int, int], list[str]] = {}
        self.first_line: dict[tuple[int, int], int] = {}
        self.seen: dict[tuple[int, int], set[str]] = {}
        self.tool_calls: set[tuple[int, int]] = set()

    def add(self, call: int, event: dict[str, Any], line: int, kinds: list[str]) -> None:
        index = event.get("content_index")
        delta = event.get("delta")
        if not isinstance(index, int) or not isinstance(delta, str):
            return
        key = (call, index)
        self.text.setdefault(key, []).append(delta)
        self.first_line.setdefault(key, line)
        self.seen.setdefault(key, set()).update(kinds)
        if event.get("type") == "toolcall_delta":
            self.tool_calls.add(key)

    def findings(self, path: Path, keys: _Keys) -> Iterator[SecretFinding]:
        for key, pieces in self.text.items():
            call, index = key
            whole = "".join(pieces)
            where = f"event.delta (content block {index}, {len(pieces)} pieces assembled)"
            found: list[tuple[str, str]] = []
            if len(pieces) >= 2:
                found += [(where, kind) for kind in _string_kinds(whole, False, keys.scrub)]
            if key in self.tool_calls:  # read as recording reads them: JSON, closed if cut short
                found += _arguments_findings(whole, keys, f"{where} arguments")
            for field_name, kind in dict.fromkeys(found):
                if kind not in self.seen[key]:
                    yield SecretFinding(path, self.first_line[key], call, field_name, kind)


def _arguments_findings(text: str, keys: _Keys, where: str) -> list[tuple[str, str]]:
    """What recording would remove from streamed tool arguments (escapes decoded, a cut value
    closed), with each string that is JSON cut short itself read the same way."""
    found: list[tuple[str, str]] = []
    todo = [(text, where)]
    while todo:
        text, where = todo.pop()
        try:
            arguments, finished = closed_arguments(text)
            if not isinstance(arguments, dict | list):
                continue
            found += _value_findings(arguments, keys, where)
        except (RecursionError, ValueError):  # nested deeper than JSON or the walk reads
            continue
        if not finished:
            todo += [
                (item, keys.field(at, where))
                for at, item, _parent in _walk(arguments)
                if isinstance(item, str) and item.startswith(("{", "["))
            ]
    return found


def _row_findings(
    path: Path, number: int, row: Any, keys: _Keys, blocks: _Blocks
) -> Iterator[SecretFinding]:
    call = row.get("call_index") if isinstance(row, dict) else None
    call = call if isinstance(call, int) and not isinstance(call, bool) else None
    row_kinds: list[str] = []
    keep = row.get("keep") if isinstance(row, dict) and row.get("type") == "request" else 0
    keep = keep if isinstance(keep, int) and not isinstance(keep, bool) else 0
    for where, kind in _value_findings(row, keys, keep=keep):
        row_kinds.append(kind)
        yield SecretFinding(path, number, call, where, kind)
    if isinstance(row, dict) and row.get("type") == "header":
        yield from _argv_findings(path, number, row)
    if isinstance(row, dict) and row.get("type") == "event" and call is not None:
        event = row.get("event")
        if isinstance(event, dict) and event.get("type") in _DELTA_EVENTS:
            blocks.add(call, event, number, row_kinds)


def _argv_findings(path: Path, number: int, header: dict[str, Any]) -> Iterator[SecretFinding]:
    entry = header.get("entry")
    argv = entry.get("argv") if isinstance(entry, dict) else None
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return
    for i, (given, redacted) in enumerate(zip(argv, remove_secret_argv(argv), strict=True)):
        if given != redacted and not secret_kinds(given):  # the per-string pass named the rest
            yield SecretFinding(
                path, number, None, f"entry.argv[{i}]", "argument of an option naming a secret"
            )


def _header_scrub_rules(header: dict[str, Any], path: Path) -> tuple[ScrubRule, ...]:
    """The scrub rules a recording's header keeps (none when they cannot be read)."""
    try:
        return rules_from_header(header, str(path)).scrub
    except RulesConfigError:
        return ()


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    fd, _info = open_for_reading(path)
    with os.fdopen(fd, "rb") as handle:
        yield from enumerate(handle, 1)


def scan_file(path: Path, scrub: Iterable[ScrubRule] = ()) -> FileScan:
    """Scan every row of one file (any JSON lines file, a recording or not)."""
    rules = tuple(scrub)
    keys = _Keys(rules)
    result = FileScan(path)
    blocks = _Blocks()
    try:
        for number, line in _lines(path):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                result.findings.extend(_row_findings(path, number, row, keys, blocks))
                if number == 1 and isinstance(row, dict) and row.get("type") == "header":
                    rules += _header_scrub_rules(row, path)
                    keys = _Keys(rules)
            except (ValueError, RecursionError) as exc:
                # Not JSON (or too deep, too big a number): still check its text as one string.
                text = line.decode("utf-8", errors="replace")
                for kind in _string_kinds(text, False, rules):
                    result.findings.append(SecretFinding(path, number, None, "(line)", kind))
                if result.unreadable is None:
                    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    result.unreadable = f"line {number}: not readable as JSON ({reason})"
    except RecordingFileError as exc:
        result.unreadable = exc.reason
        return result
    except OSError as exc:
        result.unreadable = f"cannot read: {exc.strerror}"
        return result
    result.findings.extend(blocks.findings(path, keys))
    result.findings.sort(key=lambda f: f.line)
    return result


def is_recording(path: Path) -> bool:
    """True when the first non-blank line of `path` is a recording header row."""
    try:
        for _number, line in _lines(path):
            if line.strip():
                row = json.loads(line)
                return isinstance(row, dict) and row.get("type") == "header"
    except (RecordingFileError, OSError, ValueError, RecursionError):
        return False
    return False


def managed_recordings() -> list[Path]:
    """Every `*.jsonl` under the managed root, kept versions included."""
    root = recordings_dir()
    if not root.is_dir() or root.is_symlink():
        return []
    return sorted(p for p in root.rglob(f"*{RECORDING_SUFFIX}") if p.is_file())


def git_recordings(cwd: Path) -> list[Path] | None:
    """Every `*.jsonl` recording git knows of or would add under the repository holding `cwd`
    (tracked and untracked, not ignored), or None when `cwd` is not in a git repository."""
    try:
        top = subprocess.run(
            ["git", "-C", str(cwd), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        listed = subprocess.run(
            ["git", "-C", top, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    names = (name.decode("utf-8", "surrogateescape") for name in listed.split(b"\0") if name)
    paths = (Path(top) / name for name in names if name.endswith(RECORDING_SUFFIX))
    return sorted(path for path in paths if path.is_file() and is_recording(path))


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files as given (any name), folders as every `*.jsonl` under them."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            found += sorted(p for p in path.rglob(f"*{RECORDING_SUFFIX}") if p.is_file())
        else:
            found.append(path)
    return list(dict.fromkeys(found))
