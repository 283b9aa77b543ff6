"""Render a report page: one HTML file with its style, script and data inside it.

The data is JSON in `<script type="application/json">` blocks (one for the page, one per call,
one for the pool of distinct values), escaped so that no `<`, `>` or `&` appears in it: no text
of a recording can close the block or open a tag. A Content-Security-Policy allows only the
page's own style and script (by hash) and forbids every request.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from openprogram.html_report.data import Pool, call_details, compact_json
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.recording.state_files import atomic_write_parts, atomic_write_text

_ASSETS = resources.files("openprogram.html_report")


def _asset(name: str) -> str:
    return (_ASSETS / name).read_text(encoding="utf-8")


def script_json(value: Any) -> Markup:
    """`value` as JSON that is safe inside a script block (`<`, `>`, `&`, U+2028/9 escaped)."""
    return _script_safe(compact_json(value))


def _script_safe(text: str) -> Markup:
    """JSON `text` made safe inside a script block (`script_json`)."""
    for character, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                               ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(character, escaped)
    return Markup(text)


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


_ENVIRONMENT = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)


class CallDetails:
    """What the page holds of each call that opens (`call_details` as script JSON), built as the
    calls are handed in, one by one: their events are let go once written. A call whose base was
    handed in before it keeps its request as the file does (a reference); any other, whole."""

    def __init__(self) -> None:
        self.pool = Pool()
        self.blocks: dict[int, Markup] = {}

    def add(self, call: RecordedCall) -> None:
        self.blocks[call.call_index] = script_json(call_details(call, self.pool, self.blocks))

    @classmethod
    def of(cls, calls: Iterable[RecordedCall]) -> CallDetails:
        details = cls()
        for call in calls:
            details.add(call)
        return details


@dataclass(frozen=True)
class PageData:
    """What one page holds: `page`, shown first (title, facts, mismatch, diff); `rows`, the
    calls table (each row's `script_json`); `details`, the calls that open on demand; a diff
    page's `compared` calls (each pair's `script_json`). The table and the pairs are blocks of
    their own (the script's `page.calls` and `page.diff.calls`), written item by item: a long
    session's are never one document in memory."""

    page: dict[str, Any]
    details: CallDetails
    rows: Sequence[Markup]
    compared: Sequence[Markup] | None = None


def render(data: PageData) -> str:
    """The whole page."""
    return "".join(_parts(data))


def write_rendered(path: Path, data: PageData) -> Path:
    """`write_page(path, render(data))`, written part by part as the template makes them: the
    page is never held whole in memory (a long recording's page is many megabytes)."""
    atomic_write_parts(path, (part.encode("utf-8") for part in _parts(data)))
    return path


def _parts(data: PageData) -> Iterator[str]:
    style, script = _asset("page.css"), _asset("page.js")
    template = _ENVIRONMENT.from_string(_asset("page.html"))
    return template.generate(
        title=data.page["title"],
        style=Markup(style),
        script=Markup(script),
        style_hash=_sha256(style),
        script_hash=_sha256(script),
        page=script_json(data.page),
        rows=data.rows,
        pool=_script_safe(f"[{','.join(data.details.pool.texts)}]"),
        details=sorted(data.details.blocks.items()),
        compared=data.compared,
    )


def write_page(path: Path, html: str) -> Path:
    """Write the page atomically, private like the recordings it shows (it holds their requests)."""
    atomic_write_text(path, html)
    return path
