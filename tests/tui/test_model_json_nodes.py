"""JSON nodes: labels, lazily built children and unambiguous paths."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tui.model.json_nodes import JsonNode, describe_value, path_text, value_kind


def test_descriptions_are_short() -> None:
    assert describe_value({"a": 1, "b": 2}) == "{2 keys}"
    assert describe_value([1]) == "[1 item]"
    assert describe_value({}) == "{}" and describe_value([]) == "[]"
    assert describe_value("hi\nthere") == '"hi␊there"'
    long = describe_value("x" * 500)
    assert long.endswith("(500 chars)") and len(long) < 110
    assert describe_value(None) == "null" and describe_value(True) == "true"


def test_kinds() -> None:
    kinds = [value_kind(v) for v in ({}, [], "", 1, 1.5, True, None)]
    assert kinds == ["object", "array", "string", "number", "number", "boolean", "null"]


def test_children_carry_their_path() -> None:
    root = JsonNode((), {"context": {"messages": [{"text": "hi"}]}})
    context = root.children()[0]
    message = context.children()[0].children()[0]
    assert message.path == ("context", "messages", 0)
    assert path_text(message.children()[0].path) == "context.messages[0].text"
    assert message.key_label == "[0]" and context.key_label == "context"
    assert not message.children()[0].expandable and context.expandable


def test_keys_that_are_not_names_are_quoted() -> None:
    assert path_text(("headers", "x-api-key")) == 'headers["x-api-key"]'
    assert path_text(("a.b", 2)) == '["a.b"][2]'


@given(st.lists(st.one_of(st.text(max_size=5), st.integers(0, 99)), min_size=1, max_size=5))
def test_different_paths_never_read_the_same(tokens: list[str | int]) -> None:
    other = [*tokens[:-1], f"{tokens[-1]}x"]
    assert path_text(tuple(tokens)) != path_text(tuple(other))


def test_timestamps_read_as_utc_times() -> None:
    from tui.model.json_nodes import describe_member

    assert describe_member("timestamp", 1767605400000) == "1767605400000  (2026-01-05 09:30:00 UTC)"
    assert describe_member("count", 1767605400000) == "1767605400000"
    assert describe_member("timestamp", 10**30) == str(10**30)
