"""`AssistantMessage.vendor_items`: what the vendor sent that our types cannot hold is kept, bounded,
left out of dumps when absent, and never sent back to any vendor."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
from openprogram.providers.http.google_generative_ai import GoogleGenerativeAIProvider
from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
from openprogram.providers.http.openai_responses import OpenAIResponsesProvider
from openprogram.providers.http.sse import VENDOR_ITEMS_KEPT, SseProvider
from openprogram.providers.stream import drain
from openprogram.providers.types import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    TextContent,
    UserMessage,
)
from tests.providers.test_google_generative_ai import API_KEY, chunk, model_for
from tests.sse_server import SSEServer, sse_response

MARKER = "vendor-item-marker-7f3a"
PROVIDERS: list[type[SseProvider]] = [
    AnthropicMessagesProvider,
    OpenAICompletionsProvider,
    OpenAIResponsesProvider,
    GoogleGenerativeAIProvider,
]


def test_a_message_without_vendor_items_dumps_as_before() -> None:
    message = AssistantMessage(api="a", provider="p", model="m", timestamp=1)
    assert "vendor_items" not in message.model_dump(mode="json")
    kept = message.model_copy(update={"vendor_items": [{"type": "url_citation", "url": "u"}]})
    dumped = kept.model_dump(mode="json")
    assert dumped["vendor_items"] == [{"type": "url_citation", "url": "u"}]
    assert AssistantMessage.model_validate(dumped) == kept


@pytest.mark.parametrize("provider_class", PROVIDERS, ids=lambda c: c.vendor.api)
def test_no_provider_sends_vendor_items_back(provider_class: type[SseProvider]) -> None:
    provider = provider_class()
    model = Model(id="m", api=provider.api, provider="p", base_url="http://127.0.0.1:9")

    def context(items: list[dict[str, Any]] | None) -> Context:
        answer = AssistantMessage(
            api=provider.api,
            provider="p",
            model="m",
            content=[TextContent(text="the answer")],
            vendor_items=items,
        )
        return Context(messages=[UserMessage(content="q"), answer, UserMessage(content="more")])

    with_items = [
        {"type": "web_search_call", "query": MARKER},
        {"executableCode": {"code": MARKER}},
    ]
    body = provider.vendor.body(model, context(with_items), StreamOptions(), None)
    plain = provider.vendor.body(model, context(None), StreamOptions(), None)
    assert MARKER not in json.dumps(body)
    assert body == plain


async def test_at_most_the_bound_is_kept_and_a_note_counts_the_rest(
    sse_server: SSEServer,
) -> None:
    parts = [{"executableCode": {"language": "PYTHON", "code": f"print({n})"}} for n in range(105)]
    sse_server.respond(sse_response([chunk(*parts), chunk({"text": "done"}, finish="STOP")]))
    context = Context(messages=[UserMessage(content="hi")])
    message = await drain(
        GoogleGenerativeAIProvider().stream(
            model_for(sse_server), context, StreamOptions(api_key=API_KEY)
        )
    )
    assert message.content == [TextContent(text="done")]
    assert message.vendor_items is not None
    assert message.vendor_items[:VENDOR_ITEMS_KEPT] == parts[:VENDOR_ITEMS_KEPT]
    assert message.vendor_items[VENDOR_ITEMS_KEPT:] == [{"type": "dropped", "count": 5}]
