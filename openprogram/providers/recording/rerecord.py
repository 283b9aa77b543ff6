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
    StreamOptions,
)
from openprogram.providers.wrapper import Forward, WrapperProvider


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


class RerecordingApi(WrapperProvider):
    """One api's provider in rerecord mode: replayed while the run matches, then live and recorded
    (it wraps the recorder of the api's provider, by whichever entry point the call came in)."""

    def __init__(self, state: RerecordState, provider: ApiProvider) -> None:
        super().__init__(RecordingProvider(provider, state.sink, rules=state.replay.rules))
        self.requires_credentials = True
        self.state = state

    def wrap_call(
        self, model: Model, context: Context, options: StreamOptions | None, forward: Forward
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Replay the next recorded call, or make this one live and record it."""
        dump = request_dump(model, context, options)
        if self.state.replayed(dump):
            return self._replay(dump)
        return aiter(forward())

    async def _replay(self, dump: dict[str, Any]) -> AsyncIterator[AssistantMessageEvent]:
        call = self.state.replay.take(dump)
        copy_call(self.state.sink, call.request_payload(), call)
        for event in call.events:
            yield event
