"""Compare two recordings call by call: requests (every difference) and answers (as answers).

Calls are aligned by index when both recordings have the same shape; otherwise by a sequence
alignment on a per-call signature (model, tool names, the
last message's role and content), so an inserted or removed call shows as "only in A" or "only in
B" instead of shifting every later call. Matching rules mark the request differences they absorb.

Each file is read once, a call at a time (`read_diff_side`): what the diff keeps of a call is a
`DiffedCall` (its answer, numbers and prompt-cache facts; its request row is the file's), never
its events or its full request, which is built from the file's rows only for a pair compared whole.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openprogram.providers.accumulator import AccumulatorError, assemble_message
from openprogram.providers.recording.differences import (
    FieldDifference,
    find_first_difference,
    iter_differences,
)
from openprogram.providers.recording.reader import (
    CallVisitor,
    RecordedCall,
    Recording,
    verify_recording,
)
from openprogram.providers.recording.request_references import RequestChain
from openprogram.providers.recording.row_models import RequestRow
from openprogram.providers.recording.rules import (
    NO_RULES,
    MatchingRules,
    RuledDifference,
    iter_ruled_differences,
)
from openprogram.providers.types import AssistantMessage, AssistantMessageEvent
from openprogram.recordings.call_stats import CallStats, stats_of_answer
from openprogram.recordings.cost import TokenCounts
from openprogram.recordings.prompt_cache import CallCache, PromptCacheReader
from openprogram.word_diff import WordChange, word_diff

CallStatus = Literal[
    "same", "request_changed", "answer_changed", "both_changed", "only_a", "only_b"
]


@dataclass(frozen=True, slots=True)
class Answer:
    """What a recorded call answered, folded from its events."""

    text: str
    thinking: str
    tool_calls: tuple[tuple[str, dict[str, Any]], ...]
    stop_reason: str | None
    error: str | None
    usage: TokenCounts

    @classmethod
    def of(cls, call: RecordedCall) -> Answer:
        """The answer of `call` (its events folded by the one accumulator)."""
        return cls.of_events(call.events, call.error)

    @classmethod
    def of_events(cls, events: Sequence[AssistantMessageEvent], error: str | None) -> Answer:
        """The answer a call's `events` make (folded by the one accumulator); `error` is the
        call's own error (its `call_end` row), used when the events carry none. Events that do
        not fold (a file may hold any order of valid events) are an answer with that error."""
        return folded_answer(events, error)[1]

    @classmethod
    def of_message(cls, message: AssistantMessage | None, error: str | None) -> Answer:
        """The answer of a call whose events were folded already into `message` (None: no
        answer); `error` as for `of_events`."""
        if message is None:
            return cls("", "", (), None, error, TokenCounts())
        text = "".join(b.text for b in message.content if b.type == "text")
        thinking = "".join(b.thinking for b in message.content if b.type == "thinking")
        tools = tuple((b.name, b.arguments) for b in message.content if b.type == "toolCall")
        return cls(
            text,
            thinking,
            tools,
            message.stop_reason,
            message.error_message or error,
            TokenCounts.of(message.usage),
        )


def folded_answer(
    events: Sequence[AssistantMessageEvent], error: str | None
) -> tuple[AssistantMessage | None, Answer]:
    """The message a call's `events` fold into (None: none, or events that do not fold) and its
    `Answer` (`Answer.of_events`), for a reader that needs both from one fold."""
    try:
        message = assemble_message(list(events))
    except AccumulatorError as exc:
        return None, Answer(
            "", "", (), None, f"the recorded events do not fold: {exc}", TokenCounts()
        )
    return message, Answer.of_message(message, error)


@dataclass(frozen=True, slots=True)
class AnswerDifference:
    """How two answers differ: each part that changed (empty tuple: the answers are the same)."""

    text: tuple[WordChange, ...] = ()
    thinking: tuple[WordChange, ...] = ()
    tool_calls: tuple[FieldDifference, ...] = ()
    stop_reason: tuple[str | None, str | None] | None = None
    error: tuple[str | None, str | None] | None = None

    @property
    def changed(self) -> bool:
        """True when any part of the answer differs (usage alone does not count)."""
        return bool(self.text or self.thinking or self.tool_calls or self.stop_reason or self.error)


@dataclass(frozen=True, slots=True)
class DiffedCall:
    """What the diff keeps of one recorded call, never its events: the file's request rows
    (`requests`, which keep a reference row as its line), its folded `answer`, its numbers
    (`stats`) and its prompt-cache facts (`cache`: None when its request cannot be followed)."""

    call_index: int
    row: RequestRow | None
    """Its request row when that is the full request, or when there is no chain (None: a
    reference, read again from `requests` when the pair is compared)."""
    requests: RequestChain | None
    answer: Answer
    stats: CallStats
    cache: CallCache | None

    @property
    def stored(self) -> RequestRow:
        """Its request row as the file stores it."""
        if self.row is not None:
            return self.row
        assert self.requests is not None
        return self.requests.row(self.call_index)

    def request_payload(self) -> dict[str, Any]:
        """The full request as replay compares it, built now from the file's rows, not kept."""
        full = self.row if self.requests is None else self.requests.full(self.call_index)
        assert full is not None
        return {"model": full.model, "context": full.context, "options": full.options}


@dataclass(frozen=True, slots=True)
class CallPair:
    """One row of the diff: a call of A and/or a call of B, and how they compare."""

    a: DiffedCall | None
    b: DiffedCall | None
    request: tuple[RuledDifference, ...] = ()
    answer: AnswerDifference = field(default_factory=AnswerDifference)
    usage_a: TokenCounts | None = None
    usage_b: TokenCounts | None = None

    @property
    def status(self) -> CallStatus:
        """same, request_changed, answer_changed, both_changed, only_a or only_b."""
        return pair_status(self.a is not None, self.b is not None, self.request, self.answer)

    @property
    def counting_request_differences(self) -> tuple[FieldDifference, ...]:
        """The request differences no rule absorbed."""
        return tuple(d.difference for d in self.request if not d.absorbed)


def pair_status(
    in_a: bool, in_b: bool, request: Sequence[RuledDifference], answer: AnswerDifference
) -> CallStatus:
    """The status of a row: a call on one side only, or how its request and answer compare."""
    if not in_b:
        return "only_a"
    if not in_a:
        return "only_b"
    counts = any(not d.absorbed for d in request)
    if counts and answer.changed:
        return "both_changed"
    if counts:
        return "request_changed"
    return "answer_changed" if answer.changed else "same"


@dataclass(frozen=True)
class DiffSummary:
    """Counts per status and token totals of each side."""

    same: int
    request_changed: int
    answer_changed: int
    only_a: int
    only_b: int
    tokens_a: TokenCounts
    tokens_b: TokenCounts


@dataclass(frozen=True)
class RecordingDiff:
    """Two recordings compared call by call."""

    a: Path
    b: Path
    rules: MatchingRules
    pairs: tuple[CallPair, ...]
    aligned_by: Literal["index", "signature"]

    @property
    def identical(self) -> bool:
        """True when every pair is `same`."""
        return all(pair.status == "same" for pair in self.pairs)

    def summary(self) -> DiffSummary:
        """Counts per status (a call whose request and answer changed counts in both)."""
        statuses = [pair.status for pair in self.pairs]
        return DiffSummary(
            same=statuses.count("same"),
            request_changed=statuses.count("request_changed") + statuses.count("both_changed"),
            answer_changed=statuses.count("answer_changed") + statuses.count("both_changed"),
            only_a=statuses.count("only_a"),
            only_b=statuses.count("only_b"),
            tokens_a=_total(p.usage_a for p in self.pairs),
            tokens_b=_total(p.usage_b for p in self.pairs),
        )


def _total(usages: Iterable[TokenCounts | None]) -> TokenCounts:
    # The diff's totals have never said reasoning tokens (`diff --json` keeps its keys).
    return dataclasses.replace(TokenCounts.total(usages), reasoning=None)


def call_signature(call: RecordedCall) -> str:
    """What identifies a call across two sessions: model, tool names, last message role + content.
    Found from the file's rows without building the full request (`RequestChain` follows the
    references for each part), so a session of N calls is signed in time proportional to N."""
    if call.requests is None:
        return request_signature(call.stored)
    return row_signature(call.requests, call.stored)


def row_signature(requests: RequestChain, row: RequestRow) -> str:
    """`call_signature` of the call whose request row (as stored) is `row`, its references
    followed through `requests`; raises `RequestReferenceError` as building its request would."""
    if row.base is None:
        return request_signature(row)
    last = requests.last_message(row.call_index)  # first: it raises what building it would
    return _signature(requests.model(row.call_index), requests.tools(row.call_index), last)


def request_signature(request: RequestRow) -> str:
    """`call_signature` of the call whose full request this is."""
    context = request.context
    messages = context.get("messages")  # any JSON in a file
    last = messages[-1] if isinstance(messages, list) and messages else None
    return _signature(request.model, context.get("tools"), last)


def _signature(model: dict[str, Any], tools_given: Any, last: Any) -> str:
    """The signature of a request with this `model`, `context.tools` and last message (None:
    none); any JSON a file holds."""
    tools = sorted(
        str(tool.get("name", ""))
        for tool in (tools_given if isinstance(tools_given, list) else [])
        if isinstance(tool, dict)
    )
    message = last if isinstance(last, dict) else {}
    return json.dumps(
        [model.get("id"), tools, message.get("role"), message.get("content")],
        sort_keys=True,
        default=str,
    )


def compare_answers(a: Answer, b: Answer) -> AnswerDifference:
    """Each part of two answers that differs."""
    tools_a = [{"name": name, "arguments": args} for name, args in a.tool_calls]
    tools_b = [{"name": name, "arguments": args} for name, args in b.tool_calls]
    return AnswerDifference(
        text=word_diff(a.text, b.text),
        thinking=word_diff(a.thinking, b.thinking),
        tool_calls=(
            tuple(iter_differences(tools_a, tools_b, ("tool_calls",))) if tools_a or tools_b else ()
        ),
        stop_reason=None if a.stop_reason == b.stop_reason else (a.stop_reason, b.stop_reason),
        error=None if a.error == b.error else (a.error, b.error),
    )


class PairedRequests:
    """The request differences of the aligned calls of two files, compared as the files share
    them: a pair whose rows refer to base calls whose requests were found equal, keep as many of
    their messages and store the same change has equal requests, known without building either
    (a session of N calls that each send the conversation so far is compared in time
    proportional to the files, not to N × the conversation). Any other pair is compared whole."""

    def __init__(self, rules: MatchingRules) -> None:
        self.rules = rules
        self._equal: set[tuple[int, int]] = set()

    def differences(
        self,
        a: RequestRow,
        b: RequestRow,
        a_full: Callable[[], dict[str, Any]],
        b_full: Callable[[], dict[str, Any]],
    ) -> tuple[RuledDifference, ...]:
        """The differences of two calls' requests, given their stored rows `a` and `b` (call them
        in file order: a pair refers to pairs compared before it) and how to build each whole."""
        if self._same_change(a, b):
            found: tuple[RuledDifference, ...] = ()
        else:
            found = tuple(iter_ruled_differences(a_full(), b_full(), self.rules))
        if not found:
            self._equal.add((a.call_index, b.call_index))
        return found

    def _same_change(self, a: RequestRow, b: RequestRow) -> bool:
        if a.base is None or b.base is None or (a.base, b.base) not in self._equal:
            return False
        changed = {"model", "options"}
        if (a.keep or 0) != (b.keep or 0) or a.model_fields_set & changed != (
            b.model_fields_set & changed
        ):
            return False
        stored = {"context": a.context, "model": a.model, "options": a.options}
        other = {"context": b.context, "model": b.model, "options": b.options}
        return find_first_difference(stored, other) is None


def _pair(a: DiffedCall | None, b: DiffedCall | None, requests: PairedRequests) -> CallPair:
    if a is None or b is None:
        only = a or b
        assert only is not None
        usage = only.answer.usage
        return CallPair(a, b, usage_a=usage if a else None, usage_b=usage if b else None)
    request = requests.differences(a.stored, b.stored, a.request_payload, b.request_payload)
    return CallPair(
        a, b, request, compare_answers(a.answer, b.answer), a.answer.usage, b.answer.usage
    )


def align_signatures(
    a: Sequence[Hashable], b: Sequence[Hashable]
) -> tuple[list[tuple[int | None, int | None]], Literal["index", "signature"]]:
    """Pairs of calls' positions given their signatures (None: no call on that side): by index
    when both have the same shape (as many calls, and the signature alignment finds nothing
    inserted or removed), else by the signature alignment."""
    if a == b:  # what the alignment finds, without its time quadratic in repeated signatures
        return [(n, n) for n in range(len(a))], "index"
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    same_shape = len(a) == len(b) and all(
        op in ("equal", "replace") and i2 - i1 == j2 - j1 for op, i1, i2, j1, j2 in opcodes
    )
    if same_shape:
        return [(n, n) for n in range(len(a))], "index"
    pairs: list[tuple[int | None, int | None]] = []
    for op, i1, i2, j1, j2 in opcodes:
        common = min(i2 - i1, j2 - j1) if op in ("equal", "replace") else 0
        pairs.extend((i1 + n, j1 + n) for n in range(common))
        pairs.extend((i, None) for i in range(i1 + common, i2))
        pairs.extend((None, j) for j in range(j1 + common, j2))
    return pairs, "signature"


class InCallOrder:
    """A call visitor that hands calls on to `each` in `call_index` order from 0: the reader
    hands them in the order they end, which overlapping calls change. A call that ends early
    waits (with its events) for the ones before it."""

    def __init__(self, each: CallVisitor) -> None:
        self._each = each
        self._next = 0
        self._waiting: dict[int, RecordedCall] = {}

    def __call__(self, call: RecordedCall) -> None:
        self._waiting[call.call_index] = call
        while (ready := self._waiting.pop(self._next, None)) is not None:
            self._next += 1
            self._each(ready)


@dataclass(frozen=True)
class DiffSide:
    """One recording as the diff reads it: its path, what it keeps of each call (in call order)
    and each call's alignment signature (a digest of `call_signature`)."""

    path: Path
    calls: tuple[DiffedCall, ...]
    signatures: tuple[bytes, ...]


class _SideReader:
    """Each call folded once, for its answer, its numbers and its prompt-cache facts."""

    def __init__(self, priced: bool) -> None:
        self.calls: list[DiffedCall] = []
        self.signatures: list[bytes] = []
        self._priced = priced
        # The prompt-cache reader takes the message folded here (no cycle through `self`: the
        # reader's state goes with the reading, not with the next collection).
        folded: list[AssistantMessage | None] = [None]
        self._folded = folded
        self._cache = PromptCacheReader(lambda _call: folded[0])

    def __call__(self, call: RecordedCall) -> None:
        message, answer = folded_answer(call.events, call.error)
        self._folded[0] = message
        signature = call_signature(call).encode()
        self.signatures.append(hashlib.blake2b(signature, digest_size=16).digest())
        self.calls.append(
            DiffedCall(
                call.call_index,
                call.stored if call.requests is None or call.stored.base is None else None,
                call.requests,
                answer,
                stats_of_answer(call, message, priced=self._priced),
                self._cache.read(call, priced=False),
            )
        )
        self._folded[0] = None


def read_diff_side(source: Recording | str | Path, *, priced: bool = True) -> DiffSide:
    """What `diff_sides` compares of one recording: a path is read with the strict reader (its
    error on the first problem, as `read_recording`), one call at a time, keeping each call's
    `DiffedCall` and the file's request rows, not its events. `priced=False` leaves the calls'
    costs out without loading the price table (the text output prints none)."""
    reader = _SideReader(priced)
    ordered = InCallOrder(reader)
    if isinstance(source, Recording):
        path = source.path
        for call in source.calls:
            ordered(call)
    else:
        path = verify_recording(source, ordered).path
    return DiffSide(path, tuple(reader.calls), tuple(reader.signatures))


def diff_sides(a: DiffSide, b: DiffSide, rules: MatchingRules = NO_RULES) -> RecordingDiff:
    """Compare two recordings read by `read_diff_side`, pair by pair in file order (a pair's
    requests are built only when their rows do not say they are equal)."""
    positions, how = align_signatures(a.signatures, b.signatures)
    requests = PairedRequests(rules)
    pairs = tuple(
        _pair(
            a.calls[i] if i is not None else None,
            b.calls[j] if j is not None else None,
            requests,
        )
        for i, j in positions
    )
    return RecordingDiff(a.path, b.path, rules, pairs, how)


def diff_recordings(
    a: Recording | str | Path, b: Recording | str | Path, rules: MatchingRules = NO_RULES
) -> RecordingDiff:
    """Compare two recordings (paths are read with the strict reader, a call at a time)."""
    return diff_sides(read_diff_side(a), read_diff_side(b), rules)
