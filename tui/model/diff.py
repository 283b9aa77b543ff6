"""Two recordings compared the way the recording view reads one: lazily, first rows first.

Both files get the TUI's line index (`recording_index.IndexPair`: built side by side in two
threads). As calls appear on both sides, their request rows are read with the library's strict row
parser and compared by index with the library's difference walker and rules; the screen shows those
rows at once. When both files are indexed, the calls are aligned for good by the library
(`align_signatures`): the same shape keeps the rows, an inserted or removed call re-pairs them.
Answers are folded on demand, one call at a time, with the library's `Answer` and
`compare_answers`. Only request differences are kept for every row; requests and events are read
again when a row is shown.

This is the library's diff (`openprogram.recordings.diff`), read lazily: the same signatures,
alignment, differences, rules and answer comparison. What the screen says of it is `diff_text`.
Never imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.recording.request_references import RequestReferenceError
from openprogram.providers.recording.row_models import RequestRow
from openprogram.providers.recording.rules import MatchingRules, RuledDifference
from openprogram.recordings.call_stats import CallStats, StatsDelta, stats_of_answer
from openprogram.recordings.cost import TokenCounts
from openprogram.recordings.diff import (
    Answer,
    AnswerDifference,
    CallStatus,
    PairedRequests,
    align_signatures,
    compare_answers,
    pair_status,
    row_signature,
)
from tui.model.call_detail import LoadedCall
from tui.model.events import EventUnreadable
from tui.model.recording_index import IndexPair, RecordingIndex, Side, Throttle
from tui.model.row_reading import read_request, reader_of

COMPARE_BATCH = 8
"""Calls compared at a time: the first rows are told to the screen one batch in."""
REPORT_INTERVAL = 0.25
"""Then rows are told at most this often (seconds): each report redraws the whole call list."""


@dataclass
class DiffRow:
    """One row of the diff: a call of A and/or of B (their positions), and how they compare."""

    a: int | None
    b: int | None
    request: tuple[RuledDifference, ...] = ()
    answer: AnswerDifference | None = None
    """None until the answers were compared (`LazyDiff.compare_answer`)."""
    usage_a: TokenCounts | None = None
    usage_b: TokenCounts | None = None
    stats_a: CallStats | None = None
    """Call A's numbers (the library's `call_stats`), with the answer."""
    stats_b: CallStats | None = None

    @property
    def delta(self) -> StatsDelta | None:
        """Both calls' numbers and B − A (the library's, as `recordings diff --json` has them);
        None until the answers were compared."""
        return None if self.answer is None else StatsDelta(self.stats_a, self.stats_b)

    @property
    def status(self) -> CallStatus:
        """The library's status; an answer not compared yet counts as unchanged."""
        return pair_status(
            self.a is not None, self.b is not None, self.request, self.answer or AnswerDifference()
        )

    @property
    def counting(self) -> int:
        """Request differences no rule absorbed."""
        return sum(not ruled.absorbed for ruled in self.request)


@dataclass
class LazyDiff:
    """The diff of the pair's two recordings, filled by `build` (in a thread) and read by the
    screen."""

    pair: IndexPair
    rules: MatchingRules
    rows: list[DiffRow] = field(default_factory=list)
    aligned_by: Literal["index", "signature"] | None = None
    """None while the files are still being indexed."""
    paired: PairedRequests | None = None
    """The request comparison of the rows so far (it knows which pairs were equal)."""

    @classmethod
    def open(cls, a: Path, b: Path, rules: MatchingRules) -> LazyDiff:
        """The diff of recordings `a` and `b` (raises `RecordingFileError` for a missing file)."""
        return cls(IndexPair(a, b), rules)

    @property
    def indexes(self) -> dict[Side, RecordingIndex]:
        """Both line indexes, by side."""
        return self.pair.indexes

    def close(self) -> None:
        """Release both files (a build still running stops)."""
        self.pair.close()

    @property
    def complete(self) -> bool:
        """True once both files are indexed and the rows aligned for good."""
        return self.aligned_by is not None

    # -- building --

    def build(self, on_rows: Callable[[bool], object]) -> None:
        """Index both files (unless the pair was started already), compare their calls as they
        appear; `on_rows(reset)` is called when rows were added (`reset`: every row was replaced, by
        the final alignment). After the first rows the indexes wait for `pair.resume()` (the
        screen shows the first comparison without two threads reading beside it)."""
        pair = self.pair
        pair.start()
        if self._compare_published():
            on_rows(False)  # the screen resumes the indexes once it has shown the first row
        else:
            pair.resume()  # nothing to show: the indexes go on now
        throttle, untold = Throttle(REPORT_INTERVAL), False
        while True:
            failure = pair.failure()
            if failure is not None:
                pair.join()
            done = pair.indexed
            if self._compare_published():
                untold = True
                if not throttle.due():
                    continue  # more may be waiting: compare them before telling
            if untold:
                on_rows(False)
                throttle.restart()
                untold = False
                continue
            if done:
                break
            pair.wait(0.05)
        pair.join()
        self._check_headers()
        self._align()
        on_rows(True)

    def compare_all(
        self, on_rows: Callable[[bool], object], on_answers: Callable[[bool], object]
    ) -> None:
        """`build`, then fold and compare the answers of every row: `on_answers(False)` when
        some were (at most every `REPORT_INTERVAL`), `on_answers(True)` once all were."""
        self.build(on_rows)
        throttle = Throttle(REPORT_INTERVAL)
        for row in list(self.rows):
            self.compare_answer(row)
            if throttle.due():
                on_answers(False)
        on_answers(True)

    def _compare_published(self) -> bool:
        """Compare (by index) up to `COMPARE_BATCH` more of the calls both sides have by now; True
        when rows were added."""
        count = min(self.pair.common_calls, len(self.rows) + COMPARE_BATCH)
        added = False
        while len(self.rows) < count:
            n = len(self.rows)
            self.rows.append(DiffRow(n, n, self._request_differences(n, n)))
            added = True
        return added

    def _check_headers(self) -> None:
        for side in ("a", "b"):
            index = self.indexes[side]
            if index.format_version is None:
                first = (
                    index.line(0)[:80].decode("utf-8", errors="replace") if index.line_count else ""
                )
                reason = f"not an OpenProgram recording (first row: {first or 'none'})"
                raise RecordingFileError(index.path, 1, None, reason)

    def _align(self) -> None:
        signatures = {
            side: [self._signature(side, n) for n in range(len(index.calls))]
            for side, index in self.indexes.items()
        }
        positions, how = align_signatures(signatures["a"], signatures["b"])
        if how == "index" and len(self.rows) == len(positions):
            self.aligned_by = how
            return
        self.paired = None  # a new alignment pairs other calls
        self.rows = [
            DiffRow(
                i, j, self._request_differences(i, j) if i is not None and j is not None else ()
            )
            for i, j in positions
        ]
        self.aligned_by = how

    # -- reading --

    def _request(self, side: Side, ordinal: int) -> RequestRow:
        index = self.indexes[side]
        row = read_request(index, index.calls[ordinal])
        if isinstance(row, str):
            raise RecordingFileError(index.path, None, ordinal, row)
        return row

    def _signature(self, side: Side, ordinal: int) -> str:
        """The call's alignment signature, from its row and the rows its references lead to
        (no request is built: a session of N calls is signed in time proportional to N)."""
        index = self.indexes[side]
        try:
            return row_signature(reader_of(index).requests, self._stored(side, ordinal))
        except RequestReferenceError as exc:
            where = f"line {index.calls[ordinal].request_line + 1}"
            raise RecordingFileError(index.path, None, ordinal, f"{where}: {exc}") from None

    def request_payload(self, side: Side, ordinal: int | None) -> dict[str, Any] | None:
        """The request of call `ordinal` of one side, as compared (`None`: no call there)."""
        if ordinal is None:
            return None
        row = self._request(side, ordinal)
        return {"model": row.model, "context": row.context, "options": row.options}

    def _stored(self, side: Side, ordinal: int) -> RequestRow:
        index = self.indexes[side]
        row = reader_of(index).stored(ordinal)
        if isinstance(row, str):
            raise RecordingFileError(index.path, None, ordinal, row)
        return row

    def _request_differences(self, i: int, j: int) -> tuple[RuledDifference, ...]:
        """Pairs are compared in file order through one `PairedRequests`, which knows a pair
        equal from its rows when their bases were equal (a new one for a new alignment)."""
        if self.paired is None:
            self.paired = PairedRequests(self.rules)

        def whole(side: Side, ordinal: int) -> Callable[[], dict[str, Any]]:
            def payload() -> dict[str, Any]:
                found = self.request_payload(side, ordinal)
                assert found is not None
                return found

            return payload

        return self.paired.differences(
            self._stored("a", i), self._stored("b", j), whole("a", i), whole("b", j)
        )

    def _answer(self, side: Side, ordinal: int) -> tuple[Answer, CallStats | None]:
        index = self.indexes[side]
        call = LoadedCall(index, index.calls[ordinal])
        try:
            events, times = call.timed_events()  # each row parsed once, with its time
        except EventUnreadable as exc:
            raise RecordingFileError(index.path, exc.line_number, ordinal, exc.reason) from None
        end = call.call_end
        error = end.error if end is not None else None
        message = assemble_message(events)  # folded once: for the answer and for the numbers
        stats = None
        if call.stored is not None:
            span = call.span
            recorded = RecordedCall(
                call_index=call.call_index,
                stored=call.stored,
                events=tuple(events),
                outcome=end.outcome if end is not None else "abandoned",
                error=error,
                first_line=span.request_line + 1,
                last_line=(span.end_line if span.end_line is not None else span.request_line) + 1,
                start_ms=call.stored.start_ms,
                duration_ms=end.duration_ms if end is not None else None,
                event_ms=tuple(times),
                requests=reader_of(index).requests,
            )
            stats = stats_of_answer(recorded, message)
        return Answer.of_message(message, error), stats

    def compare_answer(self, row: DiffRow) -> DiffRow:
        """Fold and compare the answers of `row` (once); returns the row."""
        if row.answer is not None:
            return row
        left, row.stats_a = self._answer("a", row.a) if row.a is not None else (None, None)
        right, row.stats_b = self._answer("b", row.b) if row.b is not None else (None, None)
        row.usage_a = left.usage if left else None
        row.usage_b = right.usage if right else None
        row.answer = (
            compare_answers(left, right)
            if left is not None and right is not None
            else AnswerDifference()
        )
        return row
