"""A request's context as a chat transcript (system prompt, tools, user, assistant and tool results),
and what a call sent that the call before it had not: its new messages and changed settings.

The same entry shape describes a single assistant message (the Events and Response tabs), so the
transcript and the message views read alike. The new part of a request is the library's own:
`referring_row` (what format 2 stores for a request given the one before it) applied to the two
full requests, so the TUI and the file agree on what is new. Never imports Textual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from openprogram.providers.recording.request_references import referring_row
from openprogram.providers.recording.row_models import RequestRow
from openprogram.providers.types import (
    AssistantMessage,
    Context,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram.text import human_size
from openprogram.visible_text import visible, visible_line

ENTRY_TEXT_LIMIT = 8000
"""An entry shows at most this many characters (drawing wraps every one); the Raw tab has all."""

TRANSCRIPT_ENTRIES = 100
"""A transcript shows at most this many turns, the last ones (each is a box to lay out); the JSON
tree and the Raw tab hold the rest."""

PartKind = Literal["text", "thinking", "tool_call", "image", "note", "error"]
Role = Literal["system", "tools", "user", "assistant", "tool", "problem", "folded"]
"""`folded`: a line standing for entries left out (the earlier conversation)."""


@dataclass(frozen=True)
class TranscriptPart:
    """One block of a message: text, thinking, a tool call (with its arguments), an image, a note."""

    kind: PartKind
    text: str
    title: str | None = None


@dataclass(frozen=True)
class TranscriptEntry:
    """One turn of the conversation."""

    role: Role
    title: str
    parts: tuple[TranscriptPart, ...]
    is_error: bool = False


def bounded_entry(entry: TranscriptEntry, limit: int = ENTRY_TEXT_LIMIT) -> TranscriptEntry:
    """`entry` with its text cut to `limit` characters in all, and a note saying how much is left;
    every text made safe for the terminal (`visible`: escapes and bidi controls as marks)."""
    safe = TranscriptEntry(
        entry.role,
        visible_line(entry.title),
        tuple(
            TranscriptPart(
                part.kind,
                visible(part.text),
                visible_line(part.title) if part.title else part.title,
            )
            for part in entry.parts
        ),
        entry.is_error,
    )
    entry = entry if safe == entry else safe  # the same object when nothing had to change
    total = sum(len(part.text) for part in entry.parts)
    if total <= limit:
        return entry
    parts: list[TranscriptPart] = []
    budget = limit
    for part in entry.parts:
        if budget <= 0:
            break
        shown = part.text if len(part.text) <= budget else part.text[:budget] + "…"
        parts.append(TranscriptPart(part.kind, shown, part.title))
        budget -= len(part.text)
    hidden = total - limit
    omitted = len(entry.parts) - len(parts)
    note = f"… {hidden:,} more characters"
    if omitted:
        note += f" and {omitted} more block{'s' if omitted != 1 else ''}"
    parts.append(TranscriptPart("note", f"{note} not drawn here (the Raw tab has every row)"))
    return TranscriptEntry(entry.role, entry.title, tuple(parts), entry.is_error)


def _arguments(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, indent=2, sort_keys=True)


def _image(block: ImageContent) -> TranscriptPart:
    size = human_size(len(block.data) * 3 // 4)
    return TranscriptPart("image", f"[image {block.mime_type}, {size}]")


def _user_parts(content: str | list[TextContent | ImageContent]) -> tuple[TranscriptPart, ...]:
    if isinstance(content, str):
        return (TranscriptPart("text", content),)
    return tuple(
        TranscriptPart("text", block.text) if isinstance(block, TextContent) else _image(block)
        for block in content
    )


def message_entry(
    message: AssistantMessage, title: str = "Assistant", streaming: bool = False
) -> TranscriptEntry:
    """An assistant message as a transcript entry: thinking, text, tool calls, the error.

    While `streaming`, a tool call without arguments yet says so: the library parses streamed
    arguments only once they are whole JSON.
    """
    parts: list[TranscriptPart] = []
    for block in message.content:
        if isinstance(block, ThinkingContent) and block.redacted:
            parts.append(
                TranscriptPart("thinking", "(encrypted by the vendor)", "redacted thinking")
            )
        elif isinstance(block, ThinkingContent) and not block.thinking and block.signature:
            # OpenAI reasoning with no summary: only the encrypted item, kept to send back.
            parts.append(
                TranscriptPart("thinking", "(encrypted by the vendor)", "encrypted reasoning")
            )
        elif isinstance(block, ThinkingContent):
            parts.append(TranscriptPart("thinking", block.thinking))
        elif isinstance(block, TextContent):
            parts.append(_text_part(block))
        elif isinstance(block, ToolCall):
            title_text = f"{block.name} ({block.id})" + (" · signed" if block.signature else "")
            arguments = (
                "(arguments still streaming)"
                if streaming and not block.arguments
                else _arguments(block.arguments)
            )
            parts.append(TranscriptPart("tool_call", arguments, title_text))
    if message.error_message:
        parts.append(TranscriptPart("error", message.error_message))
    if message.vendor_items:
        parts.append(TranscriptPart("note", not_shown_line(message.vendor_items)))
    if not parts:
        parts.append(TranscriptPart("note", "(no content yet)"))
    heading = f"{title} · {message.stop_reason}" if message.stop_reason != "stop" else title
    return TranscriptEntry("assistant", heading, tuple(parts), is_error=bool(message.error_message))


def vendor_item_kind(item: dict[str, Any]) -> str:
    """What a vendor item is: its `type` (Responses items and annotations), else its first key other
    than a signature (Gemini parts and metadata: `executableCode`, `groundingMetadata`)."""
    kind = item.get("type")
    if isinstance(kind, str) and kind:
        return kind
    return next((key for key in item if key not in ("thoughtSignature", "thought")), "item")


def not_shown_line(items: list[dict[str, Any]]) -> str:
    """One line counting the vendor items the types could not hold, by kind in order of first sight,
    e.g. `not shown: 2 web_search_call, 1 url_citation (the Raw tab has them)`; names from the file
    are made visible and cut to 40 characters."""
    counts: dict[str, int] = {}
    dropped = 0
    for item in items:
        if item.get("type") == "dropped" and isinstance(item.get("count"), int):
            dropped += item["count"]
            continue
        kind = visible_line(vendor_item_kind(item))
        kind = kind if len(kind) <= 40 else kind[:39] + "…"
        counts[kind] = counts.get(kind, 0) + 1
    listed = ", ".join(f"{count} {kind}" for kind, count in counts.items())
    more = f", {dropped} more not kept" if dropped else ""
    return f"not shown: {listed}{more} (the Raw tab has them)"


def _text_part(block: TextContent) -> TranscriptPart:
    """A text block; a vendor signature on it (Gemini's) is named, and an empty signed block says so."""
    labels = [
        label for label, on in (("refusal", block.refusal), ("signed", block.signature)) if on
    ]
    text = block.text if block.text or not block.signature else "(no text: the vendor's signature)"
    return TranscriptPart("text", text, " · ".join(labels) or None)


def _tool_result_entry(message: ToolResultMessage) -> TranscriptEntry:
    parts = _user_parts(list(message.content)) or (TranscriptPart("note", "(empty result)"),)
    title = f"Tool result · {message.tool_name} ({message.tool_call_id})"
    if message.is_error:
        title += " · error"
    return TranscriptEntry("tool", title, parts, is_error=message.is_error)


def bounded_transcript(
    entries: list[TranscriptEntry], limit: int = TRANSCRIPT_ENTRIES
) -> list[TranscriptEntry]:
    """`entries`, or past `limit` its first and last turns around one line saying how many are
    not shown: drawing a transcript is bounded by what a screen can show, not by the request."""
    if len(entries) <= limit:
        return entries
    head = limit // 2
    tail = limit - 1 - head
    hidden = len(entries) - head - tail
    note = TranscriptPart(
        "note", "not shown here: the JSON tree below and the Raw tab hold the whole request"
    )
    line = TranscriptEntry("folded", f"… {hidden:,} turns in between", (note,))
    return [*entries[:head], line, *entries[-tail:]]


def transcript_of(context: dict[str, Any]) -> list[TranscriptEntry]:
    """The recorded context as a transcript; a context the types refuse becomes one problem entry."""
    try:
        typed = Context.model_validate(context)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        reason = f"context.{where}: {first['msg']}" if where else first["msg"]
        note = TranscriptPart("error", f"{reason} (the JSON tree below shows it as stored)")
        return [TranscriptEntry("problem", "Context does not match the types", (note,), True)]
    entries: list[TranscriptEntry] = []
    if typed.system_prompt:
        entries.append(
            TranscriptEntry("system", "System", (TranscriptPart("text", typed.system_prompt),))
        )
    if typed.tools:
        parts = tuple(
            TranscriptPart("text", tool.description or "(no description)", tool.name)
            for tool in typed.tools
        )
        entries.append(TranscriptEntry("tools", "Tools offered", parts))
    for message in typed.messages:
        if isinstance(message, UserMessage):
            entries.append(TranscriptEntry("user", "User", _user_parts(message.content)))
        elif isinstance(message, AssistantMessage):
            entries.append(message_entry(message))
        else:
            entries.append(_tool_result_entry(message))
    if not entries:
        entries.append(
            TranscriptEntry("problem", "Empty context", (TranscriptPart("note", "no messages"),))
        )
    return entries


UNFOLD_KEY = "u"
"""The key that unfolds (and folds again) the earlier conversation."""

CONTEXT_NAMES = {"system_prompt": "system prompt", "tools": "tools"}


@dataclass(frozen=True)
class RequestNews:
    """What call `call_index` sent compared with call `base` (None: nothing to compare with, so
    the request is new as a whole)."""

    base: int | None
    kept: int = 0
    """Messages first, the same as the base call's (the earlier conversation)."""
    context: dict[str, Any] = field(default_factory=dict)
    """Only what changed: context keys other than messages that differ, and `messages` new."""
    model: dict[str, Any] | None = None
    """The model, when it changed."""
    options: dict[str, Any] | None = None
    options_changed: bool = False

    @property
    def new_messages(self) -> list[Any]:
        messages = self.context.get("messages", [])
        return messages if isinstance(messages, list) else []

    def changed(self) -> list[str]:
        """The settings that changed, in words: `system prompt`, `tools`, `model`, `options`."""
        names = [CONTEXT_NAMES.get(key, key) for key in self.context if key != "messages"]
        if self.model is not None:
            names.append("model")
        if self.options_changed:
            names.append("options")
        return names


def _request_dict(request: RequestRow) -> dict[str, Any]:
    return {"model": request.model, "context": request.context, "options": request.options}


def request_news(
    request: RequestRow, previous: RequestRow | None, previous_index: int | None
) -> RequestNews:
    """What `request` sent that `previous` (call `previous_index`'s full request) had not."""
    if previous is None or previous_index is None:
        return RequestNews(None)
    row = referring_row(_request_dict(request), previous_index, _request_dict(previous))
    if "base" not in row:
        return RequestNews(None)
    return RequestNews(
        base=previous_index,
        kept=row.get("keep", 0),
        context=row["context"],
        model=row.get("model"),
        options=row.get("options"),
        options_changed="options" in row,
    )


def _folded_line(news: RequestNews, context: dict[str, Any]) -> TranscriptEntry:
    """One line for what is the same as the base call: its messages, else the system prompt and
    tools (a system prompt or tools that changed are shown as such, so the rest is the same)."""
    if news.kept:
        same = f"{news.kept:,} earlier message" + ("s" if news.kept != 1 else "")
    else:
        same = " and ".join(
            words
            for key, words in CONTEXT_NAMES.items()
            if context.get(key) and key not in news.context
        )
    text = f"… {same}, same as call {news.base} — press {UNFOLD_KEY} to unfold"
    return TranscriptEntry("folded", "Earlier conversation", (TranscriptPart("note", text),))


def _changed_entries(news: RequestNews) -> list[TranscriptEntry]:
    since = f"changed since call {news.base}"
    entries: list[TranscriptEntry] = []
    shown = {key: value for key, value in news.context.items() if key in CONTEXT_NAMES}
    if shown:
        for entry in transcript_of(shown):
            if entry.role in ("system", "tools"):
                entries.append(TranscriptEntry(entry.role, f"{entry.title} · {since}", entry.parts))
    for key, words in CONTEXT_NAMES.items():
        if key in news.context and not news.context[key]:
            gone = TranscriptPart("note", f"no {words} in this call")
            entries.append(TranscriptEntry("system", f"{words.capitalize()} · {since}", (gone,)))
    others = [key for key in news.context if key not in CONTEXT_NAMES and key != "messages"]
    settings: list[TranscriptPart] = []
    if news.model is not None:
        model = news.model
        settings.append(
            TranscriptPart("text", f"{model.get('provider')}/{model.get('id')}", "model")
        )
    if news.options_changed:
        settings.append(TranscriptPart("text", _compact(news.options), "options"))
    for key in others:
        settings.append(TranscriptPart("text", _compact(news.context[key]), f"context.{key}"))
    if settings:
        entries.append(TranscriptEntry("system", f"Settings · {since}", tuple(settings)))
    return entries


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def news_transcript(
    news: RequestNews, context: dict[str, Any], folded: bool = True
) -> list[TranscriptEntry]:
    """The request as a transcript: folded, the earlier conversation as one line then what is new;
    unfolded (or with nothing to compare with), every entry, the new messages marked as such."""
    if news.base is None or not can_fold(news, context):
        return transcript_of(context)
    if not folded:
        entries = transcript_of(context)
        if len(entries) == 1 and entries[0].role == "problem":
            return entries
        new = len(news.new_messages)
        first_new = len(entries) - new
        return [
            entry
            if n < first_new
            else TranscriptEntry(entry.role, f"{entry.title} · new", entry.parts, entry.is_error)
            for n, entry in enumerate(entries)
        ]
    entries = [_folded_line(news, context), *_changed_entries(news)]
    if news.new_messages:
        entries.extend(transcript_of({"messages": news.new_messages}))
    else:
        note = TranscriptPart("note", "no new messages")
        entries.append(TranscriptEntry("folded", "Nothing new", (note,)))
    return entries


def can_fold(news: RequestNews, context: dict[str, Any]) -> bool:
    """There is something the same as the call before to fold away."""
    if news.base is None:
        return False
    return bool(news.kept) or any(
        context.get(key) and key not in news.context for key in CONTEXT_NAMES
    )
