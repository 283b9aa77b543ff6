"""`--json` output written a list item at a time is the document `json.dumps` writes (issue #39:
`show --json` and `diff --json` hold one call's JSON, not the whole document)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openprogram.cli.output import Output
from tests.hostile_recordings import write_chain
from tests.recording_files import subprocess_env

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


@pytest.mark.parametrize("view", [["show"], ["show", "--json"], ["show", "--textconv"]])
def test_a_reader_that_stops_early_gets_no_error(view: list[str], tmp_path: Path) -> None:
    # `openprogram recordings show --json FILE | head` printed `error: [Errno 32] Broken pipe`.
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    path = write_chain(tmp_path / "chain.jsonl", 2000)  # far more output than a pipe holds
    process = subprocess.Popen(
        [sys.executable, "-m", "openprogram", "recordings", *view, str(path)],
        env=subprocess_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()  # the first line, then the reader goes away
    process.stdout.close()
    errors = process.stderr.read()
    process.stderr.close()
    process.wait(timeout=120)
    assert errors == b""  # nor a traceback at exit, when the rest is flushed
