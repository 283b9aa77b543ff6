"""The one bounded memo: the least recently used entries are forgotten first, by count and by
weight (the readers' parsed rows, built requests and remembered calls are bounded by it)."""

from __future__ import annotations

from openprogram.recently_used import RecentlyUsed


def test_the_entry_used_last_is_kept_and_the_least_recently_used_forgotten() -> None:
    memo: RecentlyUsed[int, str] = RecentlyUsed(2)
    memo.put(1, "one")
    memo.put(2, "two")
    assert memo.get(1) == "one"  # 1 is now used after 2
    memo.put(3, "three")
    assert (1 in memo, 2 in memo, 3 in memo) == (True, False, True)
    assert memo.get(2) is None and len(memo) == 2


def test_weights_bound_the_memo_and_a_replaced_entry_counts_once() -> None:
    memo: RecentlyUsed[str, bytes] = RecentlyUsed(None, weight_limit=10)
    memo.put("a", b"aaaa", weight=4)
    memo.put("a", b"aaaa", weight=4)  # the same row read again: 4, not 8
    memo.put("b", b"bbbbb", weight=5)
    assert len(memo) == 2
    memo.put("c", b"ccc", weight=3)  # 4 + 5 + 3 > 10: the least recently used goes
    assert ("a" in memo, "b" in memo, "c" in memo) == (False, True, True)
    memo.clear()
    memo.put("d", b"d" * 10, weight=10)  # the weights were forgotten with the entries
    assert "d" in memo and len(memo) == 1


def test_no_limit_keeps_everything() -> None:
    memo: RecentlyUsed[int, int] = RecentlyUsed(None)
    for n in range(1000):
        memo.put(n, n)
    assert len(memo) == 1000 and memo.get(0) == 0
