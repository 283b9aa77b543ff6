"""Recording: a transparent provider that writes every call it passes through to a JSONL file.

`RecordingProvider(real_provider, path_or_sink)` writes the redacted request, then each event, then
yields the event unchanged. However the call ends (done, provider error, cancellation, a consumer
that stops early, or a provider that fails before its first event) it writes a `call_end` with that
outcome and closes the source stream. It is a `WrapperProvider`: one method serves both entry points.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.recording.block_redaction import BlockRedactor
from openprogram.providers.recording.redaction import remove_secret_text, remove_secret_values
from openprogram.providers.recording.row_models import CallOutcome
from openprogram.providers.recording.rules import (
    MatchingRules,
    ScrubRule,
    scrub_text,
    scrub_value,
    validate_rules,
)
from openprogram.providers.recording.sent_again import StoredForms
from openprogram.providers.recording.writer import RecordingSink, RecordingWriteError
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
)
from openprogram.providers.wrapper import Forward, WrapperProvider
from openprogram.text import one_line, shorten

__all__ = [
    "RecordingProvider",
    "StoredMessages",
    "event_redactor",
    "redact_request_dump",
    "request_dump",
    "request_payload",
]

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
    """`request_payload` from a `request_dump`: `remove_secret_values` of it."""
    return remove_secret_values(dump)


class StoredMessages:
    """Requests as they are stored (redacted, then scrubbed by `scrub`), call after call: a
    message whose dump is the same JSON text as last time's at its place keeps the form stored
    then (`sent_again.StoredForms`). Used by the recorder and by `recordings import`."""

    def __init__(self, scrub: tuple[ScrubRule, ...]) -> None:
        self._scrub = scrub
        self._forms = StoredForms(
            lambda dump, place: scrub_value(
                remove_secret_values(dump), scrub, ("context", "messages", place)
            )
        )

    def payload(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> dict[str, Any]:
        """`scrub_value(request_payload(model, context, options), scrub)`, with the stored forms
        of the messages the previous call sent unchanged."""
        dump = request_dump(model, context.model_copy(update={"messages": []}), options)
        payload = scrub_value(redact_request_dump(dump), self._scrub)
        payload["context"]["messages"] = self._forms.stored(context.messages)
        return payload


def event_dump(event: AssistantMessageEvent) -> dict[str, Any]:
    """The event as its row stores it: the redacted JSON dump."""
    return remove_secret_values(event.model_dump(mode="json"))


def event_redactor(scrub: tuple[ScrubRule, ...]) -> BlockRedactor:
    """The redaction of one call's events as the recorder writes them: the built-in redaction,
    then the scrub rules that cover every field (a fresh redactor per call)."""
    everywhere = tuple(rule for rule in scrub if rule.covers_everything)
    if not everywhere:
        return BlockRedactor(event_dump)
    return BlockRedactor(
        lambda event: scrub_value(event_dump(event), everywhere),
        lambda text: scrub_text(text, everywhere),
    )


def describe_error(exc: BaseException) -> str:
    """`Type: message`, redacted, on one line and bounded, for a call_end row or a diagnostic."""
    return shorten(remove_secret_text(one_line(f"{type(exc).__name__}: {exc}")), MAX_ERROR_TEXT)


class RecordingProvider(WrapperProvider):
    """Wraps `provider` and records every call into `path_or_sink` (a path or a `RecordingSink`).

    A path is opened (its folder and header created) now, so a file that cannot be written fails
    here. `rules` are the user's (`scrub` applies, after the built-in redaction); nothing is read
    from `pyproject.toml` here: pass `rules_sources.project_rules()` for the project's rules.
    """

    def __init__(
        self,
        provider: ApiProvider,
        path_or_sink: str | os.PathLike[str] | RecordingSink,
        *,
        rules: MatchingRules | None = None,
    ) -> None:
        super().__init__(provider)
        self.sink = (
            path_or_sink if isinstance(path_or_sink, RecordingSink) else RecordingSink(path_or_sink)
        )
        self.scrub: tuple[ScrubRule, ...] = validate_rules(rules or MatchingRules()).scrub
        """The user's scrub rules, applied after redaction."""
        self._messages = StoredMessages(self.scrub)
        """The last call's messages and their stored forms, reused when sent again."""

    def wrap_call(
        self, model: Model, context: Context, options: StreamOptions | None, forward: Forward
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Record one call of the wrapped provider (by either entry point)."""
        return self._record(forward, model, context, options)

    async def _record(
        self,
        forward: Forward,
        model: Model,
        context: Context,
        options: StreamOptions | None,
    ) -> AsyncIterator[AssistantMessageEvent]:
        payload = self._messages.payload(model, context, options)
        call_index = self.sink.begin_call(payload)
        blocks = event_redactor(self.scrub)
        written = 0
        outcome: CallOutcome | None = "abandoned"
        error: str | None = None
        iterator: AsyncIterator[AssistantMessageEvent] | None = None

        def write(events: list[dict[str, Any]]) -> None:
            nonlocal written
            for event in events:
                self.sink.write_event(call_index, written, event)
                written += 1

        try:
            # Inside the try: a provider that fails before its first event is an `error` call.
            iterator = aiter(forward())
            while True:
                try:
                    event = await anext(iterator)
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
