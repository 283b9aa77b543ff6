"""`openprogram recordings …` in real subprocesses: exit codes, messages, and recovery."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openprogram.providers.recording.redaction import SECRET_PLACEHOLDER
from tests.helpers import write_lines
from tests.recording_files import (
    REPO_ROOT,
    days_ago,
    locked_by_another_process,
    run_cli,
    run_echo_program,
    subprocess_env,
    write_recording,
)

SUBCOMMANDS = [
    "status",
    "record",
    "replay",
    "off",
    "list",
    "show",
    "delete",
    "prune",
    "diff",
    "rules",
    "export",
    "import",
]


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, stderr
    return lines[0]


def managed_dir(home: Path) -> Path:
    root = home / "recordings"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    home.chmod(0o700)
    return root


def config(home: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((home / "config.json").read_text())
    return data


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_every_subcommand_has_help_with_examples(subcommand: str, openprogram_home: Path) -> None:
    done = run_cli(openprogram_home, subcommand, "--help")
    assert done.returncode == 0 and "examples:" in done.stdout
    assert f"openprogram recordings {subcommand}" in done.stdout


def test_version_and_usage_errors(openprogram_home: Path) -> None:
    version = subprocess.run(
        [sys.executable, "-m", "openprogram", "--version"],
        env=subprocess_env(openprogram_home),
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert version.returncode == 0 and version.stdout.startswith("openprogram ")
    assert run_cli(openprogram_home, "frobnicate").returncode == 2
    assert run_cli(openprogram_home, "replay").returncode == 2
    assert run_cli(openprogram_home, "prune", "--older-than-days", "-1").returncode == 2
    assert run_cli(openprogram_home).returncode == 2
    assert not openprogram_home.exists()  # nothing was created by any of that


def test_record_then_status_list_and_show(openprogram_home: Path) -> None:
    done = run_cli(openprogram_home, "record", "--name", "demo")
    assert done.returncode == 0, done.stderr
    assert config(openprogram_home)["record_replay"] == {"mode": "record", "file": "demo"}
    status = run_cli(openprogram_home, "status", "--json")
    assert status.returncode == 0
    facts = json.loads(status.stdout)
    assert (facts["mode"], facts["file"], facts["would_block"]) == ("record", "demo", False)
    listing = run_cli(openprogram_home, "list")
    assert listing.returncode == 0 and "● demo" in listing.stdout and "\x1b[" not in listing.stdout
    shown = run_cli(openprogram_home, "show", "demo")
    assert shown.returncode == 0 and "redaction_version" in shown.stdout


def test_a_program_records_then_replays_offline_through_the_cli(openprogram_home: Path) -> None:
    assert run_cli(openprogram_home, "record", "--name", "session").returncode == 0
    recorded = run_echo_program(openprogram_home, "hi")
    assert (recorded["mode"], recorded["answer"], recorded["calls"]) == ("record", "echo:hi", 2)
    listing = json.loads(run_cli(openprogram_home, "list", "--json").stdout)
    (entry,) = listing["recordings"]
    assert (entry["id"], entry["calls"], entry["valid"], entry["active"]) == (
        "session",
        2,
        True,
        True,
    )
    assert run_cli(openprogram_home, "replay", "session").returncode == 0
    replayed = run_echo_program(openprogram_home, "hi", "--no-scripted")
    assert (replayed["mode"], replayed["answer"]) == ("replay", "echo:hi")
    assert replayed["socket_attempts"] == [] and replayed["requires_credentials"] is False
    shown = run_cli(openprogram_home, "show", "session")
    assert shown.returncode == 0
    assert "scripted" in shown.stdout and '"hi"' in shown.stdout and "complete" in shown.stdout


@pytest.mark.parametrize("damage", ["deleted", "corrupted"])
def test_status_and_off_recover_from_a_replay_file_damaged_after_it_was_selected(
    damage: str, openprogram_home: Path
) -> None:
    path = write_recording(managed_dir(openprogram_home) / "chosen.jsonl")
    assert run_cli(openprogram_home, "replay", "chosen").returncode == 0
    if damage == "deleted":
        path.unlink()
    else:
        path.write_text('{"type":"header","format_version":2}\n{"type":"event"}\n')
    status = run_cli(openprogram_home, "status")
    assert status.returncode == 1 and "blocked" in status.stdout
    assert ("file not found" if damage == "deleted" else "line 2") in status.stdout
    blocked = run_echo_program(openprogram_home, "hi")
    assert (blocked["state"], blocked["mode"]) == ("ready", "blocked")
    assert blocked["error_type"] == "RecordReplayBlockedError"
    assert "openprogram recordings status" in blocked["error"] and blocked["socket_attempts"] == []
    off = run_cli(openprogram_home, "off")
    assert off.returncode == 0 and "chosen" in off.stdout  # the last file is kept
    assert run_cli(openprogram_home, "status").returncode == 0
    live = run_echo_program(openprogram_home, "hi")
    assert (live["mode"], live["answer"]) == ("off", "echo:hi")


def test_off_backs_up_a_corrupt_config_and_says_where(openprogram_home: Path) -> None:
    openprogram_home.mkdir(mode=0o700)
    (openprogram_home / "config.json").write_text("{definitely not json")
    status = run_cli(openprogram_home, "status")
    assert status.returncode == 1 and "not valid JSON" in status.stdout
    off = run_cli(openprogram_home, "off")
    assert off.returncode == 0
    (backup,) = openprogram_home.glob("config.json.corrupt-*")
    assert str(backup) in off.stdout and backup.read_text() == "{definitely not json"
    assert run_cli(openprogram_home, "status").returncode == 0


def test_a_bad_replay_file_exits_1_with_one_error_line_and_changes_nothing(
    openprogram_home: Path, tmp_path: Path
) -> None:
    assert run_cli(openprogram_home, "off").returncode == 0
    before = (openprogram_home / "config.json").read_bytes()
    bad = write_lines(tmp_path / "bad.jsonl", ['{"type":"header","format_version":2}', "[1]"])
    done = run_cli(openprogram_home, "replay", str(bad))
    assert done.returncode == 1 and "line 2" in one_error_line(done.stderr)
    # (A recording given by path with permissions 0644 is no longer bad: git checks files out
    # so, tests/providers/test_file_policy.py; a folder given as the file is.)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    done = run_cli(openprogram_home, "replay", str(folder))
    assert done.returncode == 1 and "not a regular file" in one_error_line(done.stderr)
    link = tmp_path / "link.jsonl"
    link.symlink_to(write_recording(tmp_path / "good.jsonl"))
    done = run_cli(openprogram_home, "replay", str(link))
    assert done.returncode == 1 and "symlink" in one_error_line(done.stderr)
    assert (openprogram_home / "config.json").read_bytes() == before


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", "naïve"])
def test_record_refuses_an_unsafe_name(name: str, openprogram_home: Path) -> None:
    """A usage error (exit 2), said before anything is created (issue #42, item 35)."""
    done = run_cli(openprogram_home, "record", "--name", name)
    assert done.returncode == 2, done.stderr
    assert "argument --name:" in done.stderr and "ASCII letters" in done.stderr
    assert not (openprogram_home.parent / "escape.jsonl").exists()
    assert not (openprogram_home / "config.json").exists()


def test_list_shows_invalid_files_with_their_reason_and_never_hides_the_others(
    openprogram_home: Path,
) -> None:
    root = managed_dir(openprogram_home)
    write_recording(root / "good.jsonl", header={"created_at": days_ago(1)})
    write_lines(root / "bad.jsonl", ['{"type":"header","format_version":2}', "{oops"])
    done = run_cli(openprogram_home, "list")
    assert done.returncode == 0
    good_line = next(line for line in done.stdout.splitlines() if "good" in line)
    bad_line = next(line for line in done.stdout.splitlines() if "bad" in line)
    assert good_line.rstrip().endswith("valid") and "invalid: line 2" in bad_line
    records = json.loads(run_cli(openprogram_home, "list", "--json").stdout)["recordings"]
    assert [r["id"] for r in records] == ["bad", "good"]  # bad has no created_at: its mtime is now
    assert set(records[0]) >= {"id", "created_at", "calls", "events", "size", "valid", "reason"}


def test_show_content_prints_redacted_jsonl_after_a_reminder(
    openprogram_home: Path, tmp_path: Path
) -> None:
    secret = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4"
    path = write_recording(tmp_path / "r.jsonl")
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"content":"hi"', f'"content":"use {secret}"')
    path.write_text("\n".join(lines) + "\n")
    done = run_cli(openprogram_home, "show", str(path), "--content")
    assert done.returncode == 0 and "personal data" in done.stderr
    assert secret not in done.stdout and SECRET_PLACEHOLDER in done.stdout
    assert all(json.loads(line) for line in done.stdout.splitlines())
    shown = run_cli(openprogram_home, "show", str(path), "--json")
    assert json.loads(shown.stdout)["calls"][0]["call_index"] == 0
    missing = run_cli(openprogram_home, "show", "nothing")
    assert missing.returncode == 1 and "file not found" in one_error_line(missing.stderr)


def test_show_of_an_invalid_file_prints_its_problems_and_exits_1(
    openprogram_home: Path, tmp_path: Path
) -> None:
    path = write_lines(tmp_path / "bad.jsonl", ['{"type":"header","format_version":2}', "{"])
    done = run_cli(openprogram_home, "show", str(path))
    assert done.returncode == 1 and "problem" in done.stdout and "line 2" in done.stdout


def test_delete_needs_yes_without_a_terminal_and_refuses_what_it_must(
    openprogram_home: Path, tmp_path: Path
) -> None:
    root = managed_dir(openprogram_home)
    path = write_recording(root / "old.jsonl")
    refused = run_cli(openprogram_home, "delete", "old")
    assert refused.returncode == 2 and "--yes" in one_error_line(refused.stderr) and path.exists()
    assert run_cli(openprogram_home, "delete", "old", "--yes").returncode == 0
    assert not path.exists()
    write_recording(root / "active.jsonl")
    assert run_cli(openprogram_home, "replay", "active").returncode == 0
    done = run_cli(openprogram_home, "delete", "active", "--yes")
    assert done.returncode == 1 and "active replay recording" in one_error_line(done.stderr)
    (root / "link.jsonl").symlink_to(write_recording(tmp_path / "target.jsonl"))
    done = run_cli(openprogram_home, "delete", "link", "--yes")
    assert done.returncode == 1 and "symlink" in one_error_line(done.stderr)
    outside = write_recording(openprogram_home / "outside.jsonl")
    for selector in (str(outside), f"{root}/../outside.jsonl", "../outside"):
        done = run_cli(openprogram_home, "delete", selector, "--yes")
        assert done.returncode == 1 and one_error_line(done.stderr)
    assert outside.exists() and (root / "link.jsonl").is_symlink()


def test_prune_dry_run_confirmation_and_failure_report(openprogram_home: Path) -> None:
    root = managed_dir(openprogram_home)
    forty_days_ago = time.time() - 40 * 86400
    for name in ("a", "b", "busy"):
        old = write_recording(root / f"{name}.jsonl", header={"created_at": days_ago(40)})
        os.utime(old, (forty_days_ago, forty_days_ago))  # prune ages by the last write
    write_recording(root / "new.jsonl", header={"created_at": days_ago(1)})
    dry = run_cli(openprogram_home, "prune", "--older-than-days", "30", "--dry-run")
    assert dry.returncode == 0 and "matched 3, deleted 0" in dry.stdout
    assert len(list(root.iterdir())) == 4
    refused = run_cli(openprogram_home, "prune", "--older-than-days", "30")
    assert refused.returncode == 2 and "--yes" in one_error_line(refused.stderr)
    with locked_by_another_process(root / "busy.jsonl"):
        done = run_cli(openprogram_home, "prune", "--older-than-days", "30", "--yes")
    assert done.returncode == 1 and "matched 3, deleted 2, failed 1" in done.stdout
    assert sorted(p.name for p in root.iterdir()) == ["busy.jsonl", "new.jsonl"]
    again = run_cli(openprogram_home, "prune", "--older-than-days", "30", "--yes")
    assert again.returncode == 0 and "deleted 1" in again.stdout


def run_on_terminal(
    home: Path, *args: str, answer: str | None = None, **extra: str
) -> tuple[int, str]:
    """Run with stdin and stdout on a pseudo-terminal, typing `answer`: exit code and output."""
    leader, follower = pty.openpty()
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "openprogram", "recordings", *args],
            env=subprocess_env(home, TERM="xterm-256color", **extra),
            stdin=follower,
            stdout=follower,
            stderr=subprocess.DEVNULL,
            cwd=REPO_ROOT,
        )
        os.close(follower)
        if answer is not None:
            os.write(leader, answer.encode() + b"\n")
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        returncode = child.wait(timeout=30)
    finally:
        os.close(leader)
    return returncode, b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_never_with_no_color(openprogram_home: Path) -> None:
    assert "\x1b[" in run_on_terminal(openprogram_home, "status")[1]
    assert "\x1b[" not in run_on_terminal(openprogram_home, "status", NO_COLOR="1")[1]
    assert "\x1b[" not in run_cli(openprogram_home, "status").stdout


def test_delete_on_a_terminal_asks_first(openprogram_home: Path) -> None:
    path = write_recording(managed_dir(openprogram_home) / "old.jsonl")
    assert run_on_terminal(openprogram_home, "delete", "old", answer="n")[0] == 2
    assert path.exists()
    assert run_on_terminal(openprogram_home, "delete", "old", answer="y")[0] == 0
    assert not path.exists()


def test_management_commands_never_start_the_provider_runtime(
    openprogram_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from openprogram.cli.main import main
    from openprogram.providers.api_registry import (
        RuntimeState,
        provider_runtime_state,
        registered_apis,
    )

    write_recording(managed_dir(openprogram_home) / "r.jsonl")
    for argv in (["record", "--name", "new"], ["replay", "r"], ["status"], ["list"], ["show", "r"]):
        assert main(["recordings", *argv]) == 0, capsys.readouterr().err
    assert main(["recordings", "off"]) == 0
    assert main(["recordings", "delete", "new", "--yes"]) == 0
    assert main(["recordings", "prune", "--older-than-days", "0", "--yes"]) == 0
    assert provider_runtime_state() is RuntimeState.NEW and registered_apis() == []


def test_record_refuses_an_existing_name_unless_told_to_append(openprogram_home: Path) -> None:
    assert run_cli(openprogram_home, "record", "--name", "login").returncode == 0
    path = openprogram_home / "recordings" / "login.jsonl"
    before = path.read_bytes()
    again = run_cli(openprogram_home, "record", "--name", "login")
    assert again.returncode == 1
    assert str(path) in one_error_line(again.stderr) and "--append" in again.stderr
    assert path.read_bytes() == before
    appended = run_cli(openprogram_home, "record", "--name", "login", "--append")
    assert appended.returncode == 0 and "adds to login" in appended.stdout
    assert config(openprogram_home)["record_replay"] == {"mode": "record", "file": "login"}
    one_shot = run_cli(openprogram_home, "record", "--name", "login", "--append", "--", "true")
    assert one_shot.returncode == 2 and "--append does not go with" in one_shot.stderr


def test_check_names_the_mismatch_and_one_command_to_inspect_it(openprogram_home: Path) -> None:
    echo = [sys.executable, "examples/echo_agent.py"]
    assert run_cli(openprogram_home, "record", "--name", "echo", "--", *echo, "hi").returncode == 0
    done = run_cli(openprogram_home, "check", "echo", "--", *echo, "bye")
    assert done.returncode == 1
    assert "replay mismatch at call 1, field context.messages[2].content[0].text:" in done.stdout
    assert [line for line in done.stdout.splitlines() if line.startswith("inspect: ")] == [
        f"inspect: openprogram-tui --check {openprogram_home / 'recordings' / 'echo.jsonl'} "
        f"-- {sys.executable} examples/echo_agent.py bye"
    ]


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ('{"format_version":"2","type":"header"}', "header row field format_version"),
        ('{"format_version":2,"type":"header"}\n{"type":"request"', "last line is truncated"),
    ],
)
def test_check_json_on_a_broken_recording_prints_json_naming_line_and_reason(
    openprogram_home: Path, tmp_path: Path, header: str, reason: str
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text(header + "\n" if header.endswith("}") else header)
    broken.chmod(0o600)
    done = run_cli(openprogram_home, "check", str(broken), "--json", "--", "true")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "error" and result["mismatch"] is None
    assert result["problem"]["line_number"] in (1, 2) and reason in result["problem"]["reason"]
    assert str(broken) in result["error"]


def test_check_ignore_absorbs_a_field_and_says_so(openprogram_home: Path) -> None:
    echo = [sys.executable, "examples/echo_agent.py"]
    assert run_cli(openprogram_home, "record", "--name", "echo", "--", *echo, "hi").returncode == 0
    text = "context.messages[*].content[*].text"
    done = run_cli(
        openprogram_home, "check", "echo", "--json", "--ignore", text, "--", *echo, "bye"
    )
    result = json.loads(done.stdout)
    assert done.returncode == 0 and result["status"] == "ok"
    assert result["rules"] == [f"ignore {text}  (the command line's rules)"]
    assert result["absorbed"] == [
        {
            "call_index": 1,
            "field_path": "context.messages[2].content[0].text",
            "rule": f"ignore {text}",
            "source": "the command line's rules",
        }
    ]
    typo = run_cli(openprogram_home, "check", "echo", "--ignore", "context.mesages")
    assert typo.returncode == 1
    assert "'context.mesages' can never match a field of a request" in one_error_line(typo.stderr)


def test_repair_outside_the_managed_directory_speaks_of_repair(openprogram_home: Path) -> None:
    done = run_cli(openprogram_home, "repair", "../evil")
    line = one_error_line(done.stderr)
    assert done.returncode == 1 and line.startswith("error: cannot repair ")
    assert "only managed recordings are repaired" in line and "deleted" not in line


def test_replay_of_a_file_that_is_no_recording_says_so_before_its_permissions(
    openprogram_home: Path, tmp_path: Path
) -> None:
    binary = tmp_path / "ls.jsonl"
    binary.write_bytes(Path(sys.executable).read_bytes()[:4096])
    binary.chmod(0o644)
    done = run_cli(openprogram_home, "replay", str(binary))
    line = one_error_line(done.stderr)
    assert done.returncode == 1 and "at line 1" in line and "permissions" not in line
    link = tmp_path / "link.jsonl"
    link.symlink_to(binary)
    assert "is a symlink" in one_error_line(run_cli(openprogram_home, "replay", str(link)).stderr)


def test_the_documented_replay_of_the_echo_agent_ends_in_one_message_not_a_traceback(
    openprogram_home: Path,
) -> None:
    assert run_cli(openprogram_home, "record", "--name", "echo").returncode == 0
    program = [sys.executable, "examples/echo_agent.py"]
    env = subprocess_env(openprogram_home)
    first = subprocess.run([*program, "hi"], env=env, capture_output=True, text=True, cwd=REPO_ROOT)
    assert first.returncode == 0, first.stderr
    assert run_cli(openprogram_home, "replay", "echo").returncode == 0
    bye = subprocess.run([*program, "bye"], env=env, capture_output=True, text=True, cwd=REPO_ROOT)
    assert bye.returncode == 1 and "Traceback" not in bye.stderr
    assert bye.stderr.splitlines()[0] == (
        "echo_agent: replay mismatch at call 1, field context.messages[2].content[0].text:"
    )


def test_show_bounds_a_huge_header_value_in_text_and_json(openprogram_home: Path) -> None:
    root = managed_dir(openprogram_home)
    huge = "x" * 5_000_000
    write_recording(root / "big.jsonl", header={"recording_id": "big", "notes": huge})
    text = run_cli(openprogram_home, "show", "big")
    assert text.returncode == 0 and len(text.stdout) < 5_000
    assert "(5,000,000 characters; `--content` prints the whole file)" in text.stdout
    done = run_cli(openprogram_home, "show", "big", "--json")
    result = json.loads(done.stdout)
    assert len(done.stdout) < 20_000 and result["header_truncated"] is True
    assert result["header"]["notes"].endswith("…") and len(result["header"]["notes"]) == 10_000


def test_a_double_dash_with_no_command_after_it_is_refused_and_changes_nothing(
    openprogram_home: Path,
) -> None:
    done = run_cli(openprogram_home, "record", "--name", "x", "--")
    assert done.returncode == 2
    assert "`--` must be followed by the command to run" in done.stderr
    assert not (openprogram_home / "config.json").exists()  # record mode was not switched on


def test_repair_refuses_a_newer_format_and_changes_nothing(openprogram_home: Path) -> None:
    path = managed_dir(openprogram_home) / "future.jsonl"
    path.write_text(
        '{"type":"header","format_version":99}\n{"type":"request","call_index":0,"x":1}\n'
    )
    path.chmod(0o600)
    before = path.read_bytes()
    done = run_cli(openprogram_home, "repair", "future")
    assert done.returncode == 1
    assert "format_version 99, which this openprogram cannot read" in one_error_line(done.stderr)
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["future.jsonl"]  # no damaged copy


def test_show_says_what_is_new_in_each_call(openprogram_home: Path) -> None:
    """Issue #42, item 37: every call of an agent session sends the same first user message; the
    list shows what each call added (call 1: the tool's result), not that message again."""
    made = run_cli(
        openprogram_home, "record", "--name", "echo", "--", sys.executable, "examples/echo_agent.py"
    )
    assert made.returncode == 0, made.stderr
    shown = run_cli(openprogram_home, "show", "echo")
    assert "NEW IN THIS CALL" in shown.stdout
    rows = [line for line in shown.stdout.splitlines() if line.strip().startswith(("0 ", "1 "))]
    assert rows[0].endswith('"hi"') and rows[1].endswith('"echo:hi"'), rows
    calls = json.loads(run_cli(openprogram_home, "show", "--json", "echo").stdout)["calls"]
    assert [c["first_user_text"] for c in calls] == ["hi", "hi"]
    assert [c["new_text"] for c in calls] == ["hi", "echo:hi"]


def test_record_of_a_command_that_is_not_there_says_so_as_a_shell_does(
    openprogram_home: Path,
) -> None:
    """`command not found`, exit 127, and nothing kept (issue #42, item 34)."""
    done = run_cli(openprogram_home, "record", "--", "no-such-command-here")
    assert done.returncode == 127
    assert one_error_line(done.stderr) == "error: no-such-command-here: command not found"
    assert not list(managed_dir(openprogram_home).glob("*.jsonl"))


def test_record_counts_in_words_that_agree_with_the_number(openprogram_home: Path) -> None:
    """`recorded 1 call`, not `1 calls` (issue #42, item 15)."""
    program = "from openprogram.providers import *; import asyncio; "
    program += "asyncio.run(complete_simple(Model(id='e', name='e', api='scripted', "
    program += "provider='scripted'), Context(messages=[UserMessage(content='hi')])))"
    done = run_cli(openprogram_home, "record", "--name", "one", "--", sys.executable, "-c", program)
    assert done.returncode == 0, done.stderr
    assert "openprogram: recorded 1 call, " in done.stderr


def test_history_of_a_recording_that_is_not_there_fails(openprogram_home: Path) -> None:
    """One error line and exit 1, as show and check (issue #42, item 32)."""
    done = run_cli(openprogram_home, "history", "NOSUCH")
    assert done.returncode == 1
    assert one_error_line(done.stderr) == "error: NOSUCH: no such recording and no kept versions"
    kept = run_cli(openprogram_home, "record", "--name", "kept")
    assert kept.returncode == 0, kept.stderr
    done = run_cli(openprogram_home, "history", "kept")
    assert (done.returncode, done.stdout) == (0, "kept: no previous versions kept\n")


def test_show_of_a_folder_is_one_error_line(openprogram_home: Path, tmp_path: Path) -> None:
    """Issue #42, item 33: a folder is refused in one line, as a missing file is, not reported on."""
    shown = run_cli(openprogram_home, "show", str(tmp_path))
    assert shown.returncode == 1 and shown.stdout == ""
    assert shown.stderr.strip().splitlines() == [
        f"error: recording file {tmp_path}: is not a regular file"
    ]
