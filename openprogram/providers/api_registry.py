"""The registry: the one place a model call finds its provider, keyed by `model.api`.

A lookup returns the registered provider wrapped by every wrapper on one stack, innermost first:
record/replay is the innermost wrapper (the runtime puts it there when it starts), a test harness
or a program's own wrappers sit above it. `wrap_api_providers` is the only way to wrap; no vendor
module knows about recording or replay.

`get_api_provider` starts the provider runtime on first use (`openprogram.providers.runtime` holds
its lifecycle): register the built-in providers, then apply the record/replay configuration.
Record/replay is a layer above this boundary, so it is not imported here: the package
`openprogram.providers` installs its activation with `use_record_replay_activation` when it is
imported (which Python does before any of its submodules).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType

from openprogram.errors import OpenProgramError
from openprogram.providers.api_provider import ApiProvider
from openprogram.providers.runtime import ProviderRuntime, RuntimeState

ProviderWrapper = Callable[[str, ApiProvider], ApiProvider]
"""Given an api name and the provider below it on the stack, return the provider to use instead."""


class UnknownApiError(OpenProgramError, LookupError):
    """No provider is registered for the requested api."""

    def __init__(self, api: str, registered: list[str]) -> None:
        self.api = api
        self.registered = registered
        names = ", ".join(registered) or "none"
        super().__init__(f"no provider registered for api {api!r} (registered: {names})")


class _Registry:
    """The registered providers, the stack of wrappers, and each api's wrapped provider (cached)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.providers: dict[str, ApiProvider] = {}
        self.wrappers: list[ProviderWrapping] = []
        self.resolved: dict[str, ApiProvider] = {}


_registry = _Registry()


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


def register_api_provider(api: str, provider: ApiProvider) -> None:
    """Register `provider` for `api`, replacing any earlier one; the wrappers on the stack wrap it."""
    register_api_providers({api: provider})


def register_api_providers(providers: dict[str, ApiProvider]) -> None:
    """Register several providers in one step: a lookup sees all of them or none."""
    with _registry.lock:
        _registry.providers.update(providers)
        _registry.resolved.clear()


def registered_apis() -> list[str]:
    """The names of every registered api, sorted."""
    with _registry.lock:
        return sorted(_registry.providers)


def resolve_api_provider(api: str) -> ApiProvider:
    """The provider for `api` as every wrapper on the stack sees it, without starting the runtime.

    Each wrapper runs once per api until the registry or the stack changes.
    """
    with _registry.lock:
        provider = _registry.resolved.get(api)
        if provider is None:
            provider = _registry.providers.get(api)
            if provider is None:
                raise UnknownApiError(api, sorted(_registry.providers))
            for wrapping in _registry.wrappers:
                provider = wrapping.wrapper(api, provider)
            _registry.resolved[api] = provider
        return provider


def get_api_provider(api: str) -> ApiProvider:
    """The provider for `api`, initializing the provider runtime first if it has not run yet."""
    initialize_provider_runtime()
    return resolve_api_provider(api)


class ProviderWrapping:
    """One wrapper on the stack: `remove()` takes it off; as a context manager, on leaving the block."""

    def __init__(self, wrapper: ProviderWrapper) -> None:
        self.wrapper = wrapper

    def remove(self) -> None:
        """Take the wrapper off the stack (again is a no-op); wrappers above it stay in place."""
        with _registry.lock:
            if any(wrapping is self for wrapping in _registry.wrappers):
                _registry.wrappers = [w for w in _registry.wrappers if w is not self]
                _registry.resolved.clear()

    def __enter__(self) -> ProviderWrapping:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.remove()


def wrap_api_providers(wrapper: ProviderWrapper, *, innermost: bool = False) -> ProviderWrapping:
    """Wrap every api, present and future, with `wrapper`, from now until it is removed.

    `wrapper(api, provider)` runs lazily, at the first lookup of each api, and receives what the
    wrappers below it made of the registered provider. A new wrapper goes on top of the stack, or
    with `innermost` at its bottom, right above the registered providers (where the runtime puts
    record/replay). `with wrap_api_providers(...):` removes it on leaving the block, however left.
    """
    wrapping = ProviderWrapping(wrapper)
    with _registry.lock:
        if innermost:
            _registry.wrappers.insert(0, wrapping)
        else:
            _registry.wrappers.append(wrapping)
        _registry.resolved.clear()
    return wrapping


def _reset_registry() -> None:
    """Forget every provider and every wrapper (for tests that need a fresh registry in-process)."""
    global _registry
    _registry = _Registry()


# The runtime: what it does when it starts. Its lifecycle is `openprogram.providers.runtime`.

RecordReplayActivation = Callable[[], str]
"""Applies the configured record/replay mode to the registry; returns the mode it started."""


_record_replay: tuple[RecordReplayActivation, Callable[[str], str]] | None = None
"""The record/replay layer's activation and its text redaction (installed by the package)."""


def use_record_replay_activation(
    activation: RecordReplayActivation, redact: Callable[[str], str]
) -> None:
    """Install the runtime's record/replay stage and the redaction applied to a start failure.

    Done once, by the `openprogram.providers` package, so the boundary never imports upward.
    """
    global _record_replay
    _record_replay = (activation, redact)


_runtime = ProviderRuntime()


def _register_builtins() -> None:
    # A provider registered before the runtime started (e.g. by a test) wins over the built-in.
    taken = set(registered_apis())
    register_api_providers({api: p for api, p in builtin_providers().items() if api not in taken})


def _activate_record_replay() -> None:
    if _record_replay is not None:
        _runtime.mode = _record_replay[0]()


def _redact(text: str) -> str:
    return _record_replay[1](text) if _record_replay is not None else text


def initialize_provider_runtime() -> None:
    """Start the provider runtime once per process; later calls return at once (or re-raise)."""
    _runtime.start(
        [
            ("register_builtins", _register_builtins),
            ("activate_record_replay", _activate_record_replay),
        ],
        _redact,
    )


def provider_runtime_state() -> RuntimeState:
    """The runtime's current state."""
    return _runtime.current_state()


def provider_runtime_mode() -> str:
    """The record/replay mode the runtime started with: `off`, `record`, `replay` or `blocked`."""
    return _runtime.mode


def _reset_runtime() -> None:
    """Back to NEW with an empty registry (for tests that start the runtime in-process)."""
    global _runtime
    _reset_registry()
    _runtime = ProviderRuntime()
