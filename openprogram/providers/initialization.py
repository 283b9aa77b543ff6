"""The provider runtime: registers the built-in providers once per process, then record/replay.

States NEW → INITIALIZING → READY | FAILED under one condition variable; concurrent first callers
wait for the one initializer and share its result. A failure to register built-ins is FAILED for good
(each caller gets a fresh error with the same facts); a record/replay activation failure never fails
the runtime: it installs fail-closed providers instead, so nothing silently goes live.
"""

from __future__ import annotations

import enum
import threading

from openprogram.providers.api_registry import (
    ApiProvider,
    register_api_providers,
    registered_apis,
)

MAX_CAUSE_MESSAGE = 500


class RuntimeState(enum.Enum):
    NEW = "new"
    INITIALIZING = "initializing"
    READY = "ready"
    FAILED = "failed"


class ProviderRuntimeInitializationError(RuntimeError):
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
    from openprogram.providers.anthropic_messages import AnthropicMessagesProvider
    from openprogram.providers.openai_completions import OpenAICompletionsProvider
    from openprogram.providers.scripted import ScriptedProvider, echo_responder

    return {
        "openai-completions": OpenAICompletionsProvider(),
        "anthropic-messages": AnthropicMessagesProvider(),
        "scripted": ScriptedProvider(responder=echo_responder),
    }


class _Runtime:
    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.state = RuntimeState.NEW
        self.failure: tuple[str, str, str] | None = None
        self.mode = "off"


_runtime = _Runtime()


def _bounded(text: str) -> str:
    from openprogram.providers.redaction import remove_secret_values

    clean = str(remove_secret_values(" ".join(text.split())))
    return clean if len(clean) <= MAX_CAUSE_MESSAGE else clean[: MAX_CAUSE_MESSAGE - 1] + "…"


def _register_builtins() -> None:
    # A provider registered before the runtime started (e.g. by a test) wins over the built-in.
    taken = set(registered_apis())
    register_api_providers({api: p for api, p in builtin_providers().items() if api not in taken})


def _activate_record_replay() -> None:
    from openprogram.providers.activation import activate_record_replay

    _runtime.mode = activate_record_replay()


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
    from openprogram.providers.api_registry import _reset_registry

    global _runtime
    _reset_registry()
    _runtime = _Runtime()
