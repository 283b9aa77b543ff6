"""The shared provider boundary: every model call goes through `stream()` or `stream_simple()`.

Both find the provider registered for `model.api` and its API key in the environment
(`credential_env_var`); `complete()` and `complete_simple()` `drain()` them to the message their
`done` or `error` event carries.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import AsyncIterable, AsyncIterator
from typing import TypeVar

from openprogram.errors import OpenProgramError
from openprogram.providers.api_registry import ApiProvider, get_api_provider
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    SimpleStreamOptions,
    StreamOptions,
)

_Options = TypeVar("_Options", bound=StreamOptions)


class StreamEndedWithoutResultError(OpenProgramError, RuntimeError):
    """A provider stream stopped without a `done` or `error` event."""


def credential_env_var(provider: str) -> str:
    """The environment variable that holds `provider`'s API key, e.g. `OPENAI_API_KEY`."""
    return re.sub(r"[^A-Z0-9]+", "_", provider.upper()).strip("_") + "_API_KEY"


def _with_credentials(provider: ApiProvider, model: Model, options: _Options) -> _Options:
    # Replay and fail-closed providers never need a key, so they never trigger a lookup.
    if not getattr(provider, "requires_credentials", True) or options.api_key is not None:
        return options
    key = os.environ.get(credential_env_var(model.provider))
    return options.model_copy(update={"api_key": key}) if key else options


@contextlib.asynccontextmanager
async def _closing(
    events: AsyncIterable[AssistantMessageEvent],
) -> AsyncIterator[AsyncIterable[AssistantMessageEvent]]:
    """Close the provider's stream when ours is closed (a stream without `aclose` is fine)."""
    try:
        yield events
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()


async def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one call's events from the provider registered for `model.api`."""
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    provider = get_api_provider(model.api)
    resolved = _with_credentials(provider, model, options or StreamOptions())
    async with _closing(provider.stream(model, context, resolved)) as events:
        async for event in events:
            yield event


async def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AsyncIterator[AssistantMessageEvent]:
    """Like `stream`, with vendor-neutral options (`reasoning` effort)."""
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    provider = get_api_provider(model.api)
    resolved = _with_credentials(provider, model, options or SimpleStreamOptions())
    async with _closing(provider.stream_simple(model, context, resolved)) as events:
        async for event in events:
            yield event


async def drain(events: AsyncIterator[AssistantMessageEvent]) -> AssistantMessage:
    """Consume a stream and return its final message: the one its `done` or `error` event carries.

    The events before it are not folded again: the provider has folded them into that message.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    try:
        async for event in events:
            if isinstance(event, DoneEvent):
                return event.message
            if isinstance(event, ErrorEvent):
                return event.error
    finally:
        await events.aclose()  # type: ignore[attr-defined]
    raise StreamEndedWithoutResultError("provider stream ended without a done or error event")


async def complete(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """Make one call and return the final `AssistantMessage`."""
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    return await drain(stream(model, context, options))


async def complete_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessage:
    """Like `complete`, through `stream_simple`."""
    __tracebackhide__ = True  # pytest shows the caller's line, not ours
    return await drain(stream_simple(model, context, options))
