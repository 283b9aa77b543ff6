"""Two small recordings to compare, recorded by the library with fixed timestamps (the same
pictures on every run): used by the diff view's snapshots and by `scripts/screenshots.py`."""

from __future__ import annotations

from pathlib import Path


async def record_diff_pair(folder: Path) -> tuple[Path, Path]:
    """Two small recordings with fixed timestamps: one request change, one answer change, one
    call only in B. Their clocks tick 41 ms (A) and 63 ms (B) per reading: the times are the same
    on every run, and B is slower."""
    import itertools

    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.recording.writer import RecordingSink
    from openprogram.providers.scripted import ScriptedProvider, TextStep, ToolCallStep
    from openprogram.providers.stream import drain

    model = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")

    async def record(name: str, calls: list[tuple[str, object]], tick: float) -> Path:
        path = folder / name
        ticks = itertools.count()
        sink = RecordingSink(path, clock=lambda: next(ticks) * tick)
        recorder = RecordingProvider(ScriptedProvider([[step] for _, step in calls]), sink)
        for said, _ in calls:
            context = Context(
                system_prompt="Answer briefly.", messages=[UserMessage(content=said, timestamp=1)]
            )
            await drain(recorder.stream(model, context, None))
        recorder.sink.close()
        return path

    search = ToolCallStep(name="search", arguments={"q": "cats", "limit": 3})
    a = await record(
        "before.jsonl",
        [("hello", TextStep(text="Hi! How can I help?")), ("find cats", search),
         ("thanks", TextStep(text="You are welcome."))], 0.041,
    )  # fmt: skip
    b = await record(
        "after.jsonl",
        [("hello there", TextStep(text="Hi! How can I help?")),
         ("find cats", ToolCallStep(name="search", arguments={"q": "cats", "limit": 10})),
         ("thanks", TextStep(text="You are very welcome.")), ("bye", TextStep(text="Bye!"))],
        0.063,
    )  # fmt: skip
    return a, b
