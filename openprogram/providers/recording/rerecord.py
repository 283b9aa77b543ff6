"""Record again from the diverging call: replay while the run matches, then go live and record.

`RerecordState` holds one replay and one new file. Every provider api is wrapped in a `RerecordingApi`:
calls are answered from the recording while they match it (and come before `from_call`), and
copied into the new file as they were recorded; from the first call that differs, or `from_call`,
or the first call past the end, every call goes to the real provider and is recorded into the new
file. What the new file holds is checked and put in place by `openprogram.recordings.rerecord`.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

from openprogram.providers.api_registry import ApiProvider
from openprogram.providers.recording.recorder import RecordingProvider, request_dump
from openprogram.providers.recording.replayer import ReplayProvider, copy_call
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
)


class RerecordState:
    """The replay, the new file, and whether the run has gone live yet (shared by every api)."""

    def __init__(self, replay: ReplayProvider, sink: RecordingSink, from_call: int | None) -> None:
        self.replay = replay
        self.sink = sink
        self.from_call = from_call
        self.live_from: int | None = None
        """The first call that went live (None while the run still replays)."""
        self._lock = threading.Lock()

    def replayed(self, dump: dict[str, Any]) -> bool:
        """Answer this call from the recording (True), or from now on live (False)."""
        with self._lock:
            index = self.replay.call_count
            if self.live_from is None:
                past_end = index >= self.replay.recorded_call_count
                asked = self.from_call is not None and index >= self.from_call
                if past_end or asked or self.replay.next_difference(dump) is not None:
                    self.live_from = index
            return self.live_from is None


class RerecordingApi:
    """One api's provider in rerecord mode: replayed while the run matches, then live and recorded."""

    requires_credentials = True

    def __init__(self, state: RerecordState, provider: ApiProvider) -> None:
        self.state = state
        self.recorder = RecordingProvider(provider, state.sink)

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Replay the next recorded call, or make this one live and record it."""
        dump = request_dump(model, context, options)
        if self.state.replayed(dump):
            return self._replay(dump)
        return self.recorder.stream(model, context, options)

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Same as `stream`."""
        dump = request_dump(model, context, options)
        if self.state.replayed(dump):
            return self._replay(dump)
        return self.recorder.stream_simple(model, context, options)

    async def _replay(self, dump: dict[str, Any]) -> AsyncIterator[AssistantMessageEvent]:
        call = self.state.replay.take(dump)
        copy_call(self.state.sink, call.request_payload(), call)
        for event in call.events:
            yield event
