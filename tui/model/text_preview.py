"""One-line previews of text for list rows: control characters made visible, length bounded."""

from __future__ import annotations

from openprogram.text import shorten

PREVIEW_LIMIT = 60
_VISIBLE = str.maketrans({"\n": "⏎", "\r": "␍", "\t": "⇥"})


def preview_line(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """`text` on one line (newlines shown as ⏎), cut to `limit` characters with an ellipsis."""
    shown = text.translate(_VISIBLE)
    shown = "".join(ch if ch.isprintable() else "·" for ch in shown[: limit + 1])
    return shorten(shown, limit)
