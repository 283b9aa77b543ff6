"""`--json` output written a list item at a time is the document `json.dumps` writes (issue #39:
`show --json` and `diff --json` hold one call's JSON, not the whole document)."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from openprogram.cli.output import Output

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=12,
)


@given(
    before=st.dictionaries(st.text(), values, max_size=3),
    after=st.dictionaries(st.text(), values, max_size=3),
    items=st.lists(values, max_size=4),
)
def test_a_listing_written_item_by_item_is_the_document(
    before: dict[str, Any], after: dict[str, Any], items: list[Any]
) -> None:
    # Keys and strings may hold what the writer looks for (`\n  "calls": []`): JSON escapes it.
    data = {**before, "calls": [], **{k: v for k, v in after.items() if k != "calls"}}
    whole, parts = io.StringIO(), io.StringIO()
    Output(whole).json({**data, "calls": items})
    Output(parts).json_listing(data, "calls", iter(items))
    assert parts.getvalue() == whole.getvalue()


def test_a_key_named_like_the_marker_inside_a_string_is_not_the_listing() -> None:
    data = {"note": '\n  "calls": []', "calls": [], "end": {"calls": []}}
    whole, parts = io.StringIO(), io.StringIO()
    Output(whole).json({**data, "calls": [{"a": 1}, [2, 3]]})
    Output(parts).json_listing(data, "calls", [{"a": 1}, [2, 3]])
    assert parts.getvalue() == whole.getvalue()
    assert json.loads(parts.getvalue())["end"] == {"calls": []}
