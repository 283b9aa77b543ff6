"""`recordings scan`: every planted secret is found in every kind of field, nothing else is.

The files are real recordings (written by the recorder) edited by hand afterwards, which is how a
secret gets into a recording at all: the recorder itself removes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers.recording.redaction import (
    KEY_SHAPES,
    SECRET_PLACEHOLDER,
    TEXT_RULES,
    secret_kinds,
)
from openprogram.recordings.secret_scan import SecretFinding, looks_random, scan_file
from tests.providers.test_redaction_corpus import CORPUS, FIELD_NAMES, ORDINARY
from tests.recording_files import write_recording

SHAPES = [shape.example for shape in (*KEY_SHAPES, *TEXT_RULES)] + CORPUS


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def planted(tmp_path: Path, value: str) -> tuple[Path, dict[str, tuple[int, str]]]:
    """A recording with `value` put by hand in every kind of field; where each one went."""
    path = write_recording(tmp_path / "planted.jsonl", said=["hi there friend"])
    rows = rows_of(path)
    header, request = rows[0], rows[1]
    where: dict[str, tuple[int, str]] = {}

    header["entry"] = {"argv": ["agent", value], "cwd": "/work"}
    where["header argv"] = (1, "entry.argv[1]")
    request["context"]["system_prompt"] = f"Be brief. {value}"
    where["system prompt"] = (2, "context.system_prompt")
    request["context"]["messages"][0]["content"] = value
    where["user message"] = (2, "context.messages[0].content")
    request["context"]["messages"] += [
        {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1", "name": "run",
                                           "arguments": {"command": value}}]},
        {"role": "toolResult", "tool_call_id": "call_1", "tool_name": "run",
         "content": [{"type": "text", "text": value}], "is_error": False},
    ]  # fmt: skip
    where["tool call argument"] = (2, "context.messages[1].content[0].arguments.command")
    where["tool result"] = (2, "context.messages[2].content[0].text")
    request["model"]["headers"] = {"X-Note": value}
    where["model header"] = (2, "model.headers.X-Note")
    request["options"] = {"metadata": {"note": value}}
    where["options"] = (2, "options.metadata.note")

    deltas = [i for i, row in enumerate(rows) if row.get("event", {}).get("type") == "text_delta"]
    rows[deltas[0]]["event"]["delta"] = value
    where["streamed piece"] = (deltas[0] + 1, "event.delta")
    end = next(i for i, row in enumerate(rows) if row.get("event", {}).get("type") == "text_end")
    rows[end]["event"]["content"] = value
    where["answer"] = (end + 1, "event.content")
    rows[-1]["outcome"] = "error"
    rows[-1]["error"] = {"type": "RuntimeError", "message": f"upstream said: {value}"}
    where["error"] = (len(rows), "error.message")
    return write_rows(path, rows), where


@pytest.mark.parametrize("value", SHAPES)
def test_a_planted_secret_is_found_in_every_kind_of_field(tmp_path: Path, value: str) -> None:
    path, where = planted(tmp_path, value)
    findings = scan_file(path).findings
    found = {(f.line, f.field) for f in findings}
    missed = [kind for kind, place in where.items() if place not in found]
    assert missed == []
    assert all(value not in finding.describe() for finding in findings)


@pytest.mark.parametrize("name", [*FIELD_NAMES, "Authorization", "api_key", "refreshToken"])
def test_a_field_named_for_a_credential_is_found_with_any_value(tmp_path: Path, name: str) -> None:
    path = write_recording(tmp_path / "named.jsonl")
    rows = rows_of(path)
    rows[1]["model"]["headers"] = {name: "plain-words-only"}
    write_rows(path, rows)
    assert [(f.line, f.field, f.kind) for f in scan_file(path).findings] == [
        (2, f"model.headers.{name}", f"field named `{name}`")
    ]


def test_a_key_split_over_two_streamed_pieces_is_found_once_assembled(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "split.jsonl", said=["hi there friend"])
    rows = rows_of(path)
    deltas = [i for i, row in enumerate(rows) if row.get("event", {}).get("type") == "text_delta"]
    rows[deltas[1]]["event"]["delta"] = "use sk-proj-a1B2c3"
    rows[deltas[2]]["event"]["delta"] = "D4e5F6g7H8i9J0 now"
    write_rows(path, rows)
    findings = scan_file(path).findings
    # Named at the block's first piece: neither piece holds the key on its own.
    assert [(f.line, f.call_index, f.kind) for f in findings] == [
        (deltas[0] + 1, 0, "OpenAI / Anthropic key")
    ]
    assert "pieces assembled" in findings[0].field


def test_the_header_argument_after_a_secret_option_is_found(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "argv.jsonl")
    rows = rows_of(path)
    rows[0]["entry"] = {"argv": ["agent", "--api-key", "plainvalue", "-u", "me:hunter2"]}
    write_rows(path, rows)
    fields = [f.field for f in scan_file(path).findings]
    assert fields == ["entry.argv[2]", "entry.argv[4]"]


def test_a_scrub_rule_of_the_header_or_the_project_is_checked_too(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "pii.jsonl", said=["customer PII-4711 called"])
    rows = rows_of(path)
    rows[0]["rules"] = {"scrub": [{"path": "**", "pattern": r"PII-\d+", "replace": "PII-?"}]}
    write_rows(path, rows)
    # The recorder did not know the rule: the user text and the echoed answer still hold it.
    findings = scan_file(path).findings
    assert {f.kind for f in findings} == {r"scrub rule `scrub ** PII-\d+ -> PII-?`"}
    assert {f.field for f in findings} >= {"context.messages[0].content", "event.delta"}


def test_ordinary_prose_code_and_json_are_not_findings(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "ordinary.jsonl", said=ORDINARY)
    rows = rows_of(path)
    rows[1]["context"]["system_prompt"] = "\n".join(ORDINARY)
    write_rows(path, rows)
    assert scan_file(path).findings == []


def test_a_random_looking_string_is_found_but_ids_hashes_and_urls_are_not(tmp_path: Path) -> None:
    key = "Zq8XbK2mPw9LrT4vNc7HsJ3dFy6GaE1uRk5W"
    assert looks_random(key)
    ordinary = [
        "0123456789abcdef0123456789abcdef01234567",  # a git commit
        "550e8400-e29b-41d4-a716-446655440000",  # a UUID
        "the_quick_brown_fox_jumps_over_the_lazy_dog_again",  # an identifier
    ]
    assert [text for text in ordinary if looks_random(text)] == []
    path = write_recording(tmp_path / "random.jsonl")
    rows = rows_of(path)
    rows[1]["context"]["messages"][0]["content"] = f"the deploy secret is {key}"
    rows[1]["context"]["messages"][0]["id"] = key  # an id field: random by design
    rows[1]["context"]["system_prompt"] = f"see https://example.com/r/{key}?x=1"
    write_rows(path, rows)
    assert [(f.field, f.kind) for f in scan_file(path).findings] == [
        ("context.messages[0].content", "random-looking string (36 characters)")
    ]


def test_a_recording_we_wrote_has_no_findings(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "ours.jsonl", said=[f"here: {v}" for v in SHAPES[:5]])
    assert scan_file(path).findings == []


def test_a_line_that_is_not_json_is_still_searched_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"type": "header"}\n{"oops sk-proj-a1B2c3D4e5F6g7H8i9J0\n')
    result = scan_file(path)
    assert result.unreadable is not None and result.unreadable.startswith("line 2: not readable")
    assert [(f.line, f.field) for f in result.findings] == [(2, "(line)")]


def test_a_deeply_nested_row_does_not_crash_the_scan(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    result = scan_file(path)
    assert result.findings == [] and result.unreadable is not None


def test_a_finding_describes_itself_on_one_line_without_the_value(tmp_path: Path) -> None:
    finding = SecretFinding(tmp_path / "a.jsonl", 7, 1, "context.system_prompt", "JWT")
    assert (
        finding.describe() == f"{tmp_path / 'a.jsonl'}:7: call 1, field context.system_prompt: JWT"
    )


def test_every_redaction_rule_names_its_own_example() -> None:
    """The scan reports the rule by the name the redaction tables give it (one list of rules)."""
    unnamed = [s.name for s in (*KEY_SHAPES, *TEXT_RULES) if s.name not in secret_kinds(s.example)]
    assert unnamed == []


def _toolcall_delta(row: dict[str, Any], index: int, delta: str) -> None:
    row["event"] = {"type": "toolcall_delta", "content_index": index, "delta": delta}


@pytest.mark.parametrize("value", SHAPES)
def test_a_secret_used_as_a_key_is_found_in_every_place_and_never_shown(
    tmp_path: Path, value: str
) -> None:
    path = write_recording(tmp_path / "keys.jsonl", said=["hi there friend"])
    rows = rows_of(path)
    request = rows[1]
    request["model"]["headers"] = {value: "h"}
    request["options"] = {"metadata": {value: "m"}}
    request["context"]["messages"].append(
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "run",
                                           "arguments": {"n": {value: 1}}}]}
    )  # fmt: skip
    deltas = [i for i, row in enumerate(rows) if row.get("event", {}).get("type") == "text_delta"]
    _toolcall_delta(rows[deltas[0]], 5, json.dumps({value: 1}))
    write_rows(path, rows)
    findings = scan_file(path).findings
    shown = f"[{json.dumps(SECRET_PLACEHOLDER)}]"
    wanted = {
        (2, f"model.headers{shown}"),
        (2, f"options.metadata{shown}"),
        (2, f"context.messages[1].content[0].arguments.n{shown}"),
        (deltas[0] + 1, "event.delta"),
    }
    assert wanted <= {(f.line, f.field.split(" (")[0]) for f in findings}
    assert [f.describe() for f in findings if value in f.describe()] == []


@pytest.mark.parametrize(
    "pieces",
    [
        ['{"pass\\u0077ord": "hunter2-escaped'],  # one piece, cut short
        ['{"pass\\u00', '77ord": "hunter2-escaped'],  # the escape split over two
        ['{"args": "{\\"password\\": \\"hunter2-nested'],  # JSON cut short inside JSON
    ],
)
def test_a_secret_in_unfinished_tool_arguments_is_found_as_recording_reads_them(
    tmp_path: Path, pieces: list[str]
) -> None:
    path = write_recording(tmp_path / "cut.jsonl", said=["hi there friend"])
    rows = rows_of(path)
    deltas = [i for i, row in enumerate(rows) if row.get("event", {}).get("type") == "text_delta"]
    for row, piece in zip([rows[i] for i in deltas], pieces, strict=False):
        _toolcall_delta(row, 3, piece)
    write_rows(path, rows)
    findings = [(f.line, f.kind) for f in scan_file(path).findings]
    assert findings == [(deltas[0] + 1, "field named `password`")]
