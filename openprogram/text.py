"""Small text helpers every layer shares: one line, a cut, sizes, plurals, the secret placeholder,
the `--` that ends a command line's own options, and a name made safe for a file.

This module imports nothing from the project, so the provider boundary, the record/replay layer,
the CLI and the TUI all use these same few functions.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

SECRET_PLACEHOLDER = "[secret removed]"
"""What a file, a message or a report holds where a secret was."""


def one_line(text: object, limit: int | None = None) -> str:
    """`text` on a single line (whitespace runs, newlines included, become one space), cut to
    `limit` characters with an ellipsis when given."""
    flat = " ".join(str(text).split())
    return flat if limit is None else shorten(flat, limit)


def shorten(text: str, limit: int) -> str:
    """`text` when it has at most `limit` characters, else its first `limit - 1` and an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def split_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Our own arguments, and the COMMAND after the first `--` (`check ID -- python agent.py`):
    what follows `--` is the program's, untouched by our option parsing."""
    words = list(argv)
    if "--" not in words:
        return words, []
    cut = words.index("--")
    return words[:cut], words[cut + 1 :]


_UNSAFE_FILE_CHARACTERS = re.compile(r"[^\w.,=+\-\[\]]")
MAX_STEM = 120


def file_stem(name: str) -> str:
    """`name` as a file name; a short hash keeps it unique when characters had to be replaced."""
    stem = _UNSAFE_FILE_CHARACTERS.sub("_", name.replace("::", "."))
    if stem != name.replace("::", ".") or len(stem) > MAX_STEM:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
        stem = f"{stem[:MAX_STEM]}-{digest}"
    return stem
