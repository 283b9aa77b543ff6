"""`openprogram recordings scan` as a user and a pre-commit hook run it (real git, real processes)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.cli.test_hostile_text import git
from tests.recording_files import REPO_ROOT, subprocess_env, write_recording

KEY = "sk-proj-a1B2c3D4e5F6g7H8i9J0"


def plant(path: Path, text: str = KEY) -> Path:
    """A recording edited by hand afterwards: the user message holds `text` again."""
    write_recording(path, said=["hello"])
    lines = path.read_text(encoding="utf-8").splitlines()
    request = json.loads(lines[1])
    request["context"]["messages"][0]["content"] = f"my key is {text}"
    lines[1] = json.dumps(request)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def scan(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openprogram", "recordings", "scan", *args],
        cwd=cwd,
        env=subprocess_env(cwd / "home"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "tests" / "recordings").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("home/\nignored/\n")
    write_recording(repo / "tests" / "recordings" / "clean.jsonl")
    (repo / "notes.jsonl").write_text('{"note": "not a recording"}\n')
    return repo


def test_without_paths_the_repository_recordings_are_scanned_and_the_key_is_never_shown(
    tmp_path: Path,
) -> None:
    repo = repository(tmp_path)
    plant(repo / "tests" / "recordings" / "leaky.jsonl")
    (repo / "ignored").mkdir()
    plant(repo / "ignored" / "private.jsonl")  # git ignores it: not part of the repository

    done = scan(repo)

    assert done.returncode == 1, done.stderr
    assert KEY not in done.stdout + done.stderr
    leaky = repo / "tests" / "recordings" / "leaky.jsonl"
    assert done.stdout.splitlines() == [
        f"{leaky}:2: call 0, field context.messages[0].content: OpenAI / Anthropic key",
        "1 finding in 1 file (2 files scanned); the values are not shown",
    ]


def test_json_lists_what_was_scanned_and_found(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    planted = plant(repo / "a.jsonl")
    document = json.loads(scan(repo, "--json", str(planted)).stdout)
    assert document["scanned"] == [str(planted)]
    assert [(f["line"], f["call_index"], f["kind"]) for f in document["findings"]] == [
        (2, 0, "OpenAI / Anthropic key")
    ]
    assert document["unreadable"] == []


def test_a_clean_repository_exits_0_and_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    clean = scan(repo)
    assert (clean.returncode, clean.stdout) == (0, "no secrets found in 1 file\n")
    (repo / "gone.jsonl").symlink_to(repo / "missing.jsonl")
    refused = scan(repo, str(repo / "gone.jsonl"))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: recording file {repo / 'gone.jsonl'}: is a symlink; refusing to follow it\n"
    )


def pre_commit_env(repo: Path) -> dict[str, str]:
    """pre-commit's own cache inside the test's folder; `openprogram` found on PATH, as where a
    user commits from the environment their tests replay in."""
    env = {**subprocess_env(repo / "home"), "PRE_COMMIT_HOME": str(repo.parent / "pre-commit")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@e", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)}
    return env


def test_the_documented_pre_commit_hook_refuses_a_commit_of_a_recording_holding_a_key(
    tmp_path: Path,
) -> None:
    """Real pre-commit, with the `.pre-commit-config.yaml` docs/cli.md gives."""
    cli_md = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    config = re.search(r"```yaml\n(repos:\n  - repo: local\n.*?)```", cli_md, re.DOTALL)
    assert config is not None
    repo = repository(tmp_path)
    (repo / ".pre-commit-config.yaml").write_text(config[1])
    env = pre_commit_env(repo)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, timeout=120)

    assert run(sys.executable, "-m", "pre_commit", "install").returncode == 0
    run("git", "add", ".gitignore", ".pre-commit-config.yaml", "tests")
    first = run("git", "commit", "-qm", "clean recordings")
    assert first.returncode == 0, first.stdout + first.stderr

    plant(repo / "tests" / "recordings" / "leaky.jsonl")
    run("git", "add", "tests")
    refused = run("git", "commit", "-qm", "a leaky recording")

    assert refused.returncode != 0
    shown = refused.stdout + refused.stderr
    assert "tests/recordings/leaky.jsonl:2: call 0, field context.messages[0].content" in shown
    assert KEY not in shown
    assert run("git", "log", "--oneline").stdout.count("\n") == 1  # the commit was not made


def test_the_published_hook_runs_the_scan_on_the_staged_recordings(tmp_path: Path) -> None:
    """`.pre-commit-hooks.yaml` (for a remote `repo:` entry) runs the same command on the same
    files; pre-commit would install it from the package index, so the test runs its entry with
    the staged files that match its `files` pattern, as pre-commit does."""
    hooks = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text()
    entry = re.search(r"^\s+entry: (.+)$", hooks, re.MULTILINE)
    files = re.search(r"^\s+files: (.+)$", hooks, re.MULTILINE)
    assert entry and files and "id: openprogram-scan" in hooks
    assert entry[1] == "openprogram recordings scan"
    repo = repository(tmp_path)
    plant(repo / "tests" / "recordings" / "leaky.jsonl")
    staged = [p for p in ("tests/recordings/leaky.jsonl", "README.md") if re.search(files[1], p)]
    done = subprocess.run(
        [*shlex.split(entry[1]), *staged],
        cwd=repo,
        env=pre_commit_env(repo),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout.startswith("tests/recordings/leaky.jsonl:2: call 0, field context.")


def test_a_key_used_as_a_json_object_key_is_found_and_printed_nowhere(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    path = write_recording(repo / "keys.jsonl", said=["hello"])
    lines = path.read_text(encoding="utf-8").splitlines()
    request = json.loads(lines[1])
    request["options"] = {"metadata": {KEY: "m"}}
    request["model"]["headers"] = {KEY: "h"}
    lines[1] = json.dumps(request)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    plain, as_json = scan(repo, str(path)), scan(repo, "--json", str(path))

    assert (plain.returncode, as_json.returncode) == (1, 1)
    assert KEY not in plain.stdout + plain.stderr + as_json.stdout + as_json.stderr
    fields = sorted(f["field"] for f in json.loads(as_json.stdout)["findings"])
    assert fields == ['model.headers["[secret removed]"]', 'options.metadata["[secret removed]"]']


def test_a_finding_names_the_message_as_the_full_request_numbers_it(tmp_path: Path) -> None:
    """Issue #42, item 7: call 1's row keeps call 0's two messages and stores only its new one; the
    scan names that message by its place in the full request, as `show`, `check` and the TUI do."""
    model = {"api": "scripted", "id": "echo-1", "provider": "scripted"}
    rows = [
        {"format_version": 2, "type": "header"},
        {
            "call_index": 0,
            "context": {"messages": [{"role": "user", "content": "one"}] * 2},
            "model": model,
            "options": None,
            "type": "request",
        },
        {"call_index": 0, "event_count": 0, "outcome": "complete", "type": "call_end"},
        {
            "base": 0,
            "call_index": 1,
            "context": {"messages": [{"role": "user", "content": f"my key is {KEY}"}]},
            "keep": 2,
            "type": "request",
        },
        {"call_index": 1, "event_count": 0, "outcome": "complete", "type": "call_end"},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(row, sort_keys=True) + "\n" for row in rows))
    found = json.loads(scan(tmp_path, "--json", str(path)).stdout)
    assert [f["field"] for f in found["findings"]] == ["context.messages[2].content"], found


def test_a_missing_file_counts_as_no_file_scanned(tmp_path: Path) -> None:
    missing = scan(tmp_path, str(tmp_path / "missing.jsonl"))
    assert missing.returncode == 2
    assert missing.stdout == "no secrets found in 0 files\n"


def test_the_plain_git_hook_scans_a_staged_recording_whose_name_has_spaces(
    tmp_path: Path,
) -> None:
    """The `.git/hooks/pre-commit` script docs/cli.md gives, run by real git."""
    cli_md = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    script = re.search(r"```bash\n(#!/bin/sh\n.*?)```", cli_md, re.DOTALL)
    assert script is not None
    repo = repository(tmp_path)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(script[1])
    hook.chmod(0o755)
    env = pre_commit_env(repo)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, timeout=120)

    run("git", "add", ".gitignore")
    assert run("git", "commit", "-qm", "nothing staged to scan").returncode == 0
    plant(repo / "tests" / "recordings" / "a leaky one.jsonl")
    run("git", "add", "tests")
    refused = run("git", "commit", "-qm", "a leaky recording")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    shown = refused.stdout + refused.stderr
    assert "tests/recordings/a leaky one.jsonl:2: call 0, field context.messages" in shown
    assert KEY not in shown
