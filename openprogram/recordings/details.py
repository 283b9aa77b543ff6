"""What `show` needs about one recording: its summary, header, one row per call and every problem."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.prompt_cache import CallCache, PromptCacheReader, PromptCacheReport
from openprogram.recordings.summary import (
    RecordingSummary,
    configured_mode_and_file,
    scan_location,
    summary_from_scan,
)
from openprogram.text import one_line

FIRST_TEXT_LIMIT = 80
"""At most this many characters of a call's first user text are shown."""


@dataclass(frozen=True)
class CallRow:
    """One recorded call as `show` lists it."""

    call_index: int
    api: str | None
    provider: str | None
    model: str | None
    events: int
    outcome: str
    first_user_text: str | None
    """The first user message's text, on one line and bounded to `FIRST_TEXT_LIMIT`."""
    new_text: str | None = None
    """What this call sent that its base call had not (with format 2, the call before it): the
    first user message among its new messages, else the last of them (a tool result, an answer),
    on one line and bounded; None when it sent nothing new."""


@dataclass(frozen=True)
class RecordingDetails:
    """What `show` prints: the summary, the header metadata, every whole call and every problem."""

    summary: RecordingSummary
    header: dict[str, Any] | None
    calls: tuple[CallRow, ...]
    problems: tuple[str, ...]
    unfinished_calls: tuple[int, ...] = field(default=())
    cache: PromptCacheReport | None = None
    """The prompt-cache facts of the calls (without prices), when asked for."""

    def to_json(self) -> dict[str, Any]:
        """Stable JSON fields for `show --json`: each call's `cache` facts when they were read."""
        return {**self.json_head(), "calls": list(self.calls_json())}

    def json_head(self) -> dict[str, Any]:
        """`to_json` with its `calls` empty (`calls_json` gives them one at a time)."""
        return {
            **self.summary.to_json(),
            "header": self.header,
            "calls": [],
            "problems": list(self.problems),
            "unfinished_calls": list(self.unfinished_calls),
        }

    def calls_json(self) -> Iterator[dict[str, Any]]:
        """Each call's JSON in `to_json`, built as it is asked for."""
        facts = {} if self.cache is None else {c.call_index: c for c in self.cache.calls}
        for row in self.calls:
            fact = facts.get(row.call_index)
            cache = None if fact is None else fact.to_json()
            if cache is not None:
                del cache["call_index"], cache["added_cost_usd"]
            yield {**asdict(row), **({"cache": cache} if self.cache else {})}


def _string(values: dict[str, Any], key: str) -> str | None:
    value = values.get(key)
    return value if isinstance(value, str) else None


FirstUser = tuple[int, str | None] | None
"""Where a request's first user message is and its text (None: it has no user message)."""


def _text_of(message: dict[str, Any]) -> str | None:
    """A message's text on one line (its text blocks joined), or None when it has none."""
    content = message.get("content")
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict)]
        content = " ".join(part for part in parts if isinstance(part, str))
    return one_line(content, FIRST_TEXT_LIMIT) if isinstance(content, str) else None


def _first_user(messages: Any, offset: int = 0) -> FirstUser:
    for position, message in enumerate(messages if isinstance(messages, list) else ()):
        if isinstance(message, dict) and message.get("role") == "user":
            return offset + position, _text_of(message)
    return None


def _new_text(call: RecordedCall) -> str | None:
    """`CallRow.new_text`, from the messages the call's stored row holds (its new ones)."""
    own = call.stored.context.get("messages")
    if not isinstance(own, list) or not own:
        return None
    user = _first_user(own)
    if user is not None:
        return user[1]
    last = own[-1]
    return _text_of(last) if isinstance(last, dict) else None


def _first_user_of(call: RecordedCall, found: dict[int, FirstUser]) -> FirstUser:
    """The first user message of `call`'s full request, read from its stored row: a call that
    keeps the first `keep` messages of its base has its base's first user message when that is
    among them (`found` holds the earlier calls'), else the first among its own."""
    stored = call.stored
    own = stored.context.get("messages")
    if stored.base is None:
        return _first_user(own)
    if stored.base not in found or not isinstance(own, list):
        return _first_user(call.request.context.get("messages"))
    keep = stored.keep or 0
    prior = found[stored.base]
    if prior is not None and prior[0] < keep:
        return prior
    return _first_user(own, keep)


class CallDescriber:
    """`CallRow`s of calls handed over one by one (in any order: a call whose base is not yet
    described reads its first user message from its rebuilt request), kept, not the calls."""

    def __init__(self) -> None:
        self._found: dict[int, FirstUser] = {}
        self._rows: dict[int, CallRow] = {}

    def __call__(self, call: RecordedCall) -> None:
        first = self._found[call.call_index] = _first_user_of(call, self._found)
        model = call.model
        self._rows[call.call_index] = CallRow(
            call_index=call.call_index,
            api=_string(model, "api"),
            provider=_string(model, "provider"),
            model=_string(model, "id"),
            events=len(call.events),
            outcome=call.outcome,
            first_user_text=first[1] if first is not None else None,
            new_text=_new_text(call),
        )

    def rows(self) -> tuple[CallRow, ...]:
        """The rows described so far, in call order."""
        return tuple(self._rows[index] for index in sorted(self._rows))


def describe_calls(calls: Iterable[RecordedCall]) -> tuple[CallRow, ...]:
    """One row per call: index, api, provider, model id, event count, outcome, first user text
    (each read from what the call's row stores, not from its rebuilt request)."""
    describer = CallDescriber()
    for call in calls:
        describer(call)
    return describer.rows()


def describe_recording(selector: str, *, with_cache: bool = False) -> RecordingDetails:
    """Everything `show` needs about a managed ID or a path, from one scan of the file;
    `with_cache` adds the prompt-cache facts of each call (`show --json`)."""
    location = locate_recording(selector)
    config, _ = configured_mode_and_file()
    describer = CallDescriber()  # each call described as it is read, none kept
    cache_reader = PromptCacheReader() if with_cache else None
    cache_facts: list[CallCache] = []

    def each(call: RecordedCall) -> None:
        describer(call)
        if cache_reader is not None and (fact := cache_reader.read(call, priced=False)):
            cache_facts.append(fact)

    info, scan = scan_location(location, each=each)
    summary = summary_from_scan(location, info, scan, config)
    if isinstance(scan, str):
        return RecordingDetails(summary, None, (), (scan,))
    header = scan.header.model_dump(mode="json") if scan.header else None
    return RecordingDetails(
        summary,
        header,
        describer.rows(),
        tuple(problem.describe() for problem in summary.facts.problems),
        scan.facts.unfinished_calls,
        PromptCacheReport.of(sorted(cache_facts, key=lambda f: f.call_index))
        if with_cache
        else None,
    )
