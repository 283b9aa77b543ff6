"""`WrapperProvider`: the base of a provider that wraps another (pydantic-ai's `WrapperModel` idea).

A wrapper overrides one method, `wrap_call`, and serves both entry points with it: `stream()` and
`stream_simple()` each hand it the call's arguments and `forward`, which makes the same call on the
wrapped provider through the same entry point. Unchanged, a wrapper passes every call through.

    class Logged(WrapperProvider):
        def wrap_call(self, model, context, options, forward):
            print("calling", model.id)
            return forward()

    wrap_api_providers(lambda api, provider: Logged(provider))
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable

from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
)

Forward = Callable[[], AsyncIterable[AssistantMessageEvent]]
"""Makes the call being wrapped on the wrapped provider, through the entry point it came in by."""


class WrapperProvider:
    """A provider that wraps `wrapped`; subclasses override `wrap_call` and get both entry points."""

    def __init__(self, wrapped: ApiProvider) -> None:
        self.wrapped = wrapped
        self.requires_credentials: bool = getattr(wrapped, "requires_credentials", True)
        """As the wrapped provider: a wrapper that never forwards may say False."""

    def wrap_call(
        self, model: Model, context: Context, options: StreamOptions | None, forward: Forward
    ) -> AsyncIterator[AssistantMessageEvent]:
        """One call, by either entry point (`options` is `SimpleStreamOptions` for `stream_simple`)."""
        return aiter(forward())

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """`wrap_call` of a `stream` call."""
        return self.wrap_call(
            model, context, options, lambda: self.wrapped.stream(model, context, options)
        )

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """`wrap_call` of a `stream_simple` call."""
        return self.wrap_call(
            model, context, options, lambda: self.wrapped.stream_simple(model, context, options)
        )
