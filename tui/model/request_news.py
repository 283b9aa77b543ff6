"""What a call sent that the call before it had not: its new messages and changed settings.

The new part is the library's own: `referring_row` (what format 2 stores for a request given the
one before it) applied to the two full requests, so the TUI and the file agree on what is new.
Never imports Textual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from openprogram.providers.recording.format import RequestRow
from openprogram.providers.recording.request_references import referring_row
from tui.model.transcript import TranscriptEntry, TranscriptPart, transcript_of

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
