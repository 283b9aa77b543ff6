"""The check's data layer: outcomes, every differing field, string diffs, paths, remembered commands."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from openprogram.providers.recording.difference_text import describe_difference
from openprogram.providers.recording.differences import MISSING
from openprogram.recordings import CheckResult
from tests.recording_files import REPO_ROOT, write_recording
from tests.tui import check_support as fixtures
from tui.model.check_commands import (
    CheckCommand,
    CommandSyntaxError,
    choose_command,
    commands_path,
    format_command,
    initial_command,
    parse_command,
    remember_command,
    remembered_command,
)
from tui.model.check_outcome import (
    EXPLANATIONS,
    headline,
    never_requested_text,
    outcome_kind,
    result_facts,
)
from tui.model.check_session import run_tui_check
from tui.model.events import event_timeline
from tui.model.request_comparison import RequestComparison, value_at
from tui.model.string_diff import string_diff, wants_string_diff

# -- outcomes --


@pytest.mark.parametrize(
    ("result", "kind", "start"),
    [
        (fixtures.ok_result(), "ok", "✓ ok · 2/2 calls replayed and consumed in 0.46 s"),
        (
            fixtures.content_mismatch(),
            "mismatch",
            "✗ mismatch at call 1 · context.messages[2].content[0].text",
        ),
        (fixtures.incomplete_result(), "incomplete", "◐ incomplete · the program made 1 of 4"),
        (fixtures.error_result(), "error", "✗ error · the program exited with code 1"),
    ],
)
def test_each_outcome_has_its_kind_and_headline(result: CheckResult, kind: str, start: str) -> None:
    assert outcome_kind(result) == kind
    assert headline(result).startswith(start)
    assert EXPLANATIONS[outcome_kind(result)]


def test_position_and_past_the_end_come_from_real_replays(tmp_path: Path) -> None:
    position = fixtures.position_mismatch(fixtures.record_abandoned_call(tmp_path / "s.jsonl"))
    assert outcome_kind(position) == "position"
    assert headline(position) == "✗ the run read past the recorded stream of call 0 at event 3"
    past = fixtures.past_end_mismatch(fixtures.record_one_call(tmp_path / "one.jsonl"))
    assert outcome_kind(past) == "past_end"
    assert "the run made call 1; the recording has 1 call" in headline(past)
    assert past.mismatch is not None
    assert ("replay", past.mismatch.message.replace("\n", " ")) in result_facts(past)


def test_a_cancelled_run_is_not_reported_as_a_failure_of_the_code() -> None:
    stopped = fixtures.check_result("error", error="cancelled", exit_code=-9)
    assert outcome_kind(stopped, cancelled=True) == "cancelled"
    assert headline(stopped, cancelled=True) == "■ cancelled after 1/2 calls"
    assert outcome_kind(stopped) == "error"


def test_facts_name_calls_time_exit_and_what_was_never_requested() -> None:
    facts = dict(result_facts(fixtures.incomplete_result()))
    assert facts == {
        "calls": "1/4 consumed",
        "time": "0.46 s",
        "exit code": "0",
        "never requested": "calls 1, 2, 3",
    }
    assert dict(result_facts(fixtures.error_result()))["error"] == "the program exited with code 1"
    assert never_requested_text(fixtures.content_mismatch()) == "call 1"
    assert never_requested_text(fixtures.ok_result()) == "none"


# -- every differing field --


def test_a_content_mismatch_lists_the_reported_field_first() -> None:
    report = RequestComparison.from_mismatch(fixtures.content_mismatch().mismatch or {})
    assert report.call_index == 1 and report.first == 0
    assert [d.field_path for d in report.differences] == ["context.messages[2].content[0].text"]
    difference = report.differences[0]
    assert (difference.recorded, difference.incoming) == ("echo:hi", "echo:bye")
    assert report.breadcrumb(0) == "call 1 › context › messages[2] › content[0] › text"
    assert describe_difference(difference) == "changed"


def test_every_differing_field_is_listed_not_only_the_first() -> None:
    report = RequestComparison.from_mismatch(fixtures.long_string_mismatch().mismatch or {})
    assert [d.field_path for d in report.differences] == [
        "context.messages[2].content[0].text",
        "context.system_prompt",
        "context.tools[0].description",
    ]
    assert report.first == 0


def test_missing_keys_and_type_changes_are_named_as_such() -> None:
    missing = RequestComparison.from_mismatch(fixtures.missing_key_mismatch().mismatch or {})
    gone = missing.differences[missing.first]
    assert gone.field_path == "context.tools[0].parameters.required"
    assert gone.incoming is MISSING and gone.recorded == ["text"]
    assert describe_difference(gone) == "missing in the incoming request"
    typed = RequestComparison.from_mismatch(fixtures.type_change_mismatch().mismatch or {})
    changed = typed.differences[typed.first]
    assert changed.field_path == "context.messages[1].content[0].arguments.count"
    assert describe_difference(changed) == "type changed: number → string"


def test_a_mismatch_without_requests_still_shows_the_reported_field() -> None:
    reported = fixtures.content_mismatch().mismatch
    assert reported is not None
    mismatch = reported.model_copy(
        update={"recorded_request": None, "incoming_request": None, "recorded_present": False}
    )
    report = RequestComparison.from_mismatch(mismatch)
    assert len(report.differences) == 1
    assert report.differences[0].recorded is MISSING
    assert describe_difference(report.differences[0]).startswith("added in the incoming")


def test_value_at_follows_keys_and_indexes() -> None:
    request = fixtures.echo_request()
    assert value_at(request, ("context", "messages", 2, "content", 0, "text")) == "echo:hi"
    assert value_at(request, ("context", "messages", 9)) is MISSING
    assert value_at(request, ("context", "nope")) is MISSING
    assert value_at(request, ("context", 0)) is MISSING
    assert value_at(request, ()) is request


def test_the_timeline_lists_the_recorded_events_of_the_call(tmp_path: Path) -> None:
    recording = fixtures.record_abandoned_call(tmp_path / "s.jsonl")
    timeline = event_timeline(recording, 0, 3)
    assert timeline is not None
    assert (timeline.outcome, timeline.stopped_at) == ("abandoned", 3)
    assert [e.type for e in timeline.events] == ["start", "text_start", "text_delta"]
    assert event_timeline(recording, 5, 0) is None
    assert event_timeline(tmp_path / "missing.jsonl", 0, 0) is None


def test_the_timeline_reads_only_its_own_call_so_broken_later_calls_do_not_hide_it(
    tmp_path: Path,
) -> None:
    # The timeline is read from the rows of the call the run stopped at: a later call whose rows
    # the strict row parser refuses (once the whole file was parsed, and any problem gave nothing)
    # leaves it as it is.
    recording = fixtures.record_abandoned_call(tmp_path / "s.jsonl")
    with recording.open("a") as file:
        file.write('{"call_index":1,"request":"not a request","type":"request"}\n')
        file.write('{"call_index":1,"event":{"type":"nonsense"},"type":"event"}\n')
    timeline = event_timeline(recording, 0, 3)
    assert timeline is not None
    assert [e.type for e in timeline.events] == ["start", "text_start", "text_delta"]
    assert event_timeline(recording, 1, 0) is None  # the broken call itself has none


# -- running --


def test_a_check_that_cannot_start_comes_back_as_an_error_result(tmp_path: Path) -> None:
    result = run_tui_check(tmp_path / "missing.jsonl", ["true"])
    assert result.status == "error" and result.error is not None
    assert result.error.startswith("the check could not start:")
    no_entry = write_recording(tmp_path / "plain.jsonl")
    no_entry.chmod(0o600)
    result = run_tui_check(no_entry)
    assert outcome_kind(result) == "error"
    assert "has no recorded command to run" in (result.error or "")


def test_a_program_that_does_not_exist_is_an_error_with_its_name(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "plain.jsonl")
    recording.chmod(0o600)
    result = run_tui_check(recording, [str(tmp_path / "no-such-program")], cwd=str(REPO_ROOT))
    assert result.status == "error"
    assert "cannot start" in (result.error or "")


# -- string diffs --


def test_a_short_change_marks_the_changed_word() -> None:
    diff = string_diff("echo:hi", "echo:bye")
    assert [(line.kind, line.segments) for line in diff.lines] == [
        ("removed", (("echo:", "same"), ("hi", "changed"))),
        ("added", (("echo:", "same"), ("bye", "changed"))),
    ]
    assert (diff.removed, diff.added, diff.truncated) == (1, 1, False)


def test_long_unchanged_runs_are_summarised_around_the_change() -> None:
    old = "\n".join(f"line {n}" for n in range(20))
    new = old.replace("line 10", "line ten")
    diff = string_diff(old, new)
    kinds = [line.kind for line in diff.lines]
    assert kinds == ["skipped", "same", "same", "removed", "added", "same", "same", "skipped"]
    assert diff.lines[0].skipped == 8 and diff.lines[-1].skipped == 7
    assert diff.lines[0].text == "… 8 unchanged"


def test_added_and_removed_lines_and_a_cut_for_huge_diffs() -> None:
    diff = string_diff("a\nb", "a\nb\nc")
    assert [(line.kind, line.text) for line in diff.lines] == [
        ("same", "a"),
        ("same", "b"),
        ("added", "c"),
    ]
    huge = string_diff("\n".join(map(str, range(2000))), "\n".join(f"x{n}" for n in range(2000)))
    assert huge.truncated and len(huge.lines) == 400


def test_which_values_get_a_string_diff() -> None:
    assert not wants_string_diff("echo:hi", "echo:bye")
    assert wants_string_diff("a\nb", "a")
    assert wants_string_diff("x" * 40, "y")
    assert not wants_string_diff("x" * 50, 3)


# -- remembered commands --


def test_an_edited_command_is_remembered_privately_and_can_be_forgotten(tmp_path: Path) -> None:
    recording = tmp_path / "echo.jsonl"
    assert remembered_command(recording) is None
    remember_command(recording, ["python", "agent.py", "bye"])
    assert remembered_command(recording) == ["python", "agent.py", "bye"]
    path = commands_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = {"argv": ["python", "agent.py", "bye"], "file_command": None}
    assert json.loads(path.read_text()) == {str(recording): stored}
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".tui-commands")] == []
    remember_command(recording, None)
    assert remembered_command(recording) is None


def test_running_the_recorded_command_again_forgets_the_edit(tmp_path: Path) -> None:
    recording = tmp_path / "echo.jsonl"
    shown = CheckCommand(["python", "a.py", "hi"], "/p", "recorded", ["python", "a.py", "hi"])
    choose_command(recording, ["python", "a.py", "bye"], shown)
    assert remembered_command(recording) == ["python", "a.py", "bye"]
    choose_command(recording, ["python", "a.py", "hi"], shown)
    assert remembered_command(recording) is None


def test_an_unreadable_commands_file_never_blocks_a_rerun(tmp_path: Path) -> None:
    commands_path().parent.mkdir(parents=True, exist_ok=True)
    commands_path().write_text("{not json")
    assert remembered_command(tmp_path / "x.jsonl") is None
    commands_path().write_text(json.dumps({"a": "not a list", "b": [1, 2]}))
    assert remembered_command(Path("a")) is None
    remember_command(tmp_path / "x.jsonl", ["true"])
    assert remembered_command(tmp_path / "x.jsonl") == ["true"]


def test_the_command_comes_from_the_edit_then_the_entry(tmp_path: Path) -> None:
    plain = write_recording(tmp_path / "plain.jsonl")
    assert initial_command(plain).source == "none"
    entry = {"argv": [sys.executable, "agent.py", "hi"], "cwd": str(tmp_path)}
    recorded = write_recording(tmp_path / "entry.jsonl", header={"entry": entry})
    command = initial_command(recorded)
    assert (command.source, command.argv, command.cwd) == ("recorded", entry["argv"], str(tmp_path))
    assert command.untrusted  # written elsewhere: this machine never ran or allowed it
    remember_command(recorded, ["python", "agent.py", "bye"])
    command = initial_command(recorded)
    assert (command.source, command.argv) == ("remembered", ["python", "agent.py", "bye"])
    assert command.recorded_argv == entry["argv"] and command.cwd == str(tmp_path)
    assert command.untrusted  # remembered without the file's command: its folder is the file's
    choose_command(recorded, ["python", "agent.py", "bye"], initial_command(recorded))
    assert not initial_command(recorded).untrusted  # the edit ran with this file's folder
    assert initial_command(recorded, use_remembered=False).argv == entry["argv"]
    assert initial_command(tmp_path / "missing.jsonl").source == "none"


def test_commands_are_split_and_joined_like_a_shell() -> None:
    argv = ["python", "agent.py", "two words", "it's"]
    assert parse_command(format_command(argv)) == argv
    with pytest.raises(CommandSyntaxError, match="a quote is not closed"):
        parse_command('python "unclosed')
    with pytest.raises(CommandSyntaxError, match="it is empty"):
        parse_command("   ")


def test_the_commands_file_lives_in_the_state_dir(openprogram_home: Path) -> None:
    assert commands_path() == openprogram_home / "tui-commands.json"
    assert os.environ["OPENPROGRAM_HOME"] == str(openprogram_home)


def test_an_inserted_or_removed_message_is_described_from_the_report() -> None:
    recorded, incoming = fixtures.echo_request(), fixtures.echo_request()
    incoming["context"]["messages"].insert(0, {"role": "user", "content": "new", "timestamp": 1})
    for before, after, words, recorded_at in (
        (recorded, incoming, "inserted in the incoming request", ("context", "messages")),
        (incoming, recorded, "removed: recorded, not in the incoming request", None),
    ):
        report = RequestComparison.from_mismatch(fixtures.mismatch_of(before, after))
        (difference,) = report.differences
        assert describe_difference(difference) == words + (" (not recorded)" if recorded_at else "")
        assert difference.field_path == "context.messages[0]"
        assert difference.recorded_path_tokens == (recorded_at or difference.path_tokens)
        # Without the whole requests (an older report), the kind still comes through.
        bare = fixtures.mismatch_of(before, after).model_copy(
            update={"recorded_request": None, "incoming_request": None}
        )
        assert describe_difference(RequestComparison.from_mismatch(bare).differences[0]) == (
            describe_difference(difference)
        )
