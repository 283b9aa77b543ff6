"""`--openprogram-unused`: recordings no collected test uses, listed after a whole-suite run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from tests.plugin.inner_project import InnerProject
from tests.recording_files import subprocess_env


def recorded_with_a_leftover(inner: InnerProject) -> None:
    inner.run("--openprogram-record=once").assert_outcomes(passed=2)
    folder = inner.recording().parent
    shutil.copy(inner.recording(), folder / "test_removed_long_ago.jsonl")
    (folder / ".test_loop.jsonl.abc.partial").write_text("")  # a partial file is not a recording


def test_a_recording_no_collected_test_uses_is_listed_and_fails_the_run_when_asked(
    inner: InnerProject,
) -> None:
    recorded_with_a_leftover(inner)

    warned = inner.run("--openprogram-unused=warn")
    warned.assert_outcomes(passed=2)
    assert warned.ret == 0
    warned.stdout.fnmatch_lines(
        [
            "*recordings no collected test uses*",
            "recordings/test_inner_echo/test_removed_long_ago.jsonl",
            "1 unused; `openprogram recordings prune --unused` removes them",
        ]
    )

    failed = inner.run("--openprogram-unused=fail")
    failed.assert_outcomes(passed=2)
    assert failed.ret == 1
    failed.stdout.fnmatch_lines(["*this fails the run: --openprogram-unused=fail*"])


def test_under_xdist_the_workers_collection_is_reported_by_the_controller(
    inner: InnerProject,
) -> None:
    recorded_with_a_leftover(inner)
    failed = inner.run("-n", "2", "--openprogram-unused=fail")
    failed.assert_outcomes(passed=2)
    assert failed.ret == 1
    failed.stdout.fnmatch_lines(["recordings/test_inner_echo/test_removed_long_ago.jsonl"])


def test_a_narrowed_run_does_not_guess(inner: InnerProject) -> None:
    recorded_with_a_leftover(inner)
    deselected = inner.run("-k", "loop_sync", "--openprogram-unused=fail")
    assert deselected.ret == 0
    deselected.stdout.fnmatch_lines(
        ["openprogram: unused recordings not checked: 1 test was deselected (-k, -m, --lf, ...)"]
    )
    by_path = inner.run("test_inner_echo.py", "--openprogram-unused=fail")
    assert by_path.ret == 0
    by_path.stdout.fnmatch_lines(
        ["openprogram: unused recordings not checked: test paths or ids were given*"]
    )


def test_when_every_recording_is_used_it_says_so_and_keeps_the_answer_for_prune(
    inner: InnerProject,
) -> None:
    inner.run("--openprogram-record=once").assert_outcomes(passed=2)
    done = inner.pytester.runpytest_subprocess(
        "-p", "no:textual-snapshot", "--openprogram-unused=warn"
    )
    assert done.ret == 0
    done.stdout.fnmatch_lines(["openprogram: every recording is used by a collected test"])
    cached = inner.path / ".pytest_cache" / "v" / "openprogram" / "unused"
    assert json.loads(cached.read_text()) == {"unused": [], "narrowed": None}


def prune(inner: InnerProject, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openprogram", "recordings", "prune", "--unused", *args],
        cwd=next(p for p in (inner.path / "recordings", inner.path) if p.is_dir()),  # or below
        env=subprocess_env(inner.path / "home"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_prune_unused_removes_what_the_last_complete_run_found_and_nothing_else(
    inner: InnerProject,
) -> None:
    nothing_yet = prune(inner)
    assert nothing_yet.returncode == 1
    assert "run the whole suite once with `pytest --openprogram-unused=warn` first" in (
        nothing_yet.stderr
    )
    recorded_with_a_leftover(inner)
    folder = inner.recording().parent
    (folder / "not_a_recording.jsonl").write_text('{"note": 1}\n')
    gone_module = inner.recording(module="test_module_removed").parent  # only a leftover in it
    gone_module.mkdir()
    shutil.copy(inner.recording(), gone_module / "test_old.jsonl")
    done = inner.pytester.runpytest_subprocess(
        "-p", "no:textual-snapshot", "--openprogram-unused=warn"
    )
    assert done.ret == 0

    dry = prune(inner, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"would delete {folder / 'test_removed_long_ago.jsonl'}" in dry.stdout
    assert f"skipped {folder / 'not_a_recording.jsonl'}: not a recording (no header row)" in (
        dry.stdout
    )
    refused = prune(inner)  # no terminal, no --yes: nothing is removed
    assert refused.returncode == 2 and (folder / "test_removed_long_ago.jsonl").exists()

    done = prune(inner, "--yes", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sorted(report["deleted"]) == sorted(
        [str(folder / "test_removed_long_ago.jsonl"), str(gone_module / "test_old.jsonl")]
    )
    assert not gone_module.exists() and folder.parent.is_dir()  # the emptied folder went too
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) == [
        "not_a_recording.jsonl",
        "test_loop.jsonl",
        "test_loop_sync.jsonl",
    ]
