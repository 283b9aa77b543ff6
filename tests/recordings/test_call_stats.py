"""Tokens and cost per call and per session: priced from the bundled table, never guessed."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

import genai_prices

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from openprogram.recordings.call_stats import call_stats, session_stats
from openprogram.recordings.cost import price_table

PRICED = Model(id="gpt-4o-mini", name="GPT-4o mini", api="scripted", provider="openai")
UNKNOWN = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")


def record(path: Path, models: list[Model]) -> Path:
    sink = RecordingSink(path)
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), sink)

    async def run() -> None:
        for model in models:
            async for _ in provider.stream(model, Context(messages=[UserMessage(content="hi")])):
                pass

    asyncio.run(run())
    sink.close()
    return path


def test_a_known_model_is_priced_at_its_tokens_and_an_unknown_one_is_not(tmp_path: Path) -> None:
    calls = read_recording(record(tmp_path / "r.jsonl", [PRICED, UNKNOWN, PRICED])).calls
    stats = [call_stats(call) for call in calls]

    priced = stats[0]
    assert priced.usage is not None and priced.usage.input > 0
    table_price = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=priced.usage.input, output_tokens=priced.usage.output),
        "gpt-4o-mini",
        provider_id="openai",
    ).total_price
    assert priced.cost == Decimal(table_price) and priced.cost > 0
    assert stats[1].cost is None  # the table has no scripted/echo-1: no cost, not 0

    session = session_stats(stats)
    assert session.calls == 3 and session.unpriced == 1
    assert session.cost == stats[0].cost + stats[2].cost
    assert session.usage.input == sum(s.usage.input for s in stats if s.usage)
    assert session.to_json()["cost_usd"] == str(session.cost)
    assert (
        price_table()
        == f"genai-prices {genai_prices.__version__ if hasattr(genai_prices, '__version__') else '0.2.3'} (bundled price table)"
    )
