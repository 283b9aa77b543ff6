"""The shared provider boundary: types, the registry, streaming and the runtime.

Importing this package only defines names: it registers nothing, reads no configuration and opens
no file. Recording and replay live in `openprogram.providers.recording` (public names there and in
`openprogram.providers.replay`); the runtime starts them through the hook installed below.

The names below are loaded on first use (PEP 562), so importing a submodule that needs no
models (`recording.rows`, `recording.errors`, ...) does not pay for building the pydantic types:
a viewer can show the first rows of a file before they are built.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING

from openprogram.lazy_names import lazy_getattr
from openprogram.providers.api_registry import use_record_replay_activation

if TYPE_CHECKING:
    from openprogram.providers.accumulator import MessageAccumulator, assemble_message
    from openprogram.providers.api_registry import (
        ApiProvider,
        ProviderRuntimeInitializationError,
        ProviderTransform,
        UnknownApiError,
        configure_provider_transform,
        get_api_provider,
        initialize_provider_runtime,
        provider_runtime_mode,
        register_api_provider,
        registered_apis,
    )
    from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
    from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
    from openprogram.providers.recording.differences import NON_DETERMINISTIC_FIELD_NAMES
    from openprogram.providers.stream import (
        StreamEndedWithoutResultError,
        complete,
        complete_simple,
        stream,
        stream_simple,
    )
    from openprogram.providers.types import (
        AssistantMessage,
        AssistantMessageEvent,
        Context,
        DoneEvent,
        ErrorEvent,
        ImageContent,
        Message,
        Model,
        SimpleStreamOptions,
        StartEvent,
        StreamOptions,
        TextContent,
        TextDeltaEvent,
        TextEndEvent,
        TextStartEvent,
        ThinkingContent,
        ThinkingDeltaEvent,
        ThinkingEndEvent,
        ThinkingStartEvent,
        Tool,
        ToolCall,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
        ToolResultMessage,
        Usage,
        UserMessage,
    )

__all__ = [
    "NON_DETERMINISTIC_FIELD_NAMES",
    "AnthropicMessagesProvider",
    "ApiProvider",
    "AssistantMessage",
    "AssistantMessageEvent",
    "Context",
    "DoneEvent",
    "ErrorEvent",
    "ImageContent",
    "Message",
    "MessageAccumulator",
    "Model",
    "OpenAICompletionsProvider",
    "ProviderRuntimeInitializationError",
    "ProviderTransform",
    "SimpleStreamOptions",
    "StartEvent",
    "StreamEndedWithoutResultError",
    "StreamOptions",
    "TextContent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingContent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "Tool",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolResultMessage",
    "UnknownApiError",
    "Usage",
    "UserMessage",
    "assemble_message",
    "complete",
    "complete_simple",
    "configure_provider_transform",
    "get_api_provider",
    "initialize_provider_runtime",
    "provider_runtime_mode",
    "register_api_provider",
    "registered_apis",
    "stream",
    "stream_simple",
]

_PUBLIC_NAMES: dict[str, str] = {
    "MessageAccumulator": "accumulator",
    "assemble_message": "accumulator",
    "ApiProvider": "api_registry",
    "ProviderTransform": "api_registry",
    "UnknownApiError": "api_registry",
    "configure_provider_transform": "api_registry",
    "get_api_provider": "api_registry",
    "register_api_provider": "api_registry",
    "registered_apis": "api_registry",
    "ProviderRuntimeInitializationError": "api_registry",
    "initialize_provider_runtime": "api_registry",
    "provider_runtime_mode": "api_registry",
    "StreamEndedWithoutResultError": "stream",
    "complete": "stream",
    "complete_simple": "stream",
    "stream": "stream",
    "stream_simple": "stream",
    "OpenAICompletionsProvider": "http.openai_completions",
    "AnthropicMessagesProvider": "http.anthropic_messages",
    "NON_DETERMINISTIC_FIELD_NAMES": "recording.differences",
    "AssistantMessage": "types",
    "AssistantMessageEvent": "types",
    "Context": "types",
    "DoneEvent": "types",
    "ErrorEvent": "types",
    "ImageContent": "types",
    "Message": "types",
    "Model": "types",
    "SimpleStreamOptions": "types",
    "StartEvent": "types",
    "StreamOptions": "types",
    "TextContent": "types",
    "TextDeltaEvent": "types",
    "TextEndEvent": "types",
    "TextStartEvent": "types",
    "ThinkingContent": "types",
    "ThinkingDeltaEvent": "types",
    "ThinkingEndEvent": "types",
    "ThinkingStartEvent": "types",
    "Tool": "types",
    "ToolCall": "types",
    "ToolCallDeltaEvent": "types",
    "ToolCallEndEvent": "types",
    "ToolCallStartEvent": "types",
    "ToolResultMessage": "types",
    "Usage": "types",
    "UserMessage": "types",
}
"""Each public name and the submodule that defines it."""


__getattr__ = lazy_getattr(
    __name__, {name: f"{__name__}.{module}" for name, module in _PUBLIC_NAMES.items()}
)
"""A public name, imported from its submodule the first time it is asked for."""


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(ModuleType):
    """This package: importing its submodule `stream` must not hide the public `stream()`.

    See docs/design-decisions.md ("The `stream` module and the `stream()` function").
    """

    def __setattr__(self, name: str, value: object) -> None:
        # The import system binds every imported submodule as an attribute of its package; for
        # `stream` that would shadow the function of the same name, so public names win.
        if name in _PUBLIC_NAMES and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _activate_record_replay() -> str:
    """The runtime's record/replay stage: the layer above the boundary, loaded when it starts."""
    from openprogram.providers.recording.activation import activate_record_replay

    return activate_record_replay()


use_record_replay_activation(_activate_record_replay)
