"""A real browser for the HTML report tests: Debian's chromium, driven by Playwright.

Playwright drives the system binary (`/usr/bin/chromium`, package `chromium`); nothing is
downloaded. Without it the tests skip naming the package, except in CI, where they fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require_chromium() -> str:
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    message = "Debian's chromium is not installed (apt-get install chromium)"
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off"):
        pytest.fail(message + ": CI must have it (.ci/run installs it)")
    pytest.skip(message)


@dataclass
class OpenedPage:
    """A page loaded from disk, with every console error and every request it tried."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@contextmanager
def chromium() -> Iterator[Any]:
    """The browser, for the `with` block only: Playwright's sync API runs an event loop in this
    thread while it is open, so make the files (which may use asyncio) before it."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_page(
    browser: Any, path: Path, width: int = 1280, height: int = 800, scheme: str = "light"
) -> OpenedPage:
    """Open `path` in a fresh context; requests other than the file itself are recorded and
    refused, console errors and page errors are kept."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    opened = OpenedPage(page)
    url = path.resolve().as_uri()

    def route(request_route: Any) -> None:
        if request_route.request.url == url:
            request_route.continue_()
        else:
            opened.requests.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    page.on(
        "console", lambda message: message.type == "error" and opened.errors.append(message.text)
    )
    page.on("pageerror", lambda error: opened.errors.append(str(error)))
    page.goto(url)
    return opened
