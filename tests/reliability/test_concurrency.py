"""Many processes and threads appending to one recording keep it strictly valid and contiguous."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from openprogram.providers.recording.reader import read_recording
from tests.recording_files import append_concurrently


def test_four_processes_four_threads_fifty_calls_each(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    append_concurrently(path, processes=4, threads=4, calls=50)
    recording = read_recording(path)
    assert [call.call_index for call in recording.calls] == list(range(800))
    prompts = Counter(call.request.context["messages"][0]["content"] for call in recording.calls)
    assert len(prompts) == 800 and set(prompts.values()) == {1}
    for call in recording.calls:
        said = call.request.context["messages"][0]["content"]
        answer = call.events[-1].message.content[0].text  # type: ignore[union-attr]
        assert call.outcome == "complete" and answer.startswith("answer ")
        assert said.startswith("pid ")
