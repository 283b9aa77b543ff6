"""Matching rules: ignore and normalize absorb differences, presets recognise values that change
by themselves (and not near misses), rules that can never match are configuration errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers.recording.differences import FieldDifference
from openprogram.providers.recording.rules import (
    NO_RULES,
    PRESETS,
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    RulesConfigError,
    RuleSuggestion,
    first_counting_difference,
    fitting_presets,
    iter_ruled_differences,
    suggest_rule,
    suggested_rules,
    validate_rules,
)
from openprogram.providers.recording.rules_sources import (
    find_pyproject,
    header_rules_value,
    project_rules,
    rules_from_header,
)

REAL_LOOKING: dict[str, list[tuple[str, str]]] = {
    "iso-datetime": [
        ("Today is 2026-12-01.", "Today is 2026-12-02."),
        ("at 2026-12-01T09:15:00Z", "at 2026-12-02T17:40:12Z"),
        ("at 2026-12-01T09:15:00.123456+01:00", "at 2026-12-02T17:40:12.5-05:00"),
        ("at 2026-12-01 09:15", "at 2026-12-02 17:40"),
    ],
    "uuid": [
        ("id 0b7c9d3e-5f0a-4a4e-9a55-3c2e1f0d9b8a", "id 9F1C2B3A-0D4E-4F5A-8B6C-7D8E9F0A1B2C"),
    ],
    "tmp-path": [
        (
            "wrote /tmp/pytest-of-ana/pytest-12/test_tool0/out.txt",
            "wrote /tmp/pytest-of-ana/pytest-13/test_tool0/out.txt",
        ),
        ("saved in /var/folders/x1/abc/T/tmpk3j2/f", "saved in /var/folders/y2/def/T/tmpq9/f"),
        ("cd /tmp/tmpa8f3_x && ls", "cd /tmp/tmpz0q1_y && ls"),
    ],
    "hex-id": [
        ("trace 9f86d081884c7d659a2feaa0c55ad015", "trace 2c26b46b68ffc68ff99b453c1d304134")
    ],
    "unix-ms": [("sent at 1764583200123", "sent at 1764669600456")],
    "unix-s": [("sent at 1764583200", "sent at 1764669600"), ("t=1764583200.25", "t=1764669601.5")],
    "port": [
        ("served on http://127.0.0.1:41823/v1", "served on http://127.0.0.1:50112/v1"),
        ("listening on localhost:8123", "listening on localhost:9001"),
    ],
}
NEAR_MISSES: dict[str, list[str]] = {
    "iso-datetime": ["version 2026-13-45", "phone 2026-12-011", "12-01-2026", "build 20261201"],
    "uuid": ["0b7c9d3e-5f0a-4a4e-9a55-3c2e1f0d9b8", "not-a-uuid-at-all-really-no"],
    "tmp-path": ["see /tmpfiles/x", "the /temporary folder", "tmp/relative/path"],
    "hex-id": ["deadbeef", "abcdefabcdefabcdef", "1234567890123456", "coffee-is-good-today"],
    "unix-ms": ["176458320012", "17645832001234", "order 0764583200123"],
    "unix-s": ["176458320", "17645832001", "v1.1764583200", "order 0764583200"],
    "port": ["at 10:30 today", "example.com:8080", "ratio 3:2"],
}


@pytest.mark.parametrize(
    ("preset", "pair"), [(name, pair) for name, pairs in REAL_LOOKING.items() for pair in pairs]
)
def test_each_preset_absorbs_real_looking_values(preset: str, pair: tuple[str, str]) -> None:
    rules = MatchingRules(normalize=(NormalizeRule(path="context.system_prompt", preset=preset),))  # type: ignore[arg-type]
    recorded, incoming = request(pair[0]), request(pair[1])
    assert first_counting_difference(recorded, incoming, NO_RULES) is not None
    assert first_counting_difference(recorded, incoming, rules) is None


@pytest.mark.parametrize(
    ("preset", "text"), [(name, text) for name, texts in NEAR_MISSES.items() for text in texts]
)
def test_no_preset_matches_a_near_miss(preset: str, text: str) -> None:
    assert re.search(PRESETS[preset][0], text) is None


def request(system_prompt: str, **metadata: Any) -> dict[str, Any]:
    return {
        "model": {"id": "gpt-4o-mini", "api": "openai-completions"},
        "context": {
            "system_prompt": system_prompt,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        },
        "options": {"metadata": metadata},
    }


def test_an_ignored_field_is_absorbed_and_named_with_its_rule() -> None:
    rule = IgnoreRule(path="options.metadata.request_id", source="pyproject.toml")
    ruled = list(
        iter_ruled_differences(
            request("x", request_id="a"),
            request("x", request_id="b"),
            MatchingRules(ignore=(rule,)),
        )
    )
    assert [(r.difference.field_path, r.absorbed_by) for r in ruled] == [
        ("options.metadata.request_id", rule)
    ]


def test_a_normalisation_leaves_real_changes_counting() -> None:
    rules = MatchingRules(
        normalize=(NormalizeRule(path="context.system_prompt", preset="iso-datetime"),)
    )
    changed = first_counting_difference(
        request("Today is 2026-12-01. Be brief."), request("Today is 2026-12-02. Be long."), rules
    )
    assert changed is not None and changed.field_path == "context.system_prompt"


def test_a_custom_normalisation_and_a_container_pattern() -> None:
    rules = MatchingRules(
        normalize=(NormalizeRule(path="context.messages", pattern=r"run-\d+", replace="run-N"),)
    )
    recorded, incoming = request("x"), request("x")
    recorded["context"]["messages"][0]["content"][0]["text"] = "see run-41"
    incoming["context"]["messages"][0]["content"][0]["text"] = "see run-42"
    assert first_counting_difference(recorded, incoming, rules) is None


def test_merge_order_is_pyproject_then_header_then_caller() -> None:
    project = MatchingRules(ignore=(IgnoreRule(path="options.metadata.a", source="pyproject"),))
    header = MatchingRules(ignore=(IgnoreRule(path="options.metadata.b", source="header"),))
    caller = MatchingRules(ignore=(IgnoreRule(path="options.metadata.c", source="caller"),))
    merged = project.merged(header).merged(caller)
    assert [rule.source for rule in merged.ignore] == ["pyproject", "header", "caller"]
    assert merged.describe()[0] == "ignore options.metadata.a  (pyproject)"


@pytest.mark.parametrize(
    "pattern", ["context.mesages", "model.idd", "context.messages[*].content[*].texxt", "model[*]"]
)
def test_a_rule_that_can_never_match_is_a_configuration_error(pattern: str) -> None:
    with pytest.raises(RulesConfigError, match=re.escape(repr(pattern)) + ".*can never match"):
        validate_rules(MatchingRules(ignore=(IgnoreRule(path=pattern),)))


@pytest.mark.parametrize(
    "pattern", ["options.metadata.anything", "**.request_id", "context.tools[*].parameters.x"]
)
def test_free_form_fields_accept_any_key(pattern: str) -> None:
    validate_rules(MatchingRules(ignore=(IgnoreRule(path=pattern),)))


def test_suggestions_name_the_preset_and_never_ordinary_text() -> None:
    date = FieldDifference(
        ("context", "system_prompt"), "on 2026-12-01", "on 2026-12-02", "changed"
    )
    assert suggest_rule(date) == RuleSuggestion(
        path="context.system_prompt", presets=("iso-datetime",)
    )
    path = ("context", "messages", 3, "content", 0, "text")
    tmp = FieldDifference(path, "at /tmp/pytest-1/x", "at /tmp/pytest-2/x", "changed")
    assert suggest_rule(tmp) == RuleSuggestion(
        path="context.messages[*].content[*].text", presets=("tmp-path",)
    )
    prose = FieldDifference(("context", "system_prompt"), "Be brief.", "Be long.", "changed")
    assert suggest_rule(prose) is None
    both = FieldDifference(
        ("context", "system_prompt"), "2026-12-01 hi", "2026-12-02 bye", "changed"
    )
    assert suggest_rule(both) is None  # the date is not all that changed


SESSION = "Session {} on {}. Answer briefly."


def test_a_date_and_a_uuid_in_one_prompt_are_two_presets_never_the_values_seen() -> None:
    # The day-two agent: `f"Session {uuid4()} on {date.today()}"` in its system prompt.
    recorded = SESSION.format("f9cf2c1e-0b7a-4d8e-9a55-3c2e1f0d9b8a", "2026-12-03")
    incoming = SESSION.format("62276b0d-5f0a-4a4e-8b6c-7d8e9f0a1b2c", "2026-12-04")
    difference = FieldDifference(("context", "system_prompt"), recorded, incoming, "changed")
    assert fitting_presets(recorded, incoming) == ("iso-datetime", "uuid")
    rules = suggested_rules(difference)
    assert [rule.describe() for rule in rules] == [
        "normalize context.system_prompt iso-datetime",
        "normalize context.system_prompt uuid",
    ]
    suggestion = suggest_rule(difference)
    assert suggestion is not None
    assert suggestion.line == "normalize context.system_prompt iso-datetime, uuid"
    # The rules hold on the next run too: a new UUID and another day are absorbed.
    later = SESSION.format("0d4e9f1c-2b3a-4f5a-8b6c-7d8e9f0a1b2c", "2027-01-15")
    in_force = MatchingRules(normalize=rules)
    assert first_counting_difference(request(recorded), request(later), in_force) is None


def test_the_suggestion_leaves_out_a_preset_already_in_force() -> None:
    recorded = SESSION.format("f9cf2c1e-0b7a-4d8e-9a55-3c2e1f0d9b8a", "2026-12-03")
    incoming = SESSION.format("62276b0d-5f0a-4a4e-8b6c-7d8e9f0a1b2c", "2026-12-04")
    difference = FieldDifference(("context", "system_prompt"), recorded, incoming, "changed")
    uuid = NormalizeRule(path="context.system_prompt", preset="uuid")
    in_force = MatchingRules(normalize=(uuid,))
    assert suggest_rule(difference, in_force) == RuleSuggestion(
        path="context.system_prompt", presets=("iso-datetime",)
    )


@pytest.mark.parametrize(
    ("recorded", "incoming", "presets"),
    [
        (
            "on 127.0.0.1:41823 at 1764583200",
            "on 127.0.0.1:50112 at 1764669600",
            ("unix-s", "port"),
        ),
        (
            "trace 9f86d081884c7d659a2feaa0c55ad015 in /tmp/a1",
            "trace 2c26b46b68ffc68ff99b453c1d304134 in /tmp/b2",
            ("tmp-path", "hex-id"),
        ),
        ("Be brief on 2026-12-03.", "Be long on 2026-12-04.", ()),
    ],
)
def test_presets_are_found_inside_longer_strings(
    recorded: str, incoming: str, presets: tuple[str, ...]
) -> None:
    assert fitting_presets(recorded, incoming) == presets


PYPROJECT = """\
[project]
name = "agent"

[tool.openprogram.replay]
ignore = ["options.metadata.request_id"]
normalize = [
  { path = "context.system_prompt", preset = "iso-datetime" },
  { path = "context.messages[*].content[*].text", pattern = "/tmp/\\\\S+", replace = "<tmp>" },
]
[tool.openprogram.record]
scrub = [{ path = "**", pattern = "[\\\\w.+-]+@[\\\\w-]+\\\\.[\\\\w.]+", replace = "<email>" }]
"""


def test_pyproject_rules_are_found_from_a_subfolder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    nested = tmp_path / "tests" / "unit"
    nested.mkdir(parents=True)
    (tmp_path / "tests" / "pyproject.toml").write_text("[project]\nname = 'other'\n")
    assert find_pyproject(nested) == tmp_path / "pyproject.toml"
    rules = project_rules(nested)
    assert [r.describe() for r in rules.all()] == [
        "ignore options.metadata.request_id",
        "normalize context.system_prompt iso-datetime",
        "normalize context.messages[*].content[*].text /tmp/\\S+ -> <tmp>",
        "scrub ** [\\w.+-]+@[\\w-]+\\.[\\w.]+ -> <email>",
    ]
    assert {rule.source for rule in rules.all()} == {str(tmp_path / "pyproject.toml")}


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        (
            "[tool.openprogram.replay]\nignore = 'x'\n",
            "tool.openprogram.replay.ignore",
            "must be a list",
        ),
        (
            "[tool.openprogram.replay]\nignor = []\n",
            "tool.openprogram.replay.ignor",
            "unknown key",
        ),
        (
            "[tool.openprogram.replay]\nnormalize = [{ path = 'context.system_prompt', preset = 'date' }]\n",
            "tool.openprogram.replay.normalize[0].preset",
            "Input should be",
        ),
        (
            "[tool.openprogram.replay]\nnormalize = [{ path = 'context.system_prompt', pattern = '(' , replace = '' }]\n",
            "tool.openprogram.replay.normalize[0]:",
            "not a regular expression",
        ),
        (
            "[tool.openprogram.replay]\nignore = ['context.mesages']\n",
            "tool.openprogram",
            "never match",
        ),
        ("[tool.openprogram.replay\n", "pyproject.toml", "cannot be read as TOML"),
    ],
)
def test_invalid_configuration_is_one_line_naming_file_and_key(
    tmp_path: Path, text: str, where: str, reason: str
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n" + text)
    with pytest.raises(RulesConfigError) as caught:
        project_rules(tmp_path)
    message = str(caught.value)
    assert str(tmp_path / "pyproject.toml") in message and where in message and reason in message
    assert "\n" not in message


def test_header_rules_round_trip() -> None:
    rules = MatchingRules(
        ignore=(IgnoreRule(path="options.metadata.request_id"),),
        normalize=(NormalizeRule(path="context.system_prompt", preset="iso-datetime"),),
    )
    back = rules_from_header({"format_version": 2, "rules": header_rules_value(rules)}, "x.jsonl")
    assert [r.describe() for r in back.all()] == [r.describe() for r in rules.all()]
    assert {r.source for r in back.all()} == {"recording header"}
    with pytest.raises(RulesConfigError, match=r"recording x.jsonl: header.rules.ignor"):
        rules_from_header({"rules": {"ignor": []}}, "x.jsonl")
