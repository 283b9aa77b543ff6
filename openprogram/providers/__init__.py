"""The shared provider boundary: types, the registry, streaming and the runtime.

Importing this package only defines names: it registers nothing, reads no configuration and opens
no file. Recording and replay live in `openprogram.providers.recording` and `.replay`.

The names below are loaded on first use (PEP 562), so importing a submodule that needs no
models (`recording_encoding`, `recording_errors`, ...) does not pay for building the pydantic
types: a viewer can show the first rows of a file before they are built.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openprogram.providers.accumulator import MessageAccumulator, assemble_message
    from openprogram.providers.api_registry import (
        ApiProvider,
        ProviderTransform,
        UnknownApiError,
        configure_provider_transform,
        get_api_provider,
        register_api_provider,
        registered_apis,
    )
    from openprogram.providers.initialization import (
        ProviderRuntimeInitializationError,
        initialize_provider_runtime,
        provider_runtime_mode,
    )
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

_SOURCES = ("accumulator", "api_registry", "initialization", "stream", "types")
"""The submodules the public names come from."""


def __getattr__(name: str) -> object:
    """A public name, imported from its submodule the first time it is asked for."""
    if name in __all__:
        for source in _SOURCES:
            module = importlib.import_module(f"{__name__}.{source}")
            if name in vars(module):
                value = vars(module)[name]
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(ModuleType):
    """This package: importing its submodule `stream` must not hide the public `stream()`."""

    def __setattr__(self, name: str, value: object) -> None:
        # The import system binds every imported submodule as an attribute of its package; for
        # `stream` that would shadow the function of the same name, so public names win (as they
        # did when this package imported them eagerly). The module stays in `sys.modules`.
        if name in __all__ and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
