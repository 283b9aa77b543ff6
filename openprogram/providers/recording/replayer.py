"""Replay: answer provider calls offline from a recording, and name the first divergence exactly.

`ReplayProvider(path)` strictly reads the whole file when constructed, holds no HTTP client and no
live provider, and never falls back to one. Call k is compared with recorded call k (model, then
context, then options); the first difference raises `ReplayMismatch`.
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from openprogram.errors import OpenProgramError
from openprogram.providers.api_provider import ApiProvider
from openprogram.providers.recording.differences import (
    FieldDifference,
    find_first_difference,
)
from openprogram.providers.recording.reader import RecordedCall, Recording, read_recording
from openprogram.providers.recording.recorder import redact_request_dump, request_dump
from openprogram.providers.recording.rules import (
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    RuledDifference,
    first_counting_difference,
    iter_ruled_differences,
    scrub_value,
    validate_rules,
)
from openprogram.providers.recording.rules_sources import rules_from_header
from openprogram.providers.recording.sent_again import ReplayedMessages, without_settled
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
)
from openprogram.text import plural

if TYPE_CHECKING:
    # What a passing replay never needs (a check's report rows, a mismatch's report, a broken
    # stream) is imported where it is used: `ReplayProvider(path)` opens without building them.
    from openprogram.providers.recording.check_protocol import ReportRow
    from openprogram.providers.recording.mismatch import MismatchReport, ReplayMismatch
    from openprogram.providers.recording.stream_faults import StreamFault

ACCEPTED_VALUE_LIMIT = 200
"""Accepted differences are reported with both values cut to this many characters."""


def copy_call(sink: RecordingSink, request: dict[str, Any], call: RecordedCall) -> None:
    """Write a recorded call into another file: `request`, then its recorded answer and times as is."""
    call_index = sink.begin_call(request, start_ms=call.start_ms)
    times = call.event_ms or (None,) * len(call.events)
    for number, (event, ms) in enumerate(zip(call.events, times, strict=True)):
        sink.write_event(call_index, number, event.model_dump(mode="json"), ms=ms)
    sink.end_call(
        call_index, len(call.events), call.outcome, call.error, duration_ms=call.duration_ms
    )


__all__ = ["RecordedCallError", "ReplayProvider"]


def _keeping_unchanged(recorded: dict[str, Any], incoming: dict[str, Any]) -> dict[str, Any]:
    """The request accept mode writes for an incoming request that differs: `incoming`, but every
    part equal to the recorded one where replay compares (a message whose timestamp alone is new,
    the model, the tools) kept as stored, so an accepted change is the rows it changed in the
    file and a raw `git diff` shows only those."""

    def kept(old: Any, new: Any) -> Any:
        return old if find_first_difference(old, new) is None else new

    request = {
        part: kept(recorded[part], value) if part in recorded else value
        for part, value in incoming.items()
    }
    old_context, context = recorded.get("context"), incoming.get("context")
    if isinstance(old_context, dict) and isinstance(context, dict):
        merged = {
            key: kept(old_context[key], value) if key in old_context else value
            for key, value in context.items()
        }
        old_messages, messages = _messages_of(recorded), _messages_of(incoming)
        if old_messages is not None and messages is not None:
            merged["messages"] = [
                kept(old_messages[n], message) if n < len(old_messages) else message
                for n, message in enumerate(messages)
            ]
        request["context"] = merged
    return request


def _messages_of(request: dict[str, Any] | None) -> list[Any] | None:
    context = request.get("context") if request is not None else None
    messages = context.get("messages") if isinstance(context, dict) else None
    return messages if isinstance(messages, list) else None


class RecordedCallError(OpenProgramError, RuntimeError):
    """The recorded call itself failed (outcome `error`); replay reproduces that failure."""

    def __init__(self, call_index: int, error: str | None) -> None:
        self.call_index = call_index
        self.error = error
        super().__init__(
            f"recorded call {call_index} failed when it was recorded: {error or 'unknown error'}"
        )


class ReplayProvider(ApiProvider):
    """Answers every call from the recording at `path`, offline; never opens a socket.

    `project_rules`: the project's matching rules, which the caller reads once
    (`rules_sources.project_rules()`: activation, the pytest plugin); nothing is read here. They
    come first, then the recording header's, then `rules` (the caller's own: a marker's, a check's
    command line). `pace`: None delivers events at once; 1.0 at the recorded pace, 2.0 twice as
    fast. `fault`: break that call's stream once, as `stream_faults` says (a retry of the call is
    answered whole)."""

    requires_credentials = False

    def __init__(
        self,
        path: str | os.PathLike[str] | Recording,
        *,
        rules: MatchingRules | None = None,
        project_rules: MatchingRules | None = None,
        on_report: Callable[[ReportRow], None] | None = None,
        accept_into: str | os.PathLike[str] | None = None,
        pace: float | None = None,
        fault: StreamFault | None = None,
    ) -> None:
        if pace is not None and not (math.isfinite(pace) and pace > 0):
            raise ValueError(
                f"pace must be a positive number (1.0: the recorded pace), got {pace!r}"
            )
        self.pace = pace
        """None: events at once; 1.0: at the recorded pace; 2.0: twice as fast; 0.5: half."""
        self.recording = path if isinstance(path, Recording) else read_recording(path)
        self.path = self.recording.path
        self.fault = fault
        """The stream fault to apply once (`check --fault`), or None."""
        self._fault_pending = fault is not None
        if fault is not None:
            from openprogram.providers.recording.stream_faults import StreamFaultError

            if fault.call >= len(self.recording.calls):
                raise StreamFaultError(
                    f"fault {fault.describe()}: {self.path} has "
                    f"{plural(len(self.recording.calls), 'call')}"
                )
            fault.event_in(self.recording.calls[fault.call].events)  # refused now, not mid-run
        header = rules_from_header(self.recording.header.model_extra or {}, str(self.path))
        found = validate_rules(project_rules or MatchingRules())
        self.rules = found.merged(header).merged(validate_rules(rules or MatchingRules()))
        """The matching rules in force: `pyproject.toml`, then the header, then the caller's."""
        self._lock = threading.Lock()
        self._consumed = 0
        self._sent = ReplayedMessages()
        """The last matched request's messages, to skip those sent again unchanged."""
        self._on_report = on_report
        """Told a `ConsumedRow` per matched call, a `MismatchRow`, `AbsorbedRow`s, `AcceptedRow`s."""
        self.mismatches: list[ReplayMismatch] = []
        """Every mismatch raised, in order (also those the code under test caught)."""
        self._accepted: RecordingSink | None = None
        """Accept mode (`accept_into`): a request that differs is accepted instead of refused,
        and every call is written there, with its recorded answer (told as an `AcceptedRow`)."""
        if accept_into is not None:
            self._accepted = RecordingSink(
                accept_into, dict(self.recording.header.model_extra or {})
            )
            self._accepted.ensure_header()

    def _report(self, row: ReportRow) -> None:
        if self._on_report is not None:
            self._on_report(row)

    def _mismatch(self, report: MismatchReport) -> ReplayMismatch:
        """The exception for `report`, once reported and kept in `mismatches`."""
        from openprogram.providers.recording.mismatch import ReplayMismatch

        if self._on_report is not None:
            from openprogram.providers.recording.check_protocol import MismatchRow

            self._report(MismatchRow(mismatch=report))
        mismatch = ReplayMismatch(report)
        self.mismatches.append(mismatch)
        return mismatch

    def _faulted(self, event_index: int, broke: bool) -> None:
        """The fault happened at `event_index`: a broken call counts as not consumed, so that a
        retry of it is answered whole."""
        from openprogram.providers.recording.check_protocol import FaultRow

        assert self.fault is not None
        with self._lock:
            # Not when a concurrent call was matched meanwhile: the next call is that one's.
            broke = broke and self._consumed == self.fault.call + 1
            if broke:
                self._consumed -= 1
        self._report(FaultRow(fault=self.fault, event_index=event_index, broke=broke))

    def _report_absorbed(self, call_index: int, ruled: list[RuledDifference]) -> None:
        """Tell which differences of a call the rules absorbed (also of a call that mismatches)."""
        if self._on_report is None:
            return
        from openprogram.providers.recording.check_protocol import AbsorbedDifference, AbsorbedRow

        for r in ruled:
            if r.absorbed_by is not None:
                rule = r.absorbed_by
                self._report(
                    AbsorbedRow(
                        absorbed=AbsorbedDifference(
                            call_index=call_index,
                            field_path=r.difference.field_path,
                            path_tokens=list(r.difference.path_tokens),
                            rule=rule.describe(),
                            source=rule.source,
                            absorbed_by=rule
                            if isinstance(rule, IgnoreRule | NormalizeRule)
                            else None,
                        )
                    )
                )

    def _accept(self, call_index: int, ruled: list[RuledDifference]) -> None:
        """Report every field the kept request changes, those a rule absorbs included."""
        from openprogram.providers.recording.check_protocol import (
            AcceptedCall,
            AcceptedDifference,
            AcceptedRow,
        )
        from openprogram.providers.recording.difference_text import format_value

        differences_kept = [
            AcceptedDifference(
                field_path=r.difference.field_path,
                recorded=format_value(r.difference.recorded, ACCEPTED_VALUE_LIMIT),
                incoming=format_value(r.difference.incoming, ACCEPTED_VALUE_LIMIT),
                absorbed_by=r.absorbed_by,
            )
            for r in ruled
        ]
        self._report(
            AcceptedRow(accepted=AcceptedCall(call_index=call_index, differences=differences_kept))
        )

    def _write_accepted(self, request: dict[str, Any], call: RecordedCall) -> None:
        assert self._accepted is not None
        copy_call(self._accepted, request, call)

    def next_difference(self, dump: dict[str, Any]) -> FieldDifference | None:
        """The first difference no rule absorbs between `dump` (a `request_dump`) and the next
        recorded call, without consuming it or reporting anything; raises `IndexError` when every
        recorded call was consumed."""
        with self._lock:
            recorded = self.recording.calls[self._consumed].request_payload()
        incoming = scrub_value(redact_request_dump(dump), self.rules.scrub)
        return first_counting_difference(recorded, incoming, self.rules)

    def take(self, dump: dict[str, Any]) -> RecordedCall:
        """Consume the next recorded call for `dump` (as a replayed call does); raises
        `ReplayMismatch` when it does not match."""
        return self._take(dump)

    def close(self) -> None:
        """Close the accept-mode file, if any (replay itself holds no file open)."""
        if self._accepted is not None:
            self._accepted.close()

    @property
    def call_count(self) -> int:
        """How many recorded calls have been consumed (matched) so far."""
        with self._lock:
            return self._consumed

    @property
    def recorded_call_count(self) -> int:
        """How many calls the recording holds."""
        return len(self.recording.calls)

    def assert_consumed(self) -> None:
        """Raise `ReplayMismatch` (kind `unconsumed`) while recorded calls remain."""
        consumed, total = self.call_count, self.recorded_call_count
        if consumed < total:
            from openprogram.providers.recording.mismatch import MismatchReport, ReplayMismatch

            never = f"call {consumed}" if total - consumed == 1 else f"calls {consumed}–{total - 1}"
            raise ReplayMismatch(
                MismatchReport.of_call(
                    "unconsumed",
                    consumed,
                    f"recorded {plural(total, 'call')}, the run made {consumed}: {never} never requested",
                )
            )

    def _take(self, dump: dict[str, Any]) -> RecordedCall:
        """Match the incoming request (its `request_dump`) with the next recorded call; consume it."""
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        with self._lock:
            return self._match(dump, 0)[0]

    def _take_request(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> RecordedCall:
        """`_take(request_dump(model, context, options))`, without dumping or comparing again the
        messages the last matched call sent that are settled (`sent_again.ReplayedMessages`): a
        session resends its whole conversation every call."""
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        with self._lock:
            resent = self._sent.dump(context.messages)
            dump = request_dump(model, context.model_copy(update={"messages": []}), options)
            dump["context"]["messages"] = resent.dumps
            recorded = _messages_of(self._recorded_request(self._consumed))
            call, ruled = self._match(dump, self._sent.settled(resent, recorded))
            self._sent.matched(resent, recorded, (r.difference for r in ruled))
            return call

    def _recorded_request(self, index: int) -> dict[str, Any] | None:
        calls = self.recording.calls
        return calls[index].request_payload() if index < len(calls) else None

    def _match(
        self, dump: dict[str, Any], settled: int
    ) -> tuple[RecordedCall, list[RuledDifference]]:
        """Match `dump` with the next recorded call and consume it (under the lock): the call and
        the differences the rules absorbed or the accept mode kept. The first `settled` messages
        are known to match the recorded ones exactly and are not compared again.

        The recorded request is redacted, and redacting an already redacted value changes
        nothing, so an incoming dump equal to it would stay equal once redacted: only a request
        that differs is redacted before it is compared again and reported.
        """
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        index = self._consumed
        total = len(self.recording.calls)
        if index >= total:
            from openprogram.providers.recording.mismatch import MismatchReport

            incoming = redact_request_dump(dump)
            raise self._mismatch(
                MismatchReport.of_call(
                    "extra_call",
                    index,
                    f"the recording has {plural(total, 'call')}; the run made call "
                    f"{index} (more calls than were recorded)",
                    incoming_request=incoming,
                )
            )
        recorded_call = self.recording.calls[index]
        recorded = recorded_call.request_payload()
        ruled = list(iter_ruled_differences(*without_settled(recorded, dump, settled), self.rules))
        if any(not r.absorbed for r in ruled):
            # Most differing requests are fully absorbed by the rules as they are; only a
            # difference that remains is worth redacting (and scrubbing) to compare again.
            incoming = scrub_value(redact_request_dump(dump), self.rules.scrub)
            ruled = list(
                iter_ruled_differences(*without_settled(recorded, incoming, settled), self.rules)
            )
            self._report_absorbed(index, ruled)
            counting = [r.difference for r in ruled if not r.absorbed]
            if counting and self._accepted is None:
                from openprogram.providers.recording.mismatch import MismatchReport

                raise self._mismatch(
                    MismatchReport.of_difference(index, counting[0], recorded, incoming)
                )
            if counting:
                self._accept(index, ruled)
                recorded = _keeping_unchanged(recorded, incoming)
        else:
            self._report_absorbed(index, ruled)
        if self._accepted is not None:
            self._write_accepted(recorded, recorded_call)
        self._consumed += 1
        if self._on_report is not None:
            from openprogram.providers.recording.check_protocol import ConsumedRow

            self._report(ConsumedRow(call_index=index, calls_recorded=total))
        return recorded_call, ruled

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Replay the next recorded call if this request matches it."""
        return self._replay(model, context, options)

    async def _replay(
        self, model: Model, context: Context, options: StreamOptions | None
    ) -> AsyncIterator[AssistantMessageEvent]:
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        call = self._take_request(model, context, options)
        fault = self.fault
        if fault is not None and self._fault_pending and fault.call == call.call_index:
            self._fault_pending = False
            from openprogram.providers.recording.stream_faults import faulted_stream

            async for event in faulted_stream(fault, call.events, model, options, self._faulted):
                yield event
            return
        if self.pace is None or not call.event_ms:
            for event in call.events:
                yield event
        else:
            started = time.monotonic()
            for event, ms in zip(call.events, call.event_ms, strict=True):
                if ms is not None:  # a migrated call has no times: its events come at once
                    wait = ms / 1000 / self.pace - (time.monotonic() - started)
                    if wait > 0:
                        await asyncio.sleep(wait)
                yield event
        if call.outcome == "error":
            raise RecordedCallError(call.call_index, call.error)
        if call.outcome in ("cancelled", "abandoned"):
            from openprogram.providers.recording.mismatch import MismatchReport

            count = len(call.events)
            raise self._mismatch(
                MismatchReport.of_call(
                    "read_past_end",
                    call.call_index,
                    f"the recorded stream stopped after {plural(count, 'event')} "
                    f"(outcome {call.outcome}); the run read past it",
                    event_index=count,
                )
            )
