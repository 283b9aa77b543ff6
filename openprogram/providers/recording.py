"""Recording: a transparent provider that writes every call it passes through to a JSONL file.

`RecordingProvider(real_provider, path_or_sink)` writes the redacted request, then each event, then
yields the event unchanged. However the call ends (done, provider error, cancellation, or a consumer
that stops early) it writes a `call_end` with that outcome and closes the source stream.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.recording_format import (
    RECORDING_FORMAT_VERSION,
    CallOutcome,
)
from openprogram.providers.recording_sink import RecordingSink, RecordingWriteError
from openprogram.providers.redaction import (
    REDACTION_VERSION,
    SECRET_FIELD_NAMES,
    SECRET_PLACEHOLDER,
    remove_secret_text,
    remove_secret_values,
)
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
)

__all__ = [
    "RECORDING_FORMAT_VERSION",
    "REDACTION_VERSION",
    "SECRET_FIELD_NAMES",
    "SECRET_PLACEHOLDER",
    "RecordingProvider",
    "RecordingSink",
    "RecordingWriteError",
    "remove_secret_values",
    "request_payload",
]

MAX_ERROR_TEXT = 500


def request_payload(
    model: Model, context: Context, options: StreamOptions | None
) -> dict[str, Any]:
    """The redacted JSON form of a call's arguments, as recorded and as compared by replay.

    Runtime-only options (`signal`, `on_payload`) are excluded by the options model itself.
    """
    payload = {
        "model": model.model_dump(mode="json"),
        "context": context.model_dump(mode="json"),
        "options": options.model_dump(mode="json") if options is not None else None,
    }
    return remove_secret_values(payload)


def describe_error(exc: BaseException) -> str:
    """`Type: message`, redacted, on one line and bounded, for a call_end row or a diagnostic."""
    text = remove_secret_text(" ".join(f"{type(exc).__name__}: {exc}".split()))
    return text if len(text) <= MAX_ERROR_TEXT else text[: MAX_ERROR_TEXT - 1] + "…"


class RecordingProvider:
    """Wraps `provider` and records every call into `path_or_sink` (a path or a `RecordingSink`)."""

    def __init__(
        self, provider: ApiProvider, path_or_sink: str | os.PathLike[str] | RecordingSink
    ) -> None:
        self.provider = provider
        self.sink = (
            path_or_sink if isinstance(path_or_sink, RecordingSink) else RecordingSink(path_or_sink)
        )
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
        call_index = self.sink.begin_call(request_payload(model, context, options))
        iterator = source.__aiter__()
        count = 0
        outcome: CallOutcome | None = "abandoned"
        error: str | None = None
        try:
            while True:
                try:
                    event = await iterator.__anext__()
                except StopAsyncIteration:
                    outcome, error = "error", "stream ended without a done or error event"
                    return
                self.sink.write_event(
                    call_index, count, remove_secret_values(event.model_dump(mode="json"))
                )
                count += 1
                if event.type in ("done", "error"):
                    # End the call before handing over the terminal event: a consumer that stops
                    # here (and never closes us) still leaves a complete call in the file.
                    self.sink.end_call(call_index, count, "complete")
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
                    self.sink.end_call(call_index, count, outcome, error)
                except RecordingWriteError:
                    if sys.exc_info()[1] is None:
                        raise  # otherwise the error already on its way out says more

            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()
