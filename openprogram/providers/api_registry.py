"""The registry: the one place a model call finds its provider, keyed by `model.api`, and the runtime.

Recording and replay are providers installed here (by a transform that wraps every entry), so no
vendor module knows about them.

The runtime registers the built-in providers once per process, then record/replay, the first time a
provider is looked up. Record/replay is a layer above this boundary, so the runtime does not import it: the package
`openprogram.providers` installs its activation with `use_record_replay_activation` when it is
imported (which Python does before any of its submodules), and the runtime calls it at start.

States NEW → INITIALIZING → READY | FAILED under one condition variable; concurrent first callers
wait for the one initializer and share its result. A failure to register built-ins is FAILED for good
(each caller gets a fresh error with the same facts); a record/replay activation failure never fails
the runtime: it installs fail-closed providers instead, so nothing silently goes live.
"""

from __future__ import annotations

import contextlib
import enum
import threading
from collections.abc import AsyncIterable, Callable, Iterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from openprogram.errors import OpenProgramError
from openprogram.text import one_line

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


class UnknownApiError(OpenProgramError, LookupError):
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


# The runtime
MAX_CAUSE_MESSAGE = 500


class RuntimeState(enum.Enum):
    NEW = "new"
    INITIALIZING = "initializing"
    READY = "ready"
    FAILED = "failed"


class ProviderRuntimeInitializationError(OpenProgramError, RuntimeError):
    """The provider runtime could not start; `stage`, `cause_type`, `cause_message` say why."""

    def __init__(self, stage: str, cause_type: str, cause_message: str) -> None:
        self.stage = stage
        self.cause_type = cause_type
        self.cause_message = cause_message
        super().__init__(
            f"provider runtime failed to initialize at stage {stage!r}: {cause_type}: {cause_message}"
        )


def builtin_providers() -> dict[str, ApiProvider]:
    """One instance of every built-in provider, keyed by api name."""
    from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
    from openprogram.providers.http.google_generative_ai import GoogleGenerativeAIProvider
    from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
    from openprogram.providers.http.openai_responses import OpenAIResponsesProvider
    from openprogram.providers.scripted import ScriptedProvider, echo_responder

    return {
        "openai-completions": OpenAICompletionsProvider(),
        "anthropic-messages": AnthropicMessagesProvider(),
        "openai-responses": OpenAIResponsesProvider(),
        "google-generative-ai": GoogleGenerativeAIProvider(),
        "scripted": ScriptedProvider(responder=echo_responder),
    }


class _Runtime:
    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.state = RuntimeState.NEW
        self.failure: tuple[str, str, str] | None = None
        self.mode = "off"


_runtime = _Runtime()

RecordReplayActivation = Callable[[], str]
"""Applies the configured record/replay mode to the registry; returns the mode it started."""

_activation: RecordReplayActivation | None = None


def use_record_replay_activation(activation: RecordReplayActivation) -> None:
    """Install the runtime's record/replay stage (done once, by the `openprogram.providers` package)."""
    global _activation
    _activation = activation


def _bounded(text: str) -> str:
    # Failures reach here already redacted (activation names no secret); this only bounds them.
    return one_line(text, MAX_CAUSE_MESSAGE)


def _register_builtins() -> None:
    # A provider registered before the runtime started (e.g. by a test) wins over the built-in.
    taken = set(registered_apis())
    register_api_providers({api: p for api, p in builtin_providers().items() if api not in taken})


def _activate_record_replay() -> None:
    if _activation is not None:
        _runtime.mode = _activation()


def initialize_provider_runtime() -> None:
    """Start the provider runtime once per process; later calls return at once (or re-raise)."""
    runtime = _runtime
    with runtime.condition:
        while runtime.state is RuntimeState.INITIALIZING:
            runtime.condition.wait()
        if runtime.state is RuntimeState.READY:
            return
        if runtime.state is RuntimeState.FAILED:
            assert runtime.failure is not None
            raise ProviderRuntimeInitializationError(*runtime.failure)
        runtime.state = RuntimeState.INITIALIZING
    stage = "register_builtins"
    try:
        _register_builtins()
        stage = "activate_record_replay"
        _activate_record_replay()
    except BaseException as exc:
        with runtime.condition:
            runtime.failure = (stage, type(exc).__name__, _bounded(str(exc)))
            runtime.state = RuntimeState.FAILED
            runtime.condition.notify_all()
        if not isinstance(exc, Exception):
            raise  # KeyboardInterrupt and friends propagate; waiters are already released
        raise ProviderRuntimeInitializationError(*runtime.failure) from exc
    with runtime.condition:
        runtime.state = RuntimeState.READY
        runtime.condition.notify_all()


def provider_runtime_state() -> RuntimeState:
    """The runtime's current state."""
    with _runtime.condition:
        return _runtime.state


def provider_runtime_mode() -> str:
    """The record/replay mode the runtime started with: `off`, `record`, `replay` or `blocked`."""
    with _runtime.condition:
        return _runtime.mode


def _reset_runtime() -> None:
    """Back to NEW with an empty registry (for tests that start the runtime in-process)."""
    global _runtime
    _reset_registry()
    _runtime = _Runtime()
