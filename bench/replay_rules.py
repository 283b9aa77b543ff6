"""Target 8: replay with 10 matching rules over a 2,000-call recording within 1.3× of no rules.

The target: the same replay (requests identical to the recording) with ten rules in force against
none; rules cost nothing while nothing differs. For reference, a run whose every system prompt
(~640 characters) holds another day than the recording's: each call's difference is found, walked
with the rules and absorbed by the `iso-datetime` normalisation (two regular-expression passes over
the prompt), against the same baseline.

    python bench/replay_rules.py [--quick] [--runs N]
"""

from __future__ import annotations

import asyncio

from _common import MODEL, alternate, banner, ms, parse_args, scratch_dir, verdict

from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.rules import IgnoreRule, MatchingRules, NormalizeRule
from openprogram.providers.replay import ReplayProvider
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.stream import drain
from openprogram.providers.types import Context, UserMessage

RULES = MatchingRules(
    normalize=(
        NormalizeRule(path="context.system_prompt", preset="iso-datetime"),
        NormalizeRule(path="context.messages[*].content", preset="uuid"),
        NormalizeRule(path="context.messages[*].content", preset="tmp-path"),
        NormalizeRule(path="options.metadata.*", preset="hex-id"),
        NormalizeRule(path="options.metadata.*", preset="unix-ms"),
    ),
    ignore=(
        IgnoreRule(path="options.metadata.request_id"),
        IgnoreRule(path="options.headers.x-trace"),
        IgnoreRule(path="**.session_id"),
        IgnoreRule(path="context.tools[*].description"),
        IgnoreRule(path="model.headers.*"),
    ),
)


def context(call: int, day: str) -> Context:
    prompt = f"You are a careful assistant. Today is {day}. Answer in one line. " * 8
    return Context(
        system_prompt=prompt,
        messages=[UserMessage(content=f"Question {call}: what changed today?", timestamp=1)],
    )


def main() -> None:
    args = parse_args(__doc__)
    calls = 300 if args.quick else 2000
    runs = args.runs or (3 if args.quick else 5)
    banner(f"replay_rules: {calls:,} calls, 10 rules vs none, median of {runs}")
    with scratch_dir("replay-rules") as root:
        path = root / "dated.jsonl"
        recorder = RecordingProvider(
            ScriptedProvider(responder=lambda c, n: [TextStep(text="ok, noted.")]), path
        )
        loop = asyncio.new_event_loop()

        async def record() -> None:
            for call in range(calls):
                await drain(recorder.stream(MODEL, context(call, "2026-12-01")))

        loop.run_until_complete(record())
        recorder.sink.close()
        same = [context(call, "2026-12-01") for call in range(calls)]
        next_day = [context(call, "2026-12-02") for call in range(calls)]

        async def serve(provider: ReplayProvider, contexts: list[Context]) -> None:
            for ctx in contexts:
                await drain(provider.stream(MODEL, ctx))
            provider.assert_consumed()

        def without_rules() -> None:
            loop.run_until_complete(serve(ReplayProvider(path, project_rules=False), same))

        def with_rules() -> None:
            provider = ReplayProvider(path, rules=RULES, project_rules=False)
            loop.run_until_complete(serve(provider, same))

        def absorbing() -> None:
            provider = ReplayProvider(path, rules=RULES, project_rules=False)
            loop.run_until_complete(serve(provider, next_day))

        times = alternate(
            runs, without_rules=without_rules, with_rules=with_rules, absorbing=absorbing
        )
    per_call = {name: seconds / calls * 1e6 for name, seconds in times.items()}
    print(f"   identical requests, no rules        {ms(times['without_rules'])}")
    print(f"   identical requests, 10 rules        {ms(times['with_rules'])}")
    print(f"   every call absorbs a date, 10 rules {ms(times['absorbing'])}")
    print(
        f"   per call: {per_call['without_rules']:.0f} µs, {per_call['with_rules']:.0f} µs, "
        f"{per_call['absorbing']:.0f} µs"
    )
    reference = times["absorbing"] / times["without_rules"]
    print(f"   every call absorbing a date / no rules: ratio {reference:.2f} (reference)")
    ratio = times["with_rules"] / times["without_rules"]
    print(f"   TARGET 8: replay with 10 rules / without {verdict(ratio, 1.3)}")


if __name__ == "__main__":
    main()
