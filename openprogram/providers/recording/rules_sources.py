"""Where matching rules come from: `pyproject.toml`, a recording's header, and the caller.

`pyproject.toml` is found from the working directory upwards, the nearest one with a
`[tool.openprogram]` table (as ruff finds its settings):

    [tool.openprogram.replay]
    ignore = ["options.metadata.request_id"]
    normalize = [{ path = "context.system_prompt", preset = "iso-datetime" }]
    [tool.openprogram.record]
    scrub = [{ path = "**", pattern = "[\\w.+-]+@[\\w-]+\\.[\\w.]+", replace = "<email>" }]

A header holds the same shape under the optional key `rules` (`{"ignore": [...], ...}`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openprogram.providers.recording.rules import (
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    RulesConfigError,
    ScrubRule,
    ignores_whole_messages,
    validate_rule,
)

HEADER_KEY = "rules"
"""The optional header metadata key that holds a recording's own rules."""
HEADER_SOURCE = "recording header"
"""The `source` of every rule kept in a recording's header."""


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest `pyproject.toml` at or above `start` (default: the working directory) that has
    a `[tool.openprogram]` table, or None."""
    found = _nearest_tool_table(start)
    return found[0] if found is not None else None


def _nearest_tool_table(start: Path | None) -> tuple[Path, dict[str, Any]] | None:
    """`find_pyproject`, with the `[tool]` table it read there (so the file is read once)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            tool = _tool_table(candidate)
            if "openprogram" in tool:
                return candidate, tool
    return None


def _tool_table(path: Path) -> dict[str, Any]:
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RulesConfigError(str(path), f"cannot be read as TOML ({exc})") from None
    tool = document.get("tool", {})
    return tool if isinstance(tool, dict) else {}


def _rule_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise RulesConfigError(where, "must be a list")
    return value


def _one_rule(kind: str, item: Any, source: str, where: str) -> Any:
    data = {"path": item} if kind == "ignore" and isinstance(item, str) else item
    if not isinstance(data, Mapping):
        shape = "a field pattern" if kind == "ignore" else "a table { path = ..., ... }"
        raise RulesConfigError(where, f"must be {shape}")
    rule: IgnoreRule | NormalizeRule | ScrubRule
    try:
        if kind == "ignore":
            rule = IgnoreRule.model_validate({**data, "source": source})
        elif kind == "normalize":
            rule = NormalizeRule.model_validate({**data, "source": source})
        else:
            rule = ScrubRule.model_validate({**data, "source": source})
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise RulesConfigError(f"{where}.{key}" if key else where, first["msg"]) from None
    validate_rule(rule, where)
    return rule


def rules_from_tables(
    replay: Mapping[str, Any], record: Mapping[str, Any], source: str, where: str
) -> MatchingRules:
    """Rules from the `replay` (ignore, normalize) and `record` (scrub) tables; validated."""
    found: dict[str, list[Any]] = {"ignore": [], "normalize": [], "scrub": []}
    for table, keys, prefix in (
        (replay, ("ignore", "normalize"), "replay"),
        (record, ("scrub",), "record"),
    ):
        for key in table:
            if key not in keys:
                allowed = ", ".join(keys)
                raise RulesConfigError(
                    f"{where}.{prefix}.{key}", f"unknown key (allowed: {allowed})"
                )
        for key in keys:
            if key in table:
                items = _rule_list(table[key], f"{where}.{prefix}.{key}")
                found[key] = [
                    _one_rule(key, item, source, f"{where}.{prefix}.{key}[{number}]")
                    for number, item in enumerate(items)
                ]
    return MatchingRules(
        ignore=tuple(found["ignore"]),
        normalize=tuple(found["normalize"]),
        scrub=tuple(found["scrub"]),
    )


def rules_from_pyproject(path: Path) -> MatchingRules:
    """The rules of `[tool.openprogram.replay]` and `[tool.openprogram.record]` in `path`."""
    return _rules_from_tool_table(path, _tool_table(path))


def _rules_from_tool_table(path: Path, tool: dict[str, Any]) -> MatchingRules:
    table = tool.get("openprogram", {})
    where = f"{path}: tool.openprogram"
    if not isinstance(table, dict):
        raise RulesConfigError(where, "must be a table")
    for key in table:
        if key not in ("replay", "record"):
            raise RulesConfigError(f"{where}.{key}", "unknown key (allowed: replay, record)")
    replay, record = table.get("replay", {}), table.get("record", {})
    for name, value in (("replay", replay), ("record", record)):
        if not isinstance(value, dict):
            raise RulesConfigError(f"{where}.{name}", "must be a table")
    return rules_from_tables(replay, record, str(path), where)


def project_rules(start: Path | None = None) -> MatchingRules:
    """The rules of the nearest `pyproject.toml` with `[tool.openprogram]`, or none (read once)."""
    found = _nearest_tool_table(start)
    return _rules_from_tool_table(*found) if found is not None else MatchingRules()


def rules_from_header(header: Mapping[str, Any], recording: str) -> MatchingRules:
    """A recording's own rules, from the optional `rules` key of its header."""
    value = header.get(HEADER_KEY)
    if value is None:
        return MatchingRules()
    where = f"recording {recording}: header.{HEADER_KEY}"
    if not isinstance(value, dict):
        raise RulesConfigError(where, "must be an object")
    replay = {key: value[key] for key in ("ignore", "normalize") if key in value}
    record = {key: value[key] for key in ("scrub",) if key in value}
    unknown = sorted(set(value) - {"ignore", "normalize", "scrub"})
    if unknown:
        raise RulesConfigError(
            f"{where}.{unknown[0]}", "unknown key (allowed: ignore, normalize, scrub)"
        )
    rules = rules_from_tables(replay, record, HEADER_SOURCE, where)
    for number, rule in enumerate(rules.ignore):
        if ignores_whole_messages(rule):
            raise RulesConfigError(
                f"{where}.replay.ignore[{number}]",
                f"ignore {rule.path!r} covers whole messages, so any run would match this "
                "recording; a recording's own rule may ignore fields inside a message "
                "(put it in pyproject.toml if you mean it)",
            )
    return rules


def header_rules_value(rules: MatchingRules) -> dict[str, Any]:
    """The `rules` header value that `rules_from_header` reads back as `rules`."""
    value: dict[str, Any] = {}
    if rules.ignore:
        value["ignore"] = [rule.path for rule in rules.ignore]
    for key, items in (("normalize", rules.normalize), ("scrub", rules.scrub)):
        if items:
            value[key] = [
                rule.model_dump(by_alias=True, exclude={"source", "kind"}, exclude_none=True)
                for rule in items
            ]
    return value
