"""A user's expression runs on RE2 and its replacement reads as `re.sub` reads it."""

from __future__ import annotations

import re

import pytest

from openprogram.providers.recording.rule_expressions import RuleExpressionError, user_rewrite

SAME_AS_RE = [
    (r"(?P<w>\w+)@(\w+)", r"\g<w> at \2 日\n\.\\ \t|\g<0>|\g<2>", "joe@host é x@y"),
    (r"a*", "-", "baac"),
    (r"", "<>", "héllo"),
    (r"(a)|b", r"[\1]", "abab"),
    (r"\d+", r"\\n", "a1b22"),
    (r"(run )\d+", r"\1<changed>", "run 41 done, run 7"),
]


@pytest.mark.parametrize(("pattern", "replace", "text"), SAME_AS_RE)
def test_a_replacement_reads_as_re_sub_reads_it(pattern: str, replace: str, text: str) -> None:
    assert user_rewrite(pattern, replace).sub(text) == re.sub(pattern, replace, text)


@pytest.mark.parametrize(
    ("pattern", "replace", "part"),
    [("(?<=a)b", "x", "pattern"), ("(a)\\1", "x", "pattern"), ("(a", "x", "pattern"),
     ("a", r"\1", "replace"), ("a", r"\g<name>", "replace"), ("a", "\\", "replace"),
     ("a", r"\q", "replace"), ("a", r"\0", "replace")],
)  # fmt: skip
def test_what_cannot_be_used_is_refused_naming_the_part(
    pattern: str, replace: str, part: str
) -> None:
    with pytest.raises(RuleExpressionError) as refused:
        user_rewrite(pattern, replace)
    assert refused.value.part == part and "\n" not in str(refused.value)
