"""Adding a matching rule where it lives: a recording's header, or the project's `pyproject.toml`.

Both edits are checked before anything is written (the rule is validated, and the edited source is
read back by the same reader replay uses), and both replace the file atomically, so a failed edit
leaves the file as it was. `pyproject.toml` is edited with tomlkit, which keeps its comments, order
and layout; the recording keeps every row after its header byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import AoT, Array, Table

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.config import atomic_write_bytes
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_header
from openprogram.providers.recording.row_encoding import encode_row
from openprogram.providers.recording.rules import (
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    RulesConfigError,
    validate_rule,
)
from openprogram.providers.recording.rules_sources import (
    HEADER_KEY,
    find_pyproject,
    project_rules,
    rules_from_header,
    rules_from_tables,
)
from openprogram.recordings.open_writers import being_written

ComparisonRule = IgnoreRule | NormalizeRule
COPY_CHUNK = 1 << 20


class RuleEditError(OpenProgramError, ValueError):
    """A rule could not be added; the message names the file and why. Nothing was changed."""


def project_rules_file(start: Path) -> Path:
    """Where a project rule goes for a program run in `start`: the `pyproject.toml` replay reads
    from there (the nearest with `[tool.openprogram]`), else the nearest `pyproject.toml`, else a
    new one in `start`."""
    found = find_pyproject(start)
    if found is not None:
        return found
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file():
            return folder / "pyproject.toml"
    return here / "pyproject.toml"


def _rule_item(rule: ComparisonRule) -> Any:
    if isinstance(rule, IgnoreRule):
        return rule.path
    return rule.model_dump(by_alias=True, exclude={"source", "kind"}, exclude_none=True)


def _list_key(rule: ComparisonRule) -> str:
    return "ignore" if isinstance(rule, IgnoreRule) else "normalize"


def add_rule_to_pyproject(path: Path, rule: ComparisonRule) -> Path:
    """Append `rule` to `[tool.openprogram.replay]` of `path` (created if missing); returns `path`.

    Comments and layout survive; a rule already there is not added twice.
    """
    where = f"{path}: tool.openprogram.replay.{_list_key(rule)}"
    validate_rule(rule, where)
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        document = tomlkit.parse(text)
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.TOMLKitError) as exc:
        raise RuleEditError(f"{path}: cannot be read as TOML ({exc})") from None
    replay = _table(document, ("tool", "openprogram", "replay"), path)
    key = _list_key(rule)
    items = replay.get(key)
    if items is None:
        items = tomlkit.array()
        replay[key] = items
    if not isinstance(items, Array):
        raise RuleEditError(f"{where}: must be a list")
    item = _rule_item(rule)
    if item not in items.unwrap():
        if isinstance(item, dict):
            inline = tomlkit.inline_table()
            inline.update(item)
            items.append(inline)
        else:
            items.append(item)
        items.multiline(len(items) > 1)
    edited = tomlkit.dumps(document)
    _check_pyproject(edited, path)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    atomic_write_bytes(path, edited.encode("utf-8"), mode)
    return path


def remove_rule_from_pyproject(path: Path, rule: ComparisonRule) -> Path:
    """Remove `rule` from `[tool.openprogram.replay]` of `path`; comments and layout survive. A
    rule that is not there is a `RuleEditError` and nothing is written."""
    where = f"{path}: tool.openprogram.replay.{_list_key(rule)}"
    try:
        document = tomlkit.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.TOMLKitError) as exc:
        raise RuleEditError(f"{path}: cannot be read as TOML ({exc})") from None
    replay = _table(document, ("tool", "openprogram", "replay"), path)
    items = replay.get(_list_key(rule))
    item = _rule_item(rule)
    if not isinstance(items, Array) or item not in items.unwrap():
        raise RuleEditError(f"{where}: has no rule `{rule.describe()}`; nothing written")
    del items[items.unwrap().index(item)]
    edited = tomlkit.dumps(document)
    _check_pyproject(edited, path)
    atomic_write_bytes(path, edited.encode("utf-8"), path.stat().st_mode & 0o777)
    return path


def _table(document: Any, keys: tuple[str, ...], path: Path) -> Table:
    container = document
    for depth, key in enumerate(keys):
        found = container.get(key)
        if found is None:
            found = tomlkit.table(is_super_table=depth < len(keys) - 1)
            container[key] = found
        if not isinstance(found, Table) or isinstance(found, AoT):
            raise RuleEditError(f"{path}: {'.'.join(keys[: depth + 1])} must be a table")
        container = found
    return container


def _check_pyproject(text: str, path: Path) -> None:
    """Read the edited text back as replay will; raise `RuleEditError` when it cannot be used."""
    try:
        table = tomllib.loads(text).get("tool", {}).get("openprogram", {})
        rules_from_tables(
            table.get("replay", {}), table.get("record", {}), str(path), f"{path}: tool.openprogram"
        )
    except (tomllib.TOMLDecodeError, RulesConfigError, AttributeError) as exc:
        raise RuleEditError(
            f"{path}: the edit would not be usable ({exc}); nothing written"
        ) from None


def header_rules(recording: Path) -> MatchingRules:
    """The matching rules kept in a recording's header (its first row only is read)."""
    try:
        header = read_header(recording)
        return rules_from_header(header.model_extra or {}, str(recording))
    except (RecordingFileError, RulesConfigError) as exc:
        raise RuleEditError(str(exc)) from None
    except OSError as exc:
        raise RuleEditError(f"{recording}: {exc.strerror or exc}") from None


def rules_in_force(recording: Path, start: Path) -> MatchingRules:
    """What replay of `recording` merges for a program run in `start`: the project's rules (the
    nearest `pyproject.toml` with `[tool.openprogram]`), then the recording's header rules."""
    return project_rules(start).merged(header_rules(recording))


def add_rule_to_header(recording: Path, rule: ComparisonRule) -> MatchingRules:
    """Add `rule` to the `rules` metadata of the recording's header; returns the header's rules.

    The file is rewritten beside itself (same permissions) and renamed over the original; every
    row after the header is copied byte for byte. A recording that grows meanwhile (being written)
    is left as it was.
    """
    where = f"recording {recording}: header.{HEADER_KEY}.{_list_key(rule)}"
    validate_rule(rule, where)

    def add(items: list[Any]) -> list[Any]:
        return items if _rule_item(rule) in items else [*items, _rule_item(rule)]

    return _edit_header_rules(recording, _list_key(rule), add)


def remove_rule_from_header(recording: Path, rule: ComparisonRule) -> MatchingRules:
    """Remove `rule` from the recording's header (as `add_rule_to_header` writes); returns the
    header's rules left. A rule that is not in the header is a `RuleEditError`."""
    item = _rule_item(rule)

    def remove(items: list[Any]) -> list[Any]:
        if item not in items:
            where = f"recording {recording}: header.{HEADER_KEY}.{_list_key(rule)}"
            raise RuleEditError(f"{where}: has no rule `{rule.describe()}`; nothing written")
        return [kept for kept in items if kept != item]

    return _edit_header_rules(recording, _list_key(rule), remove)


def _header_row(recording: Path, first: bytes) -> dict[str, Any]:
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise RecordingFileError(recording, 1, None, "the first row is not a header")
    return header


def _edit_header_rules(
    recording: Path, key: str, edit: Callable[[list[Any]], list[Any]]
) -> MatchingRules:
    """Rewrite the header's `rules.<key>` list with `edit`; the rows after it byte for byte."""
    try:
        with recording.open("rb") as source:
            before = os.fstat(source.fileno())
            header = _header_row(recording, source.readline())
            value: dict[str, Any] = dict(header.get(HEADER_KEY) or {})
            items = edit(list(value.get(key, [])))
            if items:
                value[key] = items
            else:
                value.pop(key, None)
            rules = rules_from_header({HEADER_KEY: value}, str(recording))
            edited = (
                {**header, HEADER_KEY: value}
                if value
                else {name: kept for name, kept in header.items() if name != HEADER_KEY}
            )
            rows = encode_row(edited)
            temporary = recording.with_name(f".{recording.name}.{os.getpid()}.rule.tmp")
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(temporary, flags, before.st_mode & 0o777)
            try:
                with os.fdopen(fd, "wb") as target:
                    target.write(rows)
                    while chunk := source.read(COPY_CHUNK):
                        target.write(chunk)
                    target.flush()
                    os.fsync(target.fileno())
                now = os.stat(recording)
                if being_written(recording) is not None or (now.st_size, now.st_mtime_ns) != (
                    before.st_size,
                    before.st_mtime_ns,
                ):
                    raise RuleEditError(
                        f"{recording}: it is being written; edit its rules once the recording ends"
                    )
                os.replace(temporary, recording)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()
    except (RulesConfigError, RecordingFileError) as exc:
        raise RuleEditError(f"{exc}; nothing written") from None
    except OSError as exc:
        raise RuleEditError(f"{recording}: {exc.strerror or exc}; nothing written") from None
    return rules
