"""The registry: the one place a model call finds its provider, keyed by `model.api`.

Recording and replay are providers installed here (by a transform that wraps every entry), so no
vendor module knows about them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterable, Callable, Iterator
from typing import Protocol, runtime_checkable

from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
)


@runtime_checkable
class ApiProvider(Protocol):
    """What the registry holds: two streaming entry points and whether credentials are needed."""

    requires_credentials: bool

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterable[AssistantMessageEvent]: ...

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterable[AssistantMessageEvent]: ...


ProviderTransform = Callable[[str, ApiProvider], ApiProvider]
"""Given an api name and its original provider, return the provider to use instead."""


class UnknownApiError(LookupError):
    """No provider is registered for the requested api."""

    def __init__(self, api: str, registered: list[str]) -> None:
        self.api = api
        self.registered = registered
        names = ", ".join(registered) or "none"
        super().__init__(f"no provider registered for api {api!r} (registered: {names})")


_lock = threading.RLock()
_originals: dict[str, ApiProvider] = {}
_effective: dict[str, ApiProvider] = {}
_transform: ProviderTransform | None = None
_override: ProviderTransform | None = None
_override_cache: dict[str, tuple[ApiProvider, ApiProvider]] = {}


def register_api_provider(api: str, provider: ApiProvider) -> None:
    """Register `provider` for `api`, replacing any earlier one; the installed transform wraps it."""
    register_api_providers({api: provider})


def register_api_providers(providers: dict[str, ApiProvider]) -> None:
    """Register several providers in one atomic step: all are visible, or (on error) none."""
    with _lock:
        wrapped = {
            api: (_transform(api, provider) if _transform else provider)
            for api, provider in providers.items()
        }
        _originals.update(providers)
        _effective.update(wrapped)


def lookup_registered_provider(api: str) -> ApiProvider:
    """The effective provider for `api` without initializing the runtime (for the runtime itself)."""
    with _lock:
        provider = _effective.get(api)
        if provider is None:
            raise UnknownApiError(api, sorted(_effective))
        if _override is None:
            return provider
        hit = _override_cache.get(api)
        if hit is None or hit[0] is not provider:
            hit = _override_cache[api] = (provider, _override(api, provider))
        return hit[1]


def registered_apis() -> list[str]:
    """The names of every registered api, sorted."""
    with _lock:
        return sorted(_effective)


def get_api_provider(api: str) -> ApiProvider:
    """The provider for `api`, initializing the provider runtime first if it has not run yet."""
    from openprogram.providers.initialization import initialize_provider_runtime

    initialize_provider_runtime()
    return lookup_registered_provider(api)


def configure_provider_transform(transform: ProviderTransform) -> None:
    """Install `transform` once per process: it re-wraps every original entry and every later one.

    The same callable again is a no-op; a different one raises `RuntimeError`. The re-wrap is atomic:
    if the transform raises for any entry, the registry is left as it was.
    """
    global _transform
    with _lock:
        if _transform is not None:
            if _transform is transform:
                return
            raise RuntimeError("a provider transform is already installed in this process")
        wrapped = {api: transform(api, provider) for api, provider in _originals.items()}
        _effective.clear()
        _effective.update(wrapped)
        _transform = transform


@contextlib.contextmanager
def override_api_providers(transform: ProviderTransform) -> Iterator[None]:
    """Within the block, every lookup of every api returns `transform(api, provider)`.

    `provider` is what the registry resolves at that moment (after the process transform, and
    including providers registered during the block); the transform runs lazily, once per api and
    underlying provider. Scoped and removable, unlike `configure_provider_transform`: meant for
    test harnesses such as the pytest plugin. One override at a time (a nested one raises
    `RuntimeError`); on exit, however it is left, lookups are the registry's own again.
    """
    global _override
    with _lock:
        if _override is not None:
            raise RuntimeError("an api provider override is already active in this process")
        _override = transform
        _override_cache.clear()
    try:
        yield
    finally:
        with _lock:
            _override = None
            _override_cache.clear()


def provider_transform_installed() -> bool:
    """Whether a transform has been installed in this process."""
    with _lock:
        return _transform is not None


def _reset_registry() -> None:
    """Forget every provider and the transform (for tests that need a fresh registry in-process)."""
    global _transform
    with _lock:
        _originals.clear()
        _effective.clear()
        _transform = None
