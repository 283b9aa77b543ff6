"""Small valid files whose references expand (issue #39): every surface opens them in memory
bounded by the file, not by calls × conversation.

Fan-out: call 0 holds 9,000 messages and 8,999 calls each keep all of them (a 2 MB file; rebuilt
naively, 81 million message references, 650 MB of lists). Chain: call i keeps every message of call
i-1 and adds one (14,000 calls, a 3.5 MB file; rebuilt naively, 98 million references). Each
surface runs in a subprocess whose address space is capped at 600 MB, which the interpreter and
its imports leave roomy for anything proportional to the file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile_recordings import write_chain, write_fan_out
from tests.peak_memory import peak_rss as measured_peak
from tests.recording_files import REPO_ROOT, subprocess_env
from tests.recording_files import run_capped as capped_run

CAP = 600 << 20
FAN_OUT = 9000
CHAIN = 14000


def run_capped(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return capped_run(home, CAP, *argv, timeout=240)


SHAPES: dict[str, tuple[Callable[[Path], Path], int, int]] = {
    # name: (writer, calls, messages in the last call's request)
    "fan-out": (lambda p: write_fan_out(p, FAN_OUT, FAN_OUT, answers=False), FAN_OUT, FAN_OUT),
    "chain": (lambda p: write_chain(p, CHAIN, answers=False), CHAIN, CHAIN),
}


@pytest.fixture(scope="module", params=list(SHAPES))
def shape(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    writer, calls, messages = SHAPES[request.param]
    home = tmp_path_factory.mktemp("home")
    home.chmod(0o700)
    managed = home / "recordings"
    managed.mkdir(mode=0o700)
    path = writer(managed / "hostile.jsonl")
    copy = tmp_path_factory.mktemp("copy") / "copy.jsonl"
    shutil.copyfile(path, copy)
    return {"home": home, "path": path, "copy": copy, "calls": calls, "messages": messages}


def cli(shape: dict, *args: str) -> subprocess.CompletedProcess[str]:
    return run_capped(shape["home"], sys.executable, "-m", "openprogram", "recordings", *args)


def test_show_lists_every_call(shape: dict) -> None:
    shown = cli(shape, "show", str(shape["path"]))
    assert shown.returncode == 0, shown.stderr[-500:]
    last = shape["calls"] - 1
    assert any(line.split()[:1] == [str(last)] for line in shown.stdout.splitlines())
    assert "valid" in shown.stdout


def test_show_json_has_every_call(shape: dict) -> None:
    shown = cli(shape, "show", "--json", str(shape["path"]))
    assert shown.returncode == 0, shown.stderr[-500:]
    calls = json.loads(shown.stdout)["calls"]
    assert len(calls) == shape["calls"] and calls[-1]["first_user_text"] == "m0"


def test_show_html_writes_the_page_with_references(shape: dict, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    shown = cli(shape, "show", "--html", str(page), str(shape["path"]))
    assert shown.returncode == 0, shown.stderr[-500:]
    html = page.read_text()
    assert f'id="call-{shape["calls"] - 1}"' in html
    assert len(html) < 20 * shape["path"].stat().st_size  # the requests as the file holds them


def peak_rss(home: Path, *args: str) -> int:
    """The peak resident memory, in bytes, of `openprogram recordings ARGS…` run alone."""
    argv = [sys.executable, "-m", "openprogram", "recordings", *args]
    peak, code = measured_peak(argv, env=subprocess_env(home), cwd=REPO_ROOT)
    assert code == 0, args
    return peak


def test_show_html_memory_grows_with_the_file_not_the_page(shape: dict, tmp_path: Path) -> None:
    # Peak RSS against the same command on a one-call file (the interpreter and its imports).
    # The page written as it is rendered, each row of the calls table kept as its page text:
    # 11× (fan-out) and 9× (chain) the file (these calls have no answer: ~220 bytes a call);
    # with the table's rows as dicts, 18× and 16×; holding the page whole, 25× and 28×.
    one = write_chain(tmp_path / "one.jsonl", 1, answers=False)
    baseline = peak_rss(shape["home"], "show", "--html", str(tmp_path / "one.html"), str(one))
    peak = peak_rss(
        shape["home"], "show", "--html", str(tmp_path / "page.html"), str(shape["path"])
    )
    assert peak - baseline < 14 * shape["path"].stat().st_size


def test_textconv_has_a_block_per_call(shape: dict) -> None:
    shown = cli(shape, "show", "--textconv", str(shape["path"]))
    assert shown.returncode == 0, shown.stderr[-500:]
    assert f"## call {shape['calls'] - 1} " in shown.stdout


def test_list_and_scan(shape: dict) -> None:
    listed = cli(shape, "list")
    assert listed.returncode == 0 and "hostile" in listed.stdout, listed.stderr[-500:]
    scanned = cli(shape, "scan", str(shape["path"]))
    assert scanned.returncode == 0 and "no secrets found" in scanned.stdout, scanned.stderr[-500:]


def test_check_reads_it_and_reports_the_calls_not_made(shape: dict) -> None:
    checked = cli(shape, "check", "hostile", "--json", "--", sys.executable, "-c", "pass")
    assert checked.returncode == 1, checked.stderr[-500:]
    assert json.loads(checked.stdout)["status"] == "incomplete"


def test_diff_of_a_copy_is_same_everywhere(shape: dict, tmp_path: Path) -> None:
    compared = cli(shape, "diff", "--json", str(shape["path"]), str(shape["copy"]))
    assert compared.returncode == 0, compared.stderr[-500:]
    summary = json.loads(compared.stdout)["summary"]
    assert summary["same"] == shape["calls"]
    printed = cli(shape, "diff", str(shape["path"]), str(shape["copy"]))
    assert printed.returncode == 0, printed.stderr[-500:]
    assert f"{shape['calls']} same · 0 request changed" in printed.stdout
    page = tmp_path / "diff.html"
    written = cli(shape, "diff", "--html", str(page), str(shape["path"]), str(shape["copy"]))
    assert written.returncode == 0, written.stderr[-500:]
    assert f'id="call-{shape["calls"] - 1}"' in page.read_text()


def test_diff_html_holds_the_compared_calls_once(shape: dict, tmp_path: Path) -> None:
    # Peak RSS against the same command on one-call files. These shapes' calls have no answer
    # (about 220 bytes a call), so per-call numbers weigh more than the file: the page made of
    # each compared call's and each table row's page text (the diff let go before B is read
    # for the calls that open) peaks at 19× (fan-out) and 15× (chain) the file; with the
    # table's rows as dicts, 25× and 21×; the diff's JSON held as built, as its sanitised copy
    # and as page text beside B's page data, 56× and 54×.
    one, one_copy = (write_chain(tmp_path / f"{name}.jsonl", 1, answers=False) for name in "ab")
    html = str(tmp_path / "diff.html")
    baseline = peak_rss(shape["home"], "diff", "--html", html, str(one), str(one_copy))
    peak = peak_rss(shape["home"], "diff", "--html", html, str(shape["path"]), str(shape["copy"]))
    assert peak - baseline < 23 * shape["path"].stat().st_size


DIFF_CAP = 220 << 20
"""`diff A B` of a 14,000-call chain whose calls each answer (8.8 MB) against a copy: measured,
it needs 160–180 MB of address space for the text and for `--json`; reading both files whole,
with every call's events, took 220–260 MB for the text and over 300 MB for `--json`."""


@pytest.fixture(scope="module")
def answered_chain(tmp_path_factory: pytest.TempPathFactory) -> dict:
    home = tmp_path_factory.mktemp("home")
    home.chmod(0o700)
    path = write_chain(home / "chain.jsonl", CHAIN)
    copy = home / "copy.jsonl"
    shutil.copyfile(path, copy)
    return {"home": home, "path": path, "copy": copy}


@pytest.mark.parametrize("output", ["text", "--json"])
def test_diff_keeps_no_events_of_two_answered_files(answered_chain: dict, output: str) -> None:
    """Each call's answer is folded as it is read and its events let go: two files of 14,000
    answered calls are compared under a cap that every call's events of both files exceed."""
    files = [str(answered_chain["path"]), str(answered_chain["copy"])]
    argv = ["diff", *files] if output == "text" else ["diff", "--json", *files]
    compared = capped_run(
        answered_chain["home"],
        DIFF_CAP,
        sys.executable,
        "-m",
        "openprogram",
        "recordings",
        *argv,
        timeout=240,
    )
    assert compared.returncode == 0, compared.stderr[-500:]
    if output == "text":
        assert f"{CHAIN} same · 0 request changed" in compared.stdout
        assert f"tokens A {CHAIN * 3} in / {CHAIN * 2} out" in compared.stdout
    else:
        summary = json.loads(compared.stdout)["summary"]
        assert summary["same"] == CHAIN and summary["tokens_b"]["output"] == CHAIN * 2


def test_replay_provider_opens_it_and_serves_the_last_request(shape: dict) -> None:
    code = (
        "import sys\nfrom openprogram.providers.replay import ReplayProvider\n"
        "replay = ReplayProvider(sys.argv[1])\n"
        "calls = replay.recording.calls\n"
        "print(len(calls), len(calls[-1].request.context['messages']))\n"
    )
    opened = run_capped(shape["home"], sys.executable, "-c", code, str(shape["path"]))
    assert opened.returncode == 0, opened.stderr[-500:]
    assert opened.stdout.split() == [str(shape["calls"]), str(shape["messages"])]


def test_the_tui_opens_it_goes_to_the_last_call_sorts_and_shows_the_timeline(
    shape: dict,
) -> None:
    walked = run_capped(shape["home"], sys.executable, "-m", "tests.tui_walk", str(shape["path"]))
    assert walked.returncode == 0, walked.stderr[-2000:]
    seen = json.loads(walked.stdout.splitlines()[-1])
    assert seen["last_call"] == shape["calls"] - 1
    assert seen["messages"] == shape["messages"] and seen["request_problem"] is None
    assert seen["sorted_by"] == "cost"


def test_cache_report_follows_the_rows_without_rebuilding_requests(shape: dict) -> None:
    reported = cli(shape, "cache", "--json", str(shape["path"]))
    assert reported.returncode == 0, reported.stderr[-500:]
    report = json.loads(reported.stdout)
    assert report["totals"]["calls"] == shape["calls"]
    assert report["totals"]["broken_calls"] == 0 and report["breaks"] == []
    # Every message the predecessor sent was kept (the chain's last call adds one of its own).
    assert report["calls"][-1]["kept_messages"] >= shape["messages"] - 1
