from __future__ import annotations

import importlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openprogram.providers.recording.differences import (
    MISSING,
    NON_DETERMINISTIC_FIELD_NAMES,
    find_first_difference,
    format_field_path,
    iter_differences,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


def test_equal_values_have_no_difference() -> None:
    assert find_first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x"}]}) is None


def test_the_first_difference_walks_sorted_keys_then_indexes() -> None:
    recorded = {"z": 1, "a": {"list": [1, 2, 3]}}
    incoming = {"z": 2, "a": {"list": [1, 9, 3]}}
    difference = find_first_difference(recorded, incoming)
    assert difference is not None
    assert difference.field_path == "a.list[1]"
    assert difference.path_tokens == ("a", "list", 1)
    assert (difference.recorded, difference.incoming, difference.kind) == (2, 9, "changed")


def test_missing_added_and_type_changes_are_named_as_such() -> None:
    kinds = {
        d.field_path: d.kind
        for d in iter_differences({"a": 1, "b": "1", "c": [1]}, {"b": 1, "c": [1, 2], "d": None})
    }
    assert kinds == {"a": "missing", "b": "type_changed", "c[1]": "added", "d": "added"}
    first = find_first_difference({"a": 1}, {})
    assert first is not None and first.incoming is MISSING


def test_booleans_are_not_numbers() -> None:
    difference = find_first_difference({"x": True}, {"x": 1})
    assert difference is not None and difference.kind == "type_changed"


def test_timestamps_are_skipped_and_a_recorded_secret_matches_anything() -> None:
    assert (
        find_first_difference(
            {"timestamp": 1, "api_key": "[secret removed]"}, {"timestamp": 2, "api_key": None}
        )
        is None
    )
    assert find_first_difference({"api_key": "[secret removed]"}, {}) is None


def test_keys_with_dots_or_brackets_are_quoted_so_the_path_is_never_ambiguous() -> None:
    assert format_field_path(["headers", "x.y", 0, "a[1]"]) == 'headers["x.y"][0]["a[1]"]'
    difference = find_first_difference({"a.b": 1}, {"a.b": 2})
    assert difference is not None and difference.path_tokens == ("a.b",)


@given(json_values, json_values)
def test_the_same_pair_always_gives_the_same_path(a: object, b: object) -> None:
    first = find_first_difference(a, b)
    assert first == find_first_difference(a, b)
    # keys are too short to be "timestamp" and strings too short to be the secret placeholder
    assert (first is None) == (json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))


@pytest.mark.parametrize(
    "facade",
    ["openprogram.providers", "openprogram.providers.recording", "openprogram.providers.replay"],
)
def test_the_fields_replay_never_compares_import_from_where_the_seed_puts_them(facade: str) -> None:
    """`from openprogram.providers import NON_DETERMINISTIC_FIELD_NAMES` (and the two others)."""
    names: dict[str, object] = {}
    exec(f"from {facade} import NON_DETERMINISTIC_FIELD_NAMES", names)
    assert names["NON_DETERMINISTIC_FIELD_NAMES"] is NON_DETERMINISTIC_FIELD_NAMES
    assert "NON_DETERMINISTIC_FIELD_NAMES" in importlib.import_module(facade).__all__
    assert find_first_difference({"timestamp": 1}, {"timestamp": 2}) is None
