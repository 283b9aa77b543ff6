"""The HTML reports in a real browser (Debian's chromium): they load alone, show the recording as
text whatever it holds, and their search and folding work."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from openprogram.providers import Context, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from tests.browser import chromium, open_page
from tests.helpers import SCRIPTED_MODEL
from tests.recording_files import run_cli, subprocess_env, write_recording

HOSTILE = [
    "hello",
    "</script><script>document.title='PWNED'</script><img src=x onerror=alert(1)>",
    "\x1b]0;PWNED-TITLE\x07 clear\x1b[2J [bold red]x[/] <a href='https://evil.example'>link</a>",
    "bidi \u202eevil\u202c and zero\u200bwidth",
]


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openprogram", "recordings", *args],
        env=subprocess_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def show_report(tmp_path: Path, said: list[str]) -> Path:
    recording = write_recording(tmp_path / "session.jsonl", said=said)
    page = tmp_path / "session.html"
    done = cli(tmp_path / "home", "show", str(recording), "--html", str(page))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {page} ({len(said)} calls, {done.stdout.split(', ')[1]}"
    return page


def texts(page: Any, selector: str) -> list[str]:
    return [text.strip() for text in page.locator(selector).all_text_contents()]


def test_a_hostile_recording_is_shown_as_text_and_the_page_stays_its_own(tmp_path: Path) -> None:
    report = show_report(tmp_path, HOSTILE)
    with chromium() as browser:
        hostile_page_checks(open_page(browser, report), tmp_path)


def hostile_page_checks(opened: Any, tmp_path: Path) -> None:
    page = opened.page

    page.locator("#calls tbody tr").nth(1).click()
    page.locator("#calls tbody tr").nth(2).click()
    shown = page.locator("#call").text_content() or ""

    assert page.title() == str(tmp_path / "session.jsonl")  # nothing renamed the page
    # data, the calls table, pool, four calls, the script: none injected
    assert page.locator("script").count() == 4 + 4
    assert page.locator("img, a, iframe, object").count() == 0
    assert "[bold red]x[/]" in shown and "<a href='https://evil.example'>link</a>" in shown
    assert "␛]0;PWNED-TITLE␇" in shown and "␛[2J" in shown  # escapes shown, not acted on
    row = texts(page, "#calls tbody tr:nth-child(4) td.text")[0]
    assert row == "bidi <U+202E>evil<U+202C> and zero<U+200B>width"
    assert opened.errors == [] and opened.requests == []


def test_search_filters_the_calls_and_folding_builds_the_request_tree(tmp_path: Path) -> None:
    report = show_report(tmp_path, ["alpha question", "beta question", "gamma question"])
    with chromium() as browser:
        search_and_fold_checks(open_page(browser, report))


def search_and_fold_checks(opened: Any) -> None:
    page = opened.page
    assert page.locator("#count").text_content() == "3 calls"

    page.fill("#search", "beta")
    assert texts(page, "#calls tbody td.text") == ["beta question"]
    assert page.locator("#count").text_content() == "1 of 3 calls match"
    page.fill("#search", "echo-1")  # in every call's request (the model), not in the row text
    assert page.locator("#calls tbody tr").count() == 3

    page.locator("#calls tbody tr").first.click()
    page.get_by_role("button", name="Request").click()
    model = page.locator("#call details > summary", has_text="model:")
    assert model.count() == 1
    leaf = page.locator("#call .leaf", has_text='id: "echo-1"')
    assert leaf.count() == 0  # folded: its branch is not built yet
    model.click()
    expect(leaf).to_have_count(1)
    expect(leaf).to_be_visible()
    model.click()
    expect(leaf).to_be_hidden()
    assert opened.errors == [] and opened.requests == []


def test_the_diff_report_shows_each_changed_field_side_by_side(tmp_path: Path) -> None:
    a = write_recording(tmp_path / "a.jsonl", said=["hi", "what time is it"])
    b = write_recording(tmp_path / "b.jsonl", said=["hi", "what day is it"])
    report = tmp_path / "diff.html"
    done = cli(tmp_path / "home", "diff", str(a), str(b), "--html", str(report))
    assert done.returncode == 1, done.stderr  # they differ
    with chromium() as browser:
        diff_checks(open_page(browser, report, width=390, height=844))


def diff_checks(opened: Any) -> None:
    page = opened.page
    assert texts(page, "#diff tbody tr td:nth-child(3)") == ["same", "both_changed"]
    page.locator("#diff tbody tr").nth(1).click()
    assert texts(page, "#diff .panel .where")[0] == "context.messages[0].content"
    assert texts(page, "#diff .sides pre") == ['"what time is it"', '"what day is it"']
    assert opened.errors == [] and opened.requests == []


def test_the_page_holds_each_repeated_message_once(tmp_path: Path) -> None:
    """A long session repeats its history in every request; the page does not."""
    from openprogram.html_report.reports import show_page
    from openprogram.providers.recording.reader import scan_recording

    path = tmp_path / "long.jsonl"
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), path)

    async def run() -> None:
        messages: list[Any] = []
        for i in range(30):  # each call sends the whole conversation so far, as an agent's do
            messages.append(UserMessage(content=f"message {i} " + "x" * 2000))
            async for _ in provider.stream(SCRIPTED_MODEL, Context(messages=list(messages))):
                pass

    asyncio.run(run())
    provider.sink.close()
    scan = scan_recording(path)
    sent = sum(len(json.dumps(call.request.context)) for call in scan.calls)
    assert sent > 900_000  # 30 × 31 / 2 messages of 2 KB went out
    html, _ = show_page(path)
    # Each distinct message once (30 × 2 KB), each answer in its events and its message (2 × 30 ×
    # 2 KB), and the page itself (its script and style, under 60 KB): linear in what was said.
    assert len(html.encode()) < 30 * 2_100 * 3 + 60_000


@pytest.mark.parametrize("text", ["</script>", "<!--", "\u2028", "&amp;"])
def test_no_recorded_text_can_end_a_data_block(tmp_path: Path, text: str) -> None:
    from openprogram.html_report.reports import show_page

    recording = write_recording(tmp_path / "s.jsonl", said=[f"a {text} b"])
    html, _ = show_page(recording)
    data = html.split('<script type="application/json" id="call-0">', 1)[1].split("</script>")[0]
    assert text not in data
    assert json.loads(data)  # still the JSON the page reads


def test_check_html_opens_on_the_mismatching_field(tmp_path: Path) -> None:
    home = tmp_path / "home"
    recorded = run_cli(home, "record", "--name", "echo-html", "--", sys.executable,
                       "examples/echo_agent.py", "hi")  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    page_file = tmp_path / "check.html"
    checked = run_cli(home, "check", "echo-html", "--html", str(page_file), "--",
                      sys.executable, "examples/echo_agent.py", "bye")  # fmt: skip
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.splitlines()[-1] == f"wrote {page_file}"
    with chromium() as browser:
        opened = open_page(browser, page_file, width=390, height=844)
        page = opened.page
        assert page.locator("#verdict .status").text_content() == "mismatch"
        where = page.locator("#verdict .where")
        assert where.is_visible()  # on first paint, even on a phone
        assert where.text_content() == "call 1 · field context.messages[2].content[0].text"
        assert page.locator("#verdict .sides pre").all_text_contents() == [
            '"echo:hi"',
            '"echo:bye"',
        ]
        assert opened.errors == [] and opened.requests == []


def test_the_timeline_has_a_bar_per_call_that_opens_it_or_says_times_are_missing(
    tmp_path: Path,
) -> None:
    from openprogram.html_report.page import write_page
    from openprogram.html_report.reports import show_page

    timed = write_recording(tmp_path / "timed.jsonl", said=["one", "two", "three"])
    untimed = tmp_path / "untimed.jsonl"  # as a migrated recording: no time fields at all
    rows = [json.loads(line) for line in timed.read_text().splitlines()]
    for row in rows:
        for key in ("ms", "start_ms", "duration_ms"):
            row.pop(key, None)
    untimed.write_text("".join(json.dumps(row) + "\n" for row in rows))
    pages = {
        name: write_page(tmp_path / f"{name}.html", show_page(path)[0])
        for name, path in (("timed", timed), ("untimed", untimed))
    }
    with chromium() as browser:
        opened = open_page(browser, pages["timed"])
        page = opened.page
        assert page.locator("#bars .call").count() == 3
        page.locator("#bars .call").nth(1).click()
        assert page.locator("#call h2").text_content() == "call 1 · complete"
        assert "in the model" in (page.locator("#timeline-note").text_content() or "")
        assert opened.errors == [] and opened.requests == []
        opened = open_page(browser, pages["untimed"])
        page = opened.page
        assert page.locator("#timeline-note").text_content() == "times not recorded in this file"
        assert page.locator("#calls tbody td", has_text="not recorded").count() == 6  # took, first
        assert opened.errors == []


def test_the_show_report_marks_the_call_whose_prompt_cache_prefix_broke(tmp_path: Path) -> None:
    from tests.recordings.prompt_cache_sessions import record_session

    def edit(call: int, messages: list[Any]) -> None:
        if call == 3:
            messages[0] = UserMessage(content="Plan something else.")

    recording = record_session(tmp_path / "session.jsonl", 5, before_call=edit)
    page_file = tmp_path / "session.html"
    done = cli(tmp_path / "home", "show", str(recording), "--html", str(page_file))
    assert done.returncode == 0, done.stderr
    with chromium() as browser:
        opened = open_page(browser, page_file)
        page = opened.page
        facts = page.locator("body").text_content() or ""
        assert "prompt cache" in facts and "prefix broke on 1 of 5 calls" in facts
        cells = texts(page, "#calls tbody td.cache-break")
        assert len(cells) == 1 and cells[0].startswith("⚠ ")
        page.locator("#calls tbody tr").nth(3).click()
        said = texts(page, "#call p.cache-break")
        assert said and said[0].startswith(
            "the prompt-cache prefix broke: a message edited at context.messages[0].content"
        )
        page.locator("#calls tbody tr").nth(2).click()
        assert page.locator("#call p.cache-break").count() == 0
        assert opened.errors == [] and opened.requests == []


def test_the_check_page_shows_the_suggested_rule_as_its_line() -> None:
    """The page's script shows `mismatch.suggestion` as text: the one line, not the typed value."""
    from openprogram.html_report.reports import check_page
    from openprogram.providers.recording.differences import FieldDifference
    from openprogram.providers.replay import MismatchReport
    from openprogram.recordings import CheckResult

    recorded = {"model": {}, "context": {"system_prompt": "on 2026-12-01"}, "options": None}
    incoming = {"model": {}, "context": {"system_prompt": "on 2026-12-02"}, "options": None}
    difference = FieldDifference(
        ("context", "system_prompt"), "on 2026-12-01", "on 2026-12-02", "changed"
    )
    result = CheckResult(
        status="mismatch",
        recording="said.jsonl",
        argv=["true"],
        cwd="/",
        calls_recorded=1,
        calls_consumed=0,
        never_requested=[],
        duration_seconds=0.1,
        exit_code=1,
        mismatch=MismatchReport.of_difference(0, difference, recorded, incoming),
        error=None,
        stderr_tail=[],
    )
    html = check_page(result, ())
    data = html.split('<script type="application/json" id="page-data">', 1)[1].split("</script>")[0]
    mismatch = json.loads(data)["check"]["mismatch"]
    assert mismatch["suggestion"] == "normalize context.system_prompt iso-datetime"
