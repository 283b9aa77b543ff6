"""Two small recordings to compare, recorded by the library with fixed timestamps (the same
pictures on every run): used by the diff view's snapshots and by `scripts/screenshots.py`."""

from __future__ import annotations

from pathlib import Path


async def record_diff_pair(folder: Path) -> tuple[Path, Path]:
    """Two small recordings with fixed timestamps: one request change, one answer change, one
    call only in B."""
    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.scripted import ScriptedProvider, TextStep, ToolCallStep
    from openprogram.providers.stream import drain

    model = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")

    async def record(name: str, calls: list[tuple[str, object]]) -> Path:
        path = folder / name
        recorder = RecordingProvider(ScriptedProvider([[step] for _, step in calls]), path)
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
         ("thanks", TextStep(text="You are welcome."))],
    )  # fmt: skip
    b = await record(
        "after.jsonl",
        [("hello there", TextStep(text="Hi! How can I help?")),
         ("find cats", ToolCallStep(name="search", arguments={"q": "cats", "limit": 10})),
         ("thanks", TextStep(text="You are very welcome.")), ("bye", TextStep(text="Bye!"))],
    )  # fmt: skip
    return a, b
