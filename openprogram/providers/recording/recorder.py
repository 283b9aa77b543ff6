"""Recording: a transparent provider that writes every call it passes through to a JSONL file.

`RecordingProvider(real_provider, path_or_sink)` writes the redacted request, then each event, then
yields the event unchanged. However the call ends (done, provider error, cancellation, or a consumer
that stops early) it writes a `call_end` with that outcome and closes the source stream.
"""

from __future__ import annotations

import asyncio
import os
import sys
import typing
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from pydantic import BaseModel

from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.recording.block_redaction import BlockRedactor
from openprogram.providers.recording.format import CallOutcome
from openprogram.providers.recording.redaction import (
    is_secret_field_name,
    needs_redaction,
    remove_secret_text,
    remove_secret_values,
)
from openprogram.providers.recording.rows import (
    encode_json,
    encode_string,
)
from openprogram.providers.recording.rules import (
    MatchingRules,
    ScrubRule,
    scrub_text,
    scrub_value,
    validate_rules,
)
from openprogram.providers.recording.rules_sources import project_rules as find_project_rules
from openprogram.providers.recording.writer import RecordingSink, RecordingWriteError
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
)
from openprogram.text import one_line, shorten

__all__ = ["RecordingProvider", "redact_request_dump", "request_dump", "request_payload"]

MAX_ERROR_TEXT = 500


def request_payload(
    model: Model, context: Context, options: StreamOptions | None
) -> dict[str, Any]:
    """The redacted JSON form of a call's arguments, as recorded and as compared by replay.

    Runtime-only options (`signal`, `on_payload`) are excluded by the options model itself.
    """
    return redact_request_dump(request_dump(model, context, options))


def request_dump(model: Model, context: Context, options: StreamOptions | None) -> dict[str, Any]:
    """`request_payload` before redaction: the JSON dumps of the arguments (fresh dicts)."""
    return {
        "model": model.model_dump(mode="json"),
        "context": context.model_dump(mode="json"),
        "options": options.model_dump(mode="json") if options is not None else None,
    }


def redact_request_dump(dump: dict[str, Any]) -> dict[str, Any]:
    """`remove_secret_values(dump)` for a `request_dump`, reusing the parts with nothing secret."""
    return {part: _redacted(value) for part, value in dump.items()}


def _redacted(dumped: Any) -> Any:
    """`remove_secret_values` of a fresh dump, which is kept as it is when nothing is secret."""
    return remove_secret_values(dumped) if needs_redaction(dumped) else dumped


def _flat_event_templates() -> dict[type[BaseModel], tuple[str, str | None, bool]]:
    """Row text templates for the flat events, which are nearly all of a stream's events.

    A delta (or a text start or end) dumps to `{"content_index": int, "type": const}` plus at
    most one `str` field: only that field can hold a secret, so it is redacted and encoded alone
    into a template of the sorted keys. A class of another shape, or one that gains a field,
    takes the general path.
    """
    templates: dict[type[BaseModel], tuple[str, str | None, bool]] = {}
    union = typing.get_args(AssistantMessageEvent)[0]  # Annotated[A | B | ..., discriminator]
    for cls in typing.get_args(union):
        fields = cls.model_fields
        kind = fields["type"].default
        texts = [name for name in fields if name not in ("type", "content_index")]
        if (
            "content_index" not in fields
            or fields["content_index"].annotation is not int
            or len(texts) > 1
            or any(fields[name].annotation is not str for name in texts)
            or any(is_secret_field_name(name) for name in fields)
            or remove_secret_text(kind) != kind
        ):
            continue
        text = texts[0] if texts else None
        parts, slots = [], []
        for key in sorted(["content_index", "type", *texts]):
            if key == "type":
                parts.append(f'"type":{encode_json(kind)}')
            else:
                parts.append(f"{encode_json(key)}:{'%d' if key == 'content_index' else '%s'}")
                slots.append(key)
        template = "{" + ",".join(parts) + "}"
        text_first = slots[0] == text
        templates[cls] = (template, text, text_first)
    return templates


_FLAT_EVENTS = _flat_event_templates()


def event_json(event: AssistantMessageEvent) -> str:
    """The event as its row stores it: `encode_json(remove_secret_values(event.model_dump(...)))`."""
    flat = _FLAT_EVENTS.get(type(event))
    if flat is not None:
        template, field, text_first = flat
        index = event.content_index  # type: ignore[union-attr]
        if type(index) is int:
            if field is None:
                return template % index
            text = getattr(event, field)
            if type(text) is str:
                text = encode_string(remove_secret_text(text))
                return template % ((text, index) if text_first else (index, text))
    return encode_json(_redacted(event.model_dump(mode="json")))


def describe_error(exc: BaseException) -> str:
    """`Type: message`, redacted, on one line and bounded, for a call_end row or a diagnostic."""
    return shorten(remove_secret_text(one_line(f"{type(exc).__name__}: {exc}")), MAX_ERROR_TEXT)


class RecordingProvider:
    """Wraps `provider` and records every call into `path_or_sink` (a path or a `RecordingSink`)."""

    def __init__(
        self,
        provider: ApiProvider,
        path_or_sink: str | os.PathLike[str] | RecordingSink,
        *,
        rules: MatchingRules | None = None,
        project_rules: bool = True,
    ) -> None:
        self.provider = provider
        self.sink = (
            path_or_sink if isinstance(path_or_sink, RecordingSink) else RecordingSink(path_or_sink)
        )
        found = find_project_rules() if project_rules else MatchingRules()
        self.scrub: tuple[ScrubRule, ...] = (
            *found.scrub,
            *validate_rules(rules or MatchingRules()).scrub,
        )
        """The user's scrub rules (`pyproject.toml`, then the caller's), applied after redaction."""
        self.requires_credentials: bool = getattr(provider, "requires_credentials", True)

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Record one `stream` call of the wrapped provider."""
        return self._record(self.provider.stream(model, context, options), model, context, options)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Record one `stream_simple` call of the wrapped provider."""
        source = self.provider.stream_simple(model, context, options)
        return self._record(source, model, context, options)

    async def _record(
        self,
        source: AsyncIterable[AssistantMessageEvent],
        model: Model,
        context: Context,
        options: StreamOptions | None,
    ) -> AsyncIterator[AssistantMessageEvent]:
        payload = scrub_value(request_payload(model, context, options), self.scrub)
        call_index = self.sink.begin_call(payload)
        iterator = source.__aiter__()
        everywhere = tuple(rule for rule in self.scrub if rule.covers_everything)
        if everywhere:
            blocks = BlockRedactor(
                lambda event: encode_json(
                    scrub_value(remove_secret_values(event.model_dump(mode="json")), everywhere)
                ),
                lambda text: scrub_text(text, everywhere),
            )
        else:
            blocks = BlockRedactor(event_json)
        written = 0
        outcome: CallOutcome | None = "abandoned"
        error: str | None = None

        def write(rows: list[str]) -> None:
            nonlocal written
            for row in rows:
                self.sink.write_event_json(call_index, written, row)
                written += 1

        try:
            while True:
                try:
                    event = await iterator.__anext__()
                except StopAsyncIteration:
                    outcome, error = "error", "stream ended without a done or error event"
                    return
                write(blocks.rows_for(event))
                if event.type in ("done", "error"):
                    # End the call before handing over the terminal event: a consumer that stops
                    # here (and never closes us) still leaves a complete call in the file.
                    self.sink.end_call(call_index, written, "complete")
                    outcome = None
                    yield event
                    return  # a second terminal event is neither recorded nor delivered
                yield event
        except GeneratorExit:
            raise  # the consumer stopped early: outcome stays "abandoned"
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            outcome, error = "cancelled", describe_error(exc)
            raise
        except BaseException as exc:
            outcome, error = "error", describe_error(exc)
            raise
        finally:
            if outcome is not None:
                try:
                    write(blocks.release_all())  # what was received, redacted as a whole
                    self.sink.end_call(call_index, written, outcome, error)
                except RecordingWriteError:
                    if sys.exc_info()[1] is None:
                        raise  # otherwise the error already on its way out says more

            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()
