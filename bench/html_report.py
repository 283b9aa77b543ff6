"""The HTML report of a 200-call agent session and of a 100 MB recording: size, first paint.

    python bench/html_report.py [--quick] [--keep-dir DIR]

For each recording: the time to write the page (`recordings show --html`, in process), the page's
size against the recording's, and in Debian's chromium (driven by Playwright, one run) the first
contentful paint, the time until the calls table has its first row, and the time to open the last
call. The 200-call session is an agent loop whose every call adds a 4 KB tool result: each request
repeats the whole conversation, which the page keeps once. One run, no target: the issue asks for
the figures (issue "Where CI failures are read").
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from _common import banner, parse_args, scratch_dir
from tui_sizes import generate

from openprogram.html_report.page import write_page
from openprogram.html_report.reports import show_page
from openprogram.providers import Context, Model, ToolResultMessage, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from openprogram.providers.types import TextContent
from openprogram.text import human_size

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def agent_session(path: Path, calls: int, result_bytes: int) -> Path:
    """`calls` calls, each request the whole conversation so far plus one new tool result."""
    sink = RecordingSink(path)
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), sink)

    async def run() -> None:
        messages: list = [UserMessage(content="Fix the failing test.")]
        for call in range(calls):
            async for _ in provider.stream(
                MODEL, Context(system_prompt="You fix code.", messages=messages)
            ):
                pass
            text = f"tool output {call}: " + ("x" * 63 + "\n") * (result_bytes // 64)
            messages = [*messages, ToolResultMessage(tool_call_id=f"c{call}", tool_name="run",
                                                     content=[TextContent(text=text)])]  # fmt: skip

    asyncio.run(run())
    sink.close()
    return path


def measure(label: str, recording: Path, folder: Path) -> None:
    started = time.perf_counter()
    html, scan = show_page(recording)
    page = write_page(folder / f"{recording.stem}.html", html)
    written = time.perf_counter() - started
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 800})
        tab.goto(page.as_uri())
        tab.wait_for_selector("#calls tbody tr")
        first_row = tab.evaluate("performance.now()")
        paint = tab.evaluate(
            "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime"
        )
        opened = time.perf_counter()
        tab.locator("#calls tbody tr").last.click()
        tab.wait_for_selector("#call h2")
        open_ms = (time.perf_counter() - opened) * 1000
        browser.close()
    print(f"{label}: {scan.facts.totals()}, recording {human_size(recording.stat().st_size)}")
    ratio = page.stat().st_size / recording.stat().st_size
    print(
        f"  page {human_size(page.stat().st_size)} ({ratio:.2f}× the recording), written in {written:.2f} s"
    )
    # Chromium may not have reported the first paint yet when the first row is there.
    painted = "not reported" if paint is None else f"{paint:.0f} ms"
    print(
        f"  chromium: first paint {painted}, first row {first_row:.0f} ms, last call opened in {open_ms:.0f} ms"
    )


def main() -> int:
    args = parse_args(__doc__, lambda p: p.add_argument("--keep-dir", type=Path, default=None))
    banner("HTML report: size and first paint")
    calls, size = (50, 10_000_000) if args.quick else (200, 100_000_000)
    with scratch_dir("html") as scratch:
        folder = args.keep_dir or scratch
        folder.mkdir(parents=True, exist_ok=True)
        session = folder / f"agent-{calls}.jsonl"
        if not session.exists():
            agent_session(session, calls, 4096)
        measure(f"agent session, {calls} calls × 4 KB tool results", session, folder)
        big = folder / f"big-{size // 1_000_000}M.jsonl"
        generate(big, size)
        measure(f"{size // 1_000_000} MB recording", big, folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
