"""Field patterns name request fields as a mismatch prints them, with `[*]`, `*` and `**`."""

from __future__ import annotations

import pytest

from openprogram.providers.recording.differences import format_field_path
from openprogram.providers.recording.field_patterns import (
    FieldPatternError,
    generalise_path,
    parse_field_path,
    parse_field_pattern,
)

PATH = ("context", "messages", 2, "content", 0, "text")


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("context.messages[2].content[0].text", PATH, True),
        ("context.messages[*].content[*].text", PATH, True),
        ("context.messages[1].content[*].text", PATH, False),
        ("context.*[2].content[0].text", PATH, True),
        ("**.text", PATH, True),
        ("**", PATH, True),
        ("context.**.text", PATH, True),
        ("**.content[*]", PATH, True),  # covers the block, so the text inside it
        ("context.messages", PATH, True),  # a container covers everything below it
        ("context.messages[*].role", PATH, False),
        ("context.messages.*", PATH, False),  # `*` is a key, never an index
        ("context.messages[*][*]", PATH, False),  # `[*]` is an index, never a key
        ("options.metadata.request_id", ("options", "metadata", "request_id"), True),
        ('options.headers["x.trace"]', ("options", "headers", "x.trace"), True),
        ('options.headers["x.trace"]', ("options", "headers", "x"), False),
        ("**.request_id", ("options", "metadata", "nested", "request_id"), True),
        ("**.request_id", ("options", "metadata", "request_ids"), False),
    ],
)
def test_patterns_match_the_paths_a_user_expects(
    pattern: str, path: tuple[str | int, ...], expected: bool
) -> None:
    assert parse_field_pattern(pattern).matches(path) is expected


def test_names_exactly_is_the_field_itself_not_its_container() -> None:
    assert parse_field_pattern("context.messages[*].content[*].text").names_exactly(PATH)
    assert not parse_field_pattern("context.messages").names_exactly(PATH)


@pytest.mark.parametrize("bad", ["", "context..messages", "context.messages[x]", "a b", "[*"])
def test_unreadable_patterns_name_the_pattern(bad: str) -> None:
    with pytest.raises(FieldPatternError, match="field pattern"):
        parse_field_pattern(bad)


def test_a_path_generalises_with_every_index_as_a_wildcard() -> None:
    assert generalise_path(PATH) == "context.messages[*].content[*].text"
    assert parse_field_pattern(generalise_path(PATH)).matches(PATH)


# -- field paths (`openprogram-tui --field`): patterns without wildcards --


@pytest.mark.parametrize(
    "tokens",
    [
        ("context", "messages", 2, "content", 0, "text"),
        ("options", "headers", "x-api-key"),
        ("options", "metadata", "a.b[c]"),
        ("weird", 'quote"and\\slash'),
        ("model",),
    ],
)
def test_field_paths_read_back_what_the_library_prints(tokens: tuple[str | int, ...]) -> None:
    assert parse_field_path(format_field_path(list(tokens))) == tokens


@pytest.mark.parametrize("text", ["", ".a", "a..b", "a.", "a[", "a[x]", "a b", "a[*]", "**.b"])
def test_a_bad_field_path_says_where(text: str) -> None:
    with pytest.raises(FieldPatternError) as caught:
        parse_field_path(text)
    assert "field path" in str(caught.value) and caught.value.pattern == text
