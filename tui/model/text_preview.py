"""One-line previews of text for list rows: control characters made visible, length bounded."""

from __future__ import annotations

from openprogram.text import shorten
from openprogram.visible_text import visible_line

PREVIEW_LIMIT = 60


def preview_line(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """`text` on one line, as `visible_line` shows it (newlines as `␊`, tabs as `␉`, escapes and
    other controls as visible marks), cut to `limit` characters with an ellipsis."""
    shown = visible_line(text[: limit + 1])
    shown = "".join(ch if ch.isprintable() else f"<U+{ord(ch):04X}>" for ch in shown)
    return shorten(shown, limit)
