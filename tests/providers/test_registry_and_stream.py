"""The registry, its stack of wrappers, `WrapperProvider` and the stream functions."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from openprogram.providers import (
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    UnknownApiError,
    UserMessage,
    WrapperProvider,
    complete,
    complete_simple,
    get_api_provider,
    register_api_provider,
    stream,
    wrap_api_providers,
)
from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    TextContent,
    TextDeltaEvent,
)

REPO = Path(__file__).resolve().parents[2]


class KeySpy:
    """Records the options it is called with; answers like the scripted provider."""

    def __init__(self, requires_credentials: bool) -> None:
        self.requires_credentials = requires_credentials
        self.options: list[StreamOptions | None] = []

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        self.options.append(options)
        async for event in ScriptedProvider([[TextStep(text="ok")]]).stream(model, context):
            yield event

    stream_simple = stream


MODEL = Model(id="m", api="spy", provider="acme-cloud")
CONTEXT = Context(messages=[UserMessage(content="hi")])


def test_import_has_no_side_effects_in_a_fresh_interpreter(tmp_path: Path) -> None:
    code = textwrap.dedent(
        """
        import os, sys, builtins
        opened = []
        real_open = builtins.open
        builtins.open = lambda *a, **k: (opened.append(a[0]), real_open(*a, **k))[1]
        import openprogram.providers as p
        from openprogram.providers import api_registry
        assert api_registry.registered_apis() == [], api_registry.registered_apis()
        assert api_registry._registry.wrappers == []
        assert api_registry.provider_runtime_state().value == "new"
        assert not os.path.exists(os.environ["OPENPROGRAM_HOME"])
        assert "textual" not in sys.modules
        assert [f for f in opened if "openprogram-home" in str(f)] == []
        print("pure")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={
            "OPENPROGRAM_HOME": str(tmp_path / "openprogram-home"),
            "PYTHONPATH": str(REPO),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "pure"


def test_an_unknown_api_names_the_registered_ones() -> None:
    with pytest.raises(UnknownApiError) as caught:
        get_api_provider("nope")
    message = str(caught.value)
    assert "'nope'" in message and "openai-completions" in message and "scripted" in message


async def test_credentials_come_from_options_then_the_provider_env_var(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = KeySpy(requires_credentials=True)
    register_api_provider("spy", spy)
    monkeypatch.setenv("ACME_CLOUD_API_KEY", "from-env")
    await complete(MODEL, CONTEXT)
    await complete(MODEL, CONTEXT, StreamOptions(api_key="explicit"))
    assert [o.api_key for o in spy.options if o] == ["from-env", "explicit"]


async def test_providers_that_need_no_credentials_never_trigger_a_lookup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = KeySpy(requires_credentials=False)
    register_api_provider("spy", spy)
    monkeypatch.setenv("ACME_CLOUD_API_KEY", "from-env")
    [e async for e in stream(MODEL, CONTEXT)]
    assert spy.options[0] is not None and spy.options[0].api_key is None


def test_a_wrapper_wraps_every_api_including_later_ones_until_removed() -> None:
    first, second = KeySpy(False), KeySpy(False)
    register_api_provider("a", first)
    register_api_provider("b", second)
    wrapped: dict[str, ApiProvider] = {}

    def wrap(api: str, provider: ApiProvider) -> ApiProvider:
        wrapped[api] = provider
        return KeySpy(False)

    with wrap_api_providers(wrap):
        seen = get_api_provider("a")
        assert wrapped["a"] is first and seen is not first
        assert get_api_provider("a") is seen  # wrapped once until the registry changes
        later = KeySpy(False)
        register_api_provider("c", later)
        assert get_api_provider("c") is not later and wrapped["c"] is later
    assert get_api_provider("a") is first and get_api_provider("b") is second


def test_a_wrapper_that_raises_fails_only_the_lookup_and_is_removed_on_leaving() -> None:
    first = KeySpy(False)
    register_api_provider("a", first)

    def exploding(api: str, provider: ApiProvider) -> ApiProvider:
        raise ValueError("no")

    with pytest.raises(ValueError), wrap_api_providers(exploding):
        get_api_provider("a")
    assert get_api_provider("a") is first


class Named:
    """A provider that only says which wrapper made it, and what it wraps."""

    requires_credentials = False

    def __init__(self, name: str, inner: ApiProvider | None = None) -> None:
        self.name, self.inner = name, inner

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> None:
        raise NotImplementedError

    stream_simple = stream


def _names(provider: object) -> list[str]:
    names = []
    while isinstance(provider, Named):
        names.append(provider.name)
        provider = provider.inner
    return names


def test_wrappers_stack_in_order_and_innermost_goes_under_the_others() -> None:
    register_api_provider("a", Named("registered"))
    outer = wrap_api_providers(lambda api, provider: Named("outer", provider))
    with wrap_api_providers(lambda api, provider: Named("top", provider)):
        wrap_api_providers(lambda api, provider: Named("record/replay", provider), innermost=True)
        assert _names(get_api_provider("a")) == ["top", "outer", "record/replay", "registered"]
        outer.remove()
        outer.remove()  # again is a no-op
        assert _names(get_api_provider("a")) == ["top", "record/replay", "registered"]
    assert _names(get_api_provider("a")) == ["record/replay", "registered"]


class EntryPointSpy:
    """Says which entry point served each call."""

    requires_credentials = False

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        self.calls.append("stream")
        async for event in ScriptedProvider([[TextStep(text="ok")]]).stream(model, context):
            yield event

    async def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        self.calls.append("stream_simple")
        async for event in ScriptedProvider([[TextStep(text="ok")]]).stream(model, context):
            yield event


class Counted(WrapperProvider):
    """A wrapper of a few lines: it counts calls, by either entry point."""

    count = 0

    def wrap_call(self, model, context, options, forward):  # type: ignore[no-untyped-def]
        Counted.count += 1
        return forward()


async def test_a_wrapper_implements_one_method_and_serves_both_entry_points() -> None:
    spy = EntryPointSpy()
    register_api_provider("spy", spy)
    Counted.count = 0
    with wrap_api_providers(lambda api, provider: Counted(provider)):
        await complete(MODEL, CONTEXT)
        await complete_simple(MODEL, CONTEXT, SimpleStreamOptions(reasoning="low"))
    assert spy.calls == ["stream", "stream_simple"] and Counted.count == 2
    assert Counted(spy).requires_credentials is False


class StreamOnly(ApiProvider):
    """A provider that writes `stream` alone, as the built-in ones do, and says what it was asked."""

    requires_credentials = False

    def __init__(self) -> None:
        self.options: list[StreamOptions | None] = []

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        self.options.append(options)
        async for event in ScriptedProvider([[TextStep(text="ok")]]).stream(model, context):
            yield event


async def test_a_provider_subclassing_api_provider_is_given_stream_simple() -> None:
    provider = StreamOnly()
    register_api_provider("spy", provider)
    message = await complete_simple(MODEL, CONTEXT, SimpleStreamOptions(reasoning="high"))
    assert [b.text for b in message.content if b.type == "text"] == ["ok"]
    [options] = provider.options
    assert isinstance(options, SimpleStreamOptions) and options.reasoning == "high"


class AnswerOnly(ApiProvider):
    """Streams a delta it never started, then the whole answer on `done`, as a proxy might."""

    requires_credentials = False

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        answer = AssistantMessage(
            api=model.api, provider=model.provider, model=model.id, content=[TextContent(text="ok")]
        )
        yield TextDeltaEvent(content_index=0, delta="o")
        yield DoneEvent(reason="stop", message=answer)
        yield TextDeltaEvent(content_index=0, delta="never read")


async def test_complete_answers_with_the_message_of_the_terminal_event_without_folding() -> None:
    register_api_provider("spy", AnswerOnly())
    message = await complete(MODEL, CONTEXT)
    assert [b.text for b in message.content if b.type == "text"] == ["ok"]
