"""Tokens and cost per call and per session: priced from the bundled table, never guessed."""

from __future__ import annotations

import asyncio
import dataclasses
from decimal import Decimal
from pathlib import Path

import genai_prices

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from openprogram.recordings.call_stats import call_stats, calls_stats, session_stats
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
    # The pinned release, named with the day its table was published (the package has no date).
    assert price_table() == "genai-prices 0.2.3 (bundled price table of 2026-11-10)"


def test_times_per_call_and_session_from_a_scripted_clock(tmp_path: Path) -> None:
    """Each clock read moves time on by 10 ms; the numbers follow from the rows written."""
    ticks = iter(range(10_000))
    sink = RecordingSink(tmp_path / "timed.jsonl", clock=lambda: next(ticks) / 100)
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), sink)

    async def run() -> None:
        for _ in range(3):
            async for _ in provider.stream(UNKNOWN, Context(messages=[UserMessage(content="hi")])):
                pass

    asyncio.run(run())
    sink.close()
    calls = read_recording(tmp_path / "timed.jsonl").calls
    stats = calls_stats(calls)
    for stat, call, after in zip(stats, calls, [*calls[1:], None], strict=True):
        assert stat.duration_ms == call.duration_ms and stat.duration_ms is not None
        first_piece = next(
            ms for event, ms in zip(call.events, call.event_ms, strict=True)
            if event.type == "text_delta"
        )  # fmt: skip
        assert stat.first_token_ms == first_piece
        if after is None:
            assert stat.gap_after_ms is None
        else:
            assert stat.gap_after_ms == after.start_ms - call.start_ms - call.duration_ms
    session = session_stats(stats)
    assert session.model_ms == sum(call.duration_ms for call in calls)
    assert session.wall_ms == calls[-1].start_ms + calls[-1].duration_ms - calls[0].start_ms
    assert session.to_json()["between_calls_ms"] == session.wall_ms - session.model_ms


def test_a_call_without_times_says_not_recorded_never_zero(tmp_path: Path) -> None:
    calls = read_recording(record(tmp_path / "r.jsonl", [UNKNOWN])).calls
    untimed = dataclasses.replace(calls[0], start_ms=None, duration_ms=None, event_ms=())
    stat = call_stats(untimed)
    assert (stat.duration_ms, stat.first_token_ms, stat.gap_after_ms) == (None, None, None)
    assert session_stats([stat]).wall_ms is None
