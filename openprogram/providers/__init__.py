"""The shared provider boundary: types, the registry, streaming and the runtime.

Importing this package only defines names: it registers nothing, reads no configuration and opens
no file. Recording and replay live in `openprogram.providers.recording` (public names there and in
`openprogram.providers.replay`); the runtime starts them through the hook installed below.

The names below are written once, as the imports a type checker reads, and loaded on first use
(`openprogram.lazy_names`), so importing a submodule that needs no models (`recording.row_encoding`,
`recording.errors`, ...) does not pay for building the pydantic types: a viewer can show the
first rows of a file before they are built. `SECRET_FIELD_NAMES` and
`NON_DETERMINISTIC_FIELD_NAMES` stay importable from here, where the seed put them.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

from openprogram import lazy_names
from openprogram.providers import api_registry

if TYPE_CHECKING:
    from openprogram.providers.accumulator import MessageAccumulator, assemble_message
    from openprogram.providers.api_registry import (
        ApiProvider,
        ProviderWrapper,
        UnknownApiError,
        get_api_provider,
        initialize_provider_runtime,
        provider_runtime_mode,
        register_api_provider,
        registered_apis,
        wrap_api_providers,
    )
    from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
    from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
    from openprogram.providers.recording.differences import NON_DETERMINISTIC_FIELD_NAMES
    from openprogram.providers.recording.redaction import SECRET_FIELD_NAMES
    from openprogram.providers.runtime import ProviderRuntimeInitializationError
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
    from openprogram.providers.wrapper import WrapperProvider

__all__, __getattr__, __dir__ = lazy_names.lazy_facade(__name__)
"""The public names: the imports above, each loaded from its module the first time it is asked for."""


class _Package(types.ModuleType):
    """This package: importing its submodule `stream` must not hide the public `stream()`.

    See docs/design-decisions.md ("`providers/__init__.py` keeps a small `ModuleType` subclass").
    """

    def __setattr__(self, name: str, value: object) -> None:
        # The import system binds every imported submodule as an attribute of its package; for
        # `stream` that would shadow the function of the same name, so public names win.
        if name in __all__ and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _activate_record_replay() -> str:
    """The runtime's record/replay stage: the layer above the boundary, loaded when it starts."""
    from openprogram.providers.recording.activation import activate_record_replay

    return activate_record_replay()


def _remove_secret_text(text: str) -> str:
    """The record/replay layer's redaction, for a runtime failure's message."""
    from openprogram.providers.recording.redaction import remove_secret_text

    return remove_secret_text(text)


api_registry.use_record_replay_activation(_activate_record_replay, _remove_secret_text)
