"""What a call sent that the call before it had not: the new messages, the changed settings."""

from __future__ import annotations

from pathlib import Path

from openprogram.providers.recording.row_models import RequestRow
from tests.tui.test_model_call_detail import calls_of
from tests.tui.tui_rows import MODEL
from tui.model.transcript import can_fold, news_transcript, request_news, transcript_of


def request_row(call_index: int, messages: list[str], system: str = "Be brief.") -> RequestRow:
    return RequestRow(
        type="request",
        call_index=call_index,
        model=MODEL,
        context={
            "system_prompt": system,
            "messages": [{"role": "user", "content": text} for text in messages],
            "tools": None,
        },
        options={"temperature": 0},
    )


def test_a_later_call_opens_on_its_new_messages_with_the_earlier_ones_folded(
    demo_file: Path,
) -> None:
    _, calls = calls_of(demo_file)
    call = calls[3]
    assert call.request is not None
    entries = news_transcript(call.news(), call.request.context)
    assert entries[0].role == "folded"
    assert entries[0].parts[0].text == ("… 5 earlier messages, same as call 2 — press u to unfold")
    assert [e.title for e in entries[1:]] == [
        "Assistant · toolUse",
        "Tool result · echo (call_2_2)",
        "Tool result · echo (call_2_3)",
    ]


def test_unfolded_the_whole_conversation_is_shown_with_the_new_part_marked(
    demo_file: Path,
) -> None:
    _, calls = calls_of(demo_file)
    call = calls[3]
    assert call.request is not None
    whole = transcript_of(call.request.context)
    entries = news_transcript(call.news(), call.request.context, folded=False)
    assert len(entries) == len(whole) == 2 + 8
    assert [e.title for e in entries[-3:]] == [
        "Assistant · toolUse · new",
        "Tool result · echo (call_2_2) · new",
        "Tool result · echo (call_2_3) · new",
    ]
    assert entries[:-3] == whole[:-3]


def test_the_first_call_shows_everything(demo_file: Path) -> None:
    _, calls = calls_of(demo_file)
    call = calls[0]
    assert call.request is not None
    assert not can_fold(call.news(), call.request.context)
    assert news_transcript(call.news(), call.request.context) == transcript_of(call.request.context)


def test_a_changed_system_prompt_and_options_are_shown_as_changed() -> None:
    before = request_row(4, ["one", "two"])
    after = request_row(5, ["one", "two", "three"], system="Be thorough.")
    after = after.model_copy(update={"options": {"temperature": 1}})
    news = request_news(after, before, 4)
    assert news.kept == 2 and news.changed() == ["system prompt", "options"]
    entries = news_transcript(news, after.context)
    assert entries[0].parts[0].text == "… 2 earlier messages, same as call 4 — press u to unfold"
    assert [e.title for e in entries[1:]] == [
        "System · changed since call 4",
        "Settings · changed since call 4",
        "User",
    ]
    assert entries[1].parts[0].text == "Be thorough."
    assert entries[2].parts[0].text == '{"temperature": 1}'


def test_a_conversation_that_is_not_a_continuation_is_shown_whole() -> None:
    before = request_row(0, ["one"], system="A")
    after = request_row(1, ["other"], system="B")
    news = request_news(after, before, 0)
    assert not can_fold(news, after.context)
    assert news_transcript(news, after.context) == transcript_of(after.context)


def test_the_model_call_gets_the_changed_model(demo_file: Path) -> None:
    _, calls = calls_of(demo_file)
    news = calls[4].news()
    assert news.base == 3 and news.changed() == ["model"]
