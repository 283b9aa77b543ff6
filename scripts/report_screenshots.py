"""Regenerate the PNG screenshots of the three HTML reports in `screenshots/`.

    python scripts/report_screenshots.py     # writes screenshots/report-*.png

The show report of the demo recording (its second call opened), a check report of the same
recording with a changed user message (the mismatch first), and the diff of the TUI's diff pair
(its first changed call opened), each at 1280x800 and 390x844, in Debian's chromium. Called by
`scripts/screenshots.py` too.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openprogram.html_report.page import write_page  # noqa: E402
from openprogram.html_report.reports import check_page, diff_page, show_page  # noqa: E402
from openprogram.providers import Context, Model  # noqa: E402
from openprogram.providers.recording.mismatch import ReplayMismatch  # noqa: E402
from openprogram.providers.recording.reader import read_recording  # noqa: E402
from openprogram.providers.recording.replayer import ReplayProvider  # noqa: E402
from openprogram.providers.recording.rules import NO_RULES  # noqa: E402
from openprogram.testing.ci_report import check_result  # noqa: E402

OUT = ROOT / "screenshots"
SIZES = {"wide": (1280, 800), "phone": (390, 844)}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def _mismatch_page(recording: Path) -> str:
    """A check of `recording` whose program now says something else in its first message."""
    call = read_recording(recording).calls[0]
    context = dict(call.request.context)
    messages = [dict(m) for m in context["messages"]]
    messages[0]["content"] = 'Please echo "good evening" and "see you".'
    context["messages"] = messages
    replay = ReplayProvider(recording, project_rules=False)

    async def run() -> ReplayMismatch:
        try:
            stream = replay.stream(
                Model.model_validate(call.request.model), Context.model_validate(context)
            )
            async for _ in stream:
                pass
        except ReplayMismatch as mismatch:
            return mismatch
        raise AssertionError("the changed message did not mismatch")

    mismatch = asyncio.run(run())
    result = check_result(
        recording="tests/recordings/test_agent/test_greets.jsonl",
        command="pytest --openprogram-record=none tests/test_agent.py::test_greets",
        cwd=Path("/home/me/agent"),
        calls_recorded=replay.recorded_call_count,
        calls_consumed=replay.call_count,
        duration_seconds=0.42,
        mismatch=mismatch.report,
        rules=NO_RULES.describe(),
    )
    return check_page(result, read_recording(recording).calls)


def pages(folder: Path) -> dict[str, tuple[Path, Callable[[Any], None]]]:
    from tests.tui.diff_fixtures import record_diff_pair
    from tui.model.demo import write_demo_recording

    demo = write_demo_recording(folder / "echo-demo.jsonl")
    a, b = asyncio.run(record_diff_pair(folder))
    from openprogram.cli.recordings_diff import diff_json_parts
    from openprogram.recordings.diff import diff_recordings

    head, compared = diff_json_parts(diff_recordings(a, b))
    head = {**head, "a": "before.jsonl", "b": "after.jsonl"}
    written = {
        "show": write_page(
            folder / "show.html",
            show_page(demo, "tests/recordings/test_agent/test_greets.jsonl")[0],
        ),
        "check": write_page(folder / "check.html", _mismatch_page(demo)),
        "diff": write_page(folder / "diff.html", diff_page(head, compared, b)),
    }

    def open_second_call(page: Any) -> None:
        page.locator("#calls tbody tr").nth(1).click()
        page.evaluate("window.scrollTo(0, 0)")

    def open_first_change(page: Any) -> None:
        page.locator("#diff tbody tr", has_text="changed").first.click()

    return {
        "show": (written["show"], open_second_call),
        "check": (written["check"], lambda page: None),
        "diff": (written["diff"], open_first_change),
    }


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="openprogram-report-shots-") as scratch:
        found = pages(Path(scratch))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for name, (page_file, prepare) in found.items():
                for size_name, (width, height) in SIZES.items():
                    tab = browser.new_page(viewport={"width": width, "height": height})
                    tab.goto(page_file.as_uri())
                    tab.wait_for_selector("#calls tbody tr")
                    prepare(tab)
                    target = OUT / f"report-{name}-{size_name}.png"
                    tab.screenshot(path=str(target))
                    tab.close()
                    print(f"wrote {target.relative_to(ROOT)}")
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
