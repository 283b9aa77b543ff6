"""The call list's `cache` cell and the detail's prompt-cache line (no Textual)."""

from __future__ import annotations

from decimal import Decimal

from openprogram.recordings.prompt_cache import CallCache, PrefixBreak
from tui.model.call_columns import cache_cell, cache_line


def _fact(prefix_break: PrefixBreak | None) -> CallCache:
    return CallCache(12, 11, 2, prefix_break, 960, 138, 819, 882, 744, Decimal("0.0026"))


def test_the_cell_is_the_share_read_marked_where_the_prefix_broke() -> None:
    assert cache_cell(_fact(None)) == "14%"
    assert cache_cell(_fact(PrefixBreak("message_edited", "context.messages[2].content"))) == "⚠14%"
    assert cache_cell(None) == "–"


def test_the_detail_says_where_why_and_what_it_cost_and_a_key_from_the_file_stays_text() -> None:
    said = cache_line(_fact(PrefixBreak("context_changed", 'context["\x1b[2Jx\u202e"]')))
    assert said.startswith("⚠ prompt cache broke after call 11: the context changed at context[")
    assert "\x1b" not in said and "\u202e" not in said and "␛[2J" in said
    assert "could read 882, read 138 · lost 744 (+$0.0026)" in said
