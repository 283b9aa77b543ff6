"""The registry, the transform rules and the stream functions."""

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
    StreamOptions,
    UnknownApiError,
    UserMessage,
    complete,
    configure_provider_transform,
    get_api_provider,
    register_api_provider,
    stream,
)
from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.types import AssistantMessageEvent

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
        assert not api_registry.provider_transform_installed()
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


def test_the_transform_is_installed_once_wraps_everything_and_is_atomic() -> None:
    first, second = KeySpy(False), KeySpy(False)
    register_api_provider("a", first)
    register_api_provider("b", second)

    def exploding(api: str, provider: ApiProvider) -> ApiProvider:
        if api == "b":
            raise ValueError("no")
        return KeySpy(False)

    with pytest.raises(ValueError):
        configure_provider_transform(exploding)
    assert get_api_provider("a") is first and get_api_provider("b") is second

    wrapped: dict[str, ApiProvider] = {}

    def wrap(api: str, provider: ApiProvider) -> ApiProvider:
        wrapped[api] = provider
        return KeySpy(False)

    configure_provider_transform(wrap)
    configure_provider_transform(wrap)  # the same callable again is a no-op
    with pytest.raises(RuntimeError, match="already installed"):
        configure_provider_transform(lambda api, provider: provider)
    assert wrapped["a"] is first and get_api_provider("a") is not first
    later = KeySpy(False)
    register_api_provider("c", later)
    assert wrapped["c"] is later and get_api_provider("c") is not later
