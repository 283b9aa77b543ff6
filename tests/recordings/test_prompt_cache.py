"""The prompt-cache report: real sessions recorded through a loopback vendor, read by the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import UserMessage
from openprogram.providers.recording.reader import read_recording
from openprogram.recordings.prompt_cache import prompt_cache_report
from tests.recording_files import run_cli
from tests.recordings.prompt_cache_sessions import record_session


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    return folder


def _edit_early_message_at_12(call: int, messages: list[Any]) -> None:
    if call == 12:
        messages[2] = UserMessage(content="Next step 1, but shorter this time.")


def test_an_edited_early_message_is_named_with_its_call_path_and_tokens(
    tmp_path: Path, home: Path
) -> None:
    path = record_session(tmp_path / "edited.jsonl", 20, before_call=_edit_early_message_at_12)

    reported = run_cli(home, "cache", str(path), "--json")
    assert reported.returncode == 0, reported.stderr
    report = json.loads(reported.stdout)
    assert report["totals"]["calls"] == 20 and report["totals"]["broken_calls"] == 1
    [group] = report["breaks"]
    assert (group["kind"], group["path"], group["calls"]) == (
        "message_edited",
        "context.messages[2].content",
        [12],
    )
    calls = {call["call_index"]: call for call in report["calls"]}
    twelve, eleven = calls[12], calls[11]
    assert twelve["follows"] == 11 and twelve["kept_messages"] == 2
    # What could have been read is what call 11 sent, as the vendor counted it; the vendor read
    # only the part before the edit this time.
    assert twelve["cacheable_tokens"] == eleven["prompt_tokens"]
    assert 0 < twelve["cache_read"] < eleven["cache_read"]
    lost = twelve["cacheable_tokens"] - twelve["cache_read"]
    assert group["lost_tokens"] == twelve["lost_tokens"] == lost
    assert float(group["added_cost_usd"]) > 0

    text = run_cli(home, "cache", str(path))
    assert text.returncode == 0, text.stderr
    [line] = [line for line in text.stdout.splitlines() if line.strip().startswith("call 12")]
    assert "a message edited at context.messages[2].content" in line
    assert f"{twelve['cacheable_tokens']:,} tokens could have been read" in line
    assert f"read {twelve['cache_read']:,}" in line and f"lost {lost:,} tokens" in line
    assert "genai-prices" in text.stdout

    failing = run_cli(home, "cache", str(path), "--fail-on-break")
    assert failing.returncode == 1 and "call 12" in failing.stdout

    shown = run_cli(home, "show", str(path), "--json")
    assert shown.returncode == 0, shown.stderr
    cache = json.loads(shown.stdout)["calls"][12]["cache"]
    assert cache["break"]["kind"] == "message_edited" and cache["lost_tokens"] == lost
    assert "added_cost_usd" not in cache  # `show` never loads the price table


def test_a_timestamp_in_the_system_prompt_breaks_every_call_and_is_said_once(
    tmp_path: Path, home: Path
) -> None:
    path = record_session(
        tmp_path / "stamped.jsonl",
        20,
        system_prompt=lambda n: f"You are careful. Now: 2026-12-05T10:{n:02d}:00Z. " * 4,
    )
    text = run_cli(home, "cache", str(path), "--fail-on-break")
    assert text.returncode == 1, text.stderr
    mentions = [line for line in text.stdout.splitlines() if "system prompt" in line]
    assert len(mentions) == 1, text.stdout
    assert mentions[0].strip().startswith("calls 1–19: the system prompt changed")
    assert "context.system_prompt" in mentions[0] and "(every one of 19 calls)" in mentions[0]

    report = json.loads(run_cli(home, "cache", str(path), "--json").stdout)
    [group] = report["breaks"]
    assert group["calls"] == list(range(1, 20)) and group["kind"] == "system_prompt_changed"
    # Nothing was cached across calls: every call after the first lost all it could have read.
    expected = sum(call["cacheable_tokens"] - call["cache_read"] for call in report["calls"][1:])
    assert group["lost_tokens"] == expected > 0
    assert all(call["kept_messages"] == 0 for call in report["calls"])


def test_a_session_that_keeps_its_prefix_passes_in_ci(tmp_path: Path, home: Path) -> None:
    path = record_session(tmp_path / "kept.jsonl", 6)
    text = run_cli(home, "cache", str(path), "--fail-on-break")
    assert text.returncode == 0, text.stderr
    assert "never broke" in text.stdout and "lost" not in text.stdout

    truncated = tmp_path / "truncated.jsonl"
    truncated.write_bytes(path.read_bytes()[:-5])
    failed = run_cli(home, "cache", str(truncated), "--fail-on-break")
    assert failed.returncode == 2 and "truncated" in failed.stderr  # an error is not a break


def _removed_at_3(call: int, messages: list[Any]) -> None:
    if call == 3:
        del messages[1:3]  # the first answer and the user message after it


def _swapped_at_3(call: int, messages: list[Any]) -> None:
    if call == 3:
        messages[1], messages[2] = messages[2], messages[1]


@pytest.mark.parametrize(
    ("edit", "kind", "path"),
    [
        (_removed_at_3, "message_removed", "context.messages[1]"),
        (_swapped_at_3, "messages_reordered", "context.messages[1]"),
    ],
)
def test_removed_and_reordered_messages_are_told_apart(
    tmp_path: Path, edit: Any, kind: str, path: str
) -> None:
    recording = record_session(tmp_path / "session.jsonl", 5, before_call=edit)
    report = prompt_cache_report(read_recording(recording).calls)
    [group] = report.breaks
    assert (group.kind, group.path, group.calls) == (kind, path, (3,))


def test_a_model_without_a_price_has_an_unknown_cost_never_a_guess(tmp_path: Path) -> None:
    recording = record_session(
        tmp_path / "unpriced.jsonl",
        4,
        model_id="no-such-model-anywhere",
        before_call=lambda n, m: (
            m.__setitem__(0, UserMessage(content="Other.")) if n == 2 else None
        ),
    )
    report = prompt_cache_report(read_recording(recording).calls)
    [group] = report.breaks
    assert group.calls == (2,) and group.lost_tokens > 0
    assert group.added_cost is None and group.unpriced == 1


def test_diff_says_which_recording_kept_its_cache_better(tmp_path: Path, home: Path) -> None:
    edited = record_session(tmp_path / "a.jsonl", 13, before_call=_edit_early_message_at_12)
    kept = record_session(tmp_path / "b.jsonl", 13)
    compared = run_cli(home, "diff", str(edited), str(kept))
    assert compared.returncode == 1, compared.stderr
    [line] = [line for line in compared.stdout.splitlines() if line.startswith("prompt cache:")]
    assert line.startswith("prompt cache: B kept its prefix better (A broke on 1 call, ")
    assert line.endswith("; B never broke)")
    summary = json.loads(run_cli(home, "diff", str(kept), str(edited), "--json").stdout)["summary"]
    assert summary["cache"]["kept_better"] == "a"
    assert summary["cache"]["b"]["broken_calls"] == 1 and summary["cache"]["a"]["broken_calls"] == 0


def test_an_answer_rewritten_before_it_is_sent_back_breaks_the_prefix(tmp_path: Path) -> None:
    from openprogram.providers.types import TextContent

    def rewrite_last_answer(call: int, messages: list[Any]) -> None:
        if call == 3:  # the agent trims call 2's answer before sending it back
            answer = messages[-2]
            messages[-2] = answer.model_copy(update={"content": [TextContent(text="(trimmed)")]})

    recording = record_session(tmp_path / "session.jsonl", 5, before_call=rewrite_last_answer)
    report = prompt_cache_report(read_recording(recording).calls)
    [group] = report.breaks
    assert (group.kind, group.path, group.calls) == (
        "answer_changed",
        "context.messages[5].content[0].text",
        (3,),
    )
