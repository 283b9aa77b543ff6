"""Target 10: recording overhead per event of the new providers within 1.2× of the existing ones.

Workload, per api (openai-completions, anthropic-messages, openai-responses, google-generative-ai):
one call whose vendor stream, in that vendor's own wire format, carries 5,000 text deltas (the same
text for all four), read by the real HTTP provider from an in-process httpx transport (no sockets,
so the network does not blur the figure), once bare and once through `RecordingProvider`.

overhead per event = (recorded - bare) / events emitted. The ratio is the mean overhead of the two new
apis over that of the two existing ones; all eight variants run interleaved, run after run, so the
drift of a shared machine falls on each alike. The recorder sees the same events from every api, so
the figures differ by noise and by what the provider does while the recorder writes.

    python bench/provider_record_overhead.py [--quick] [--runs N]
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx
from _common import alternate, banner, drain, parse_args, scratch_dir, us, verdict

from openprogram.providers import Context, Model, StreamOptions, UserMessage
from openprogram.providers.http.anthropic_messages import AnthropicMessagesProvider
from openprogram.providers.http.google_generative_ai import GoogleGenerativeAIProvider
from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
from openprogram.providers.http.openai_responses import OpenAIResponsesProvider
from openprogram.providers.http.sse import SseProvider
from openprogram.providers.recording import RecordingProvider

PIECE = "lorem ip"


def sse(payload: object, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n"


def completions_body(deltas: int) -> str:
    def chunk(delta: dict[str, str], finish: str | None = None) -> str:
        return sse({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    return (
        "".join(chunk({"content": PIECE}) for _ in range(deltas))
        + chunk({}, "stop")
        + "data: [DONE]\n\n"
    )


def anthropic_body(deltas: int) -> str:
    delta = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": PIECE},
    }
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    return (
        sse({"type": "message_start", "message": {"usage": {"input_tokens": 5}}}, "message_start")
        + sse(start, "content_block_start")
        + "".join(sse(delta, "content_block_delta") for _ in range(deltas))
        + sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        + sse({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, "message_delta")
        + sse({"type": "message_stop"}, "message_stop")
    )


def responses_body(deltas: int) -> str:
    delta = {"type": "response.output_text.delta", "output_index": 0, "content_index": 0}
    done = {"type": "response.completed", "response": {"usage": {"input_tokens": 5}}}
    return "".join(
        sse({**delta, "delta": PIECE}, "response.output_text.delta") for _ in range(deltas)
    ) + sse(done, "response.completed")


def gemini_body(deltas: int) -> str:
    def chunk(finish: str | None) -> str:
        candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": PIECE}]}}
        if finish:
            candidate["finishReason"] = finish
        usage = {"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6}
        return sse({"candidates": [candidate], "usageMetadata": usage})

    return "".join(chunk(None) for _ in range(deltas - 1)) + chunk("STOP")


APIS: dict[str, tuple[Callable[[httpx.AsyncClient], SseProvider], Callable[[int], str]]] = {
    "openai-completions": (lambda c: OpenAICompletionsProvider(client=c), completions_body),
    "anthropic-messages": (lambda c: AnthropicMessagesProvider(client=c), anthropic_body),
    "openai-responses": (lambda c: OpenAIResponsesProvider(client=c), responses_body),
    "google-generative-ai": (lambda c: GoogleGenerativeAIProvider(client=c), gemini_body),
}
EXISTING = ("openai-completions", "anthropic-messages")
NEW = ("openai-responses", "google-generative-ai")


def main() -> None:
    args = parse_args(__doc__)
    deltas = 1_000 if args.quick else 5_000
    runs = args.runs or (5 if args.quick else 9)
    banner(
        f"provider_record_overhead: one call of {deltas:,} text deltas per api, median of {runs}"
    )
    loop = asyncio.new_event_loop()
    context = Context(messages=[UserMessage(content="hi", timestamp=1)])
    options = StreamOptions(api_key="sk-bench-key")
    overheads: dict[str, float] = {}

    with scratch_dir("provider-record") as root:
        serial = iter(range(1_000_000))
        clients: list[httpx.AsyncClient] = []
        variants: dict[str, Callable[[], None]] = {}
        counts: dict[str, int] = {}
        for api, (make, body_of) in APIS.items():
            body = body_of(deltas).encode()

            def answer(request: httpx.Request, body: bytes = body) -> httpx.Response:
                return httpx.Response(
                    200, headers={"content-type": "text/event-stream"}, content=body
                )

            client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
            clients.append(client)
            provider = make(client)
            model = Model(
                id="bench-model", api=api, provider="bench", base_url="http://bench.invalid"
            )
            counts[api] = loop.run_until_complete(count_events(provider, model, context, options))

            def bare(provider: SseProvider = provider, model: Model = model) -> None:
                loop.run_until_complete(drain(provider.stream(model, context, options)))

            def recorded(
                provider: SseProvider = provider, model: Model = model, name: str = api
            ) -> None:
                path: Path = root / f"{name}-{next(serial)}.jsonl"
                recorder = RecordingProvider(provider, path)
                loop.run_until_complete(drain(recorder.stream(model, context, options)))
                recorder.sink.close()
                path.unlink()

            variants[f"{api} bare"], variants[f"{api} recorded"] = bare, recorded

        # All eight interleaved, so drift on a shared machine falls on every api alike.
        times = alternate(runs, **variants)
        for client in clients:
            loop.run_until_complete(client.aclose())
    for api, events in counts.items():
        bare_time, recorded_time = times[f"{api} bare"], times[f"{api} recorded"]
        overheads[api] = (recorded_time - bare_time) / events
        print(
            f"   {api:22} events {events:,}  bare {us(bare_time / events)}/evt"
            f"  recorded {us(recorded_time / events)}/evt  overhead {us(overheads[api])}/evt"
        )

    new = sum(overheads[a] for a in NEW) / len(NEW)
    existing = sum(overheads[a] for a in EXISTING) / len(EXISTING)
    print(f"   mean overhead per event: new apis {us(new)}, existing apis {us(existing)}")
    print(f"   TARGET 10: new / existing overhead per event {verdict(new / existing, 1.2)}")


async def count_events(
    provider: SseProvider, model: Model, context: Context, options: StreamOptions
) -> int:
    count = 0
    async for event in provider.stream(model, context, options):
        count += 1
        if event.type == "error":
            raise SystemExit(f"{model.api}: {event.error.error_message}")
    return count


if __name__ == "__main__":
    main()
