"""`ApiProvider`: what the registry holds for an api, and the base of the built-in providers.

Kept apart from `api_registry` so that the providers can subclass it without importing the registry
that imports them, and light: the types are read by type checkers only.
"""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from openprogram.providers.types import (
        AssistantMessageEvent,
        Context,
        Model,
        SimpleStreamOptions,
        StreamOptions,
    )


@runtime_checkable
class ApiProvider(Protocol):
    """What the registry holds: two streaming entry points and whether credentials are needed.

    A provider that subclasses this protocol writes `stream` alone and is given `stream_simple`
    (the built-in providers do); any object with both methods is a provider too.
    """

    requires_credentials: bool

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterable[AssistantMessageEvent]: ...

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterable[AssistantMessageEvent]:
        """`stream` with vendor-neutral options: `stream` reads `options.reasoning` when it is set."""
        return self.stream(model, context, options)
