"""Small text helpers every layer shares: one line, sizes, plurals, and the secret placeholder.

This module imports nothing from the project, so the provider boundary, the record/replay layer,
the CLI and the TUI all use these same few functions.
"""

from __future__ import annotations

SECRET_PLACEHOLDER = "[secret removed]"
"""What a file, a message or a report holds where a secret was."""


def one_line(text: object, limit: int | None = None) -> str:
    """`text` on a single line (whitespace runs, newlines included, become one space), cut to
    `limit` characters with an ellipsis when given."""
    flat = " ".join(str(text).split())
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: limit - 1] + "…"


def human_size(size: int) -> str:
    """A byte count for people, in binary units: `512 B`, `1.5 KiB`, `3.2 MiB`, `1.1 GiB`."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def plural(count: int, noun: str) -> str:
    """`1 call`, `3 calls`, `1,200 events`."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")
