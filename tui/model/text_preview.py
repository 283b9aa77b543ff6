"""One-line previews of text for list rows: control characters made visible, length bounded."""

from __future__ import annotations

PREVIEW_LIMIT = 60
_VISIBLE = str.maketrans({"\n": "⏎", "\r": "␍", "\t": "⇥"})


def one_line(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """`text` on one line (newlines shown as ⏎), cut to `limit` characters with an ellipsis."""
    shown = text.translate(_VISIBLE)
    shown = "".join(ch if ch.isprintable() else "·" for ch in shown[: limit + 1])
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def human_size(size: int) -> str:
    """Bytes for people: `812 B`, `4.2 KB`, `98.4 MB`."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def plural(count: int, noun: str) -> str:
    """`1 call`, `3 calls`."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")
