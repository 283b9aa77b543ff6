"""The text a Textual SVG screenshot shows, row by row: what a person reads, not its styling."""

from __future__ import annotations

import html
import re

_TEXT = re.compile(r'<text class="[^"]*-r\d+" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', re.S)


def svg_rows(svg: str) -> list[str]:
    """Each screen row of `svg` as text (trailing spaces dropped), top to bottom."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, content in _TEXT.findall(svg):
        rows.setdefault(float(y), []).append((float(x), html.unescape(content)))
    return [
        "".join(text for _, text in sorted(parts)).replace("\xa0", " ").rstrip()
        for _, parts in sorted(rows.items())
    ]
