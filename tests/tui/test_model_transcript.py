"""The context as a chat transcript, and an assistant message in the same shape."""

from __future__ import annotations

from pathlib import Path

from openprogram.providers.recording.reader import scan_recording
from openprogram.providers.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from tui.model.transcript import message_entry, transcript_of


def test_demo_context_reads_as_a_chat(demo_file: Path) -> None:
    calls = scan_recording(demo_file).calls
    entries = transcript_of(calls[3].request.context)
    roles = [e.role for e in entries]
    assert roles[:3] == ["system", "tools", "user"]
    assert roles.count("tool") == 3 and roles.count("assistant") == 3
    tool_results = [e for e in entries if e.role == "tool"]
    assert tool_results[1].title == "Tool result · echo (call_2_2)"
    assert tool_results[1].parts[0].text == "echo:ping"
    calls_made = [p for e in entries for p in e.parts if p.kind == "tool_call"]
    assert calls_made[0].title == "echo (call_0_2)" and '"hello world"' in calls_made[0].text


def test_an_assistant_message_lists_its_blocks() -> None:
    message = AssistantMessage(
        api="a",
        provider="p",
        model="m",
        content=[TextContent(text="hi"), ToolCall(id="c1", name="echo", arguments={"text": "x"})],
        stop_reason="toolUse",
        error_message="boom",
    )
    entry = message_entry(message)
    assert entry.title == "Assistant · toolUse" and entry.is_error
    assert [p.kind for p in entry.parts] == ["text", "tool_call", "error"]


def test_an_empty_message_says_so() -> None:
    entry = message_entry(AssistantMessage(api="a", provider="p", model="m"))
    assert entry.parts[0].text == "(no content yet)"


def test_a_context_the_types_refuse_is_one_problem_entry() -> None:
    entries = transcript_of({"messages": [{"role": "wizard"}]})
    assert len(entries) == 1 and entries[0].role == "problem"
    assert entries[0].parts[0].text.startswith("context.messages.0")


def test_long_entries_are_bounded_with_a_note() -> None:
    from tui.model.transcript import TranscriptEntry, TranscriptPart, bounded_entry

    entry = TranscriptEntry(
        "assistant", "A", tuple(TranscriptPart("text", "x" * 100) for _ in range(5))
    )
    assert bounded_entry(entry, limit=1000) is entry
    cut = bounded_entry(entry, limit=150)
    assert [len(p.text) for p in cut.parts[:2]] == [100, 51]
    assert cut.parts[-1].kind == "note"
    assert cut.parts[-1].text.startswith("… 350 more characters and 3 more blocks")


def test_a_streaming_tool_call_without_arguments_says_so() -> None:
    message = AssistantMessage(
        api="a", provider="p", model="m", content=[ToolCall(id="c", name="echo", arguments={})]
    )
    assert message_entry(message, streaming=True).parts[0].text == "(arguments still streaming)"
    assert message_entry(message).parts[0].text == "{}"


def test_signed_blocks_of_the_new_apis_say_what_they_carry() -> None:
    message = AssistantMessage(
        api="google-generative-ai",
        provider="google",
        model="m",
        content=[
            ThinkingContent(thinking="", signature='{"type":"reasoning","encrypted_content":"x"}'),
            TextContent(text="Paris", signature="S1"),
            TextContent(text="", signature="S2"),
            ToolCall(id="f#0", name="look", arguments={}, signature="S3"),
        ],
    )
    parts = message_entry(message).parts
    assert [(p.kind, p.text, p.title) for p in parts[:3]] == [
        ("thinking", "(encrypted by the vendor)", "encrypted reasoning"),
        ("text", "Paris", "signed"),
        ("text", "(no text: the vendor's signature)", "signed"),
    ]
    assert parts[3].title == "look (f#0) · signed"


def test_what_the_types_could_not_hold_is_named_on_one_line() -> None:
    items = [
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "url_citation", "url": "https://example.com", "start_index": 0},
        {"type": "web_search_call", "id": "ws_2", "status": "completed"},
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}, "thoughtSignature": "s"},
        {"groundingMetadata": {"webSearchQueries": ["q"]}},
        {"type": "x\x1b]52;c;aGk=\x07\u202e\nevil"},
        {"type": "dropped", "count": 3},
    ]
    message = AssistantMessage(
        api="a", provider="p", model="m", content=[TextContent(text="hi")], vendor_items=items
    )
    parts = message_entry(message).parts
    assert [p.kind for p in parts] == ["text", "note"]
    line = parts[1].text
    assert line == (
        "not shown: 2 web_search_call, 1 url_citation, 1 executableCode, 1 groundingMetadata, "
        "1 x␛]52;c;aGk=␇<U+202E>␊evil, 3 more not kept (the Raw tab has them)"
    )
    assert "\x1b" not in line and "\n" not in line


def test_a_message_with_nothing_left_out_has_no_not_shown_line() -> None:
    message = AssistantMessage(api="a", provider="p", model="m", content=[TextContent(text="hi")])
    assert all("not shown" not in p.text for p in message_entry(message).parts)
