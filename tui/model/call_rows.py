"""The call table: one row per call (`#1  openai/gpt-4o-mini  143 ev  complete`), parsed on demand,
and the title of the file it lists.

A row needs the call's request (for the model) and its `call_end` (for the outcome); both are read
as plain JSON (`line_preview`) when the row is first shown, never for calls nobody looks at, and
kept in a bounded memo (`RecentlyUsed`). One judge decides what is damaged and why: the strict reader, whose
verdict marks the rows it names.

A recording of another format: a version-1 file's rows are full format-2 rows without times, so
the index shows its calls as they are; the strict reader refuses it (another version), so it is
not checked, and nothing that writes (a check, accept) is offered. `openprogram recordings migrate`
converts it. A newer (or unknown) format is listed as indexed and not checked either: a file this
openprogram cannot read, not a damaged one. The title and the banner say which.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openprogram.providers.recording.row_encoding import CALL_OUTCOMES, RECORDING_FORMAT_VERSION
from openprogram.recently_used import RecentlyUsed
from openprogram.text import plural, shorten
from openprogram.visible_text import visible_line
from tui.model.line_preview import int_field, peek_row, str_field
from tui.model.recording_index import CallSpan, RecordingIndex

OLDER_FORMAT = 1
"""The format `openprogram recordings migrate` reads (`migrate.MIGRATES_FROM`)."""


def is_older_format(format_version: object) -> bool:
    """True for a version-1 file (the integer 1, not `true` or `1.0`)."""
    return type(format_version) is int and format_version == OLDER_FORMAT


def unread_format(format_version: int | None) -> str | None:
    """`newer` or `unknown` for a stated format this openprogram does not read (None for its
    own, for none stated, and for the older one, which it migrates)."""
    if format_version is None or format_version == RECORDING_FORMAT_VERSION:
        return None
    if is_older_format(format_version):
        return None
    return "newer" if format_version > RECORDING_FORMAT_VERSION else "unknown"


def format_headline(format_version: int | None) -> str | None:
    """The banner's line over the reader's problem for a file of another format (None for a
    file of this format): what it is, and that it is not checked, as the title says."""
    if is_older_format(format_version):
        return migration_offer()
    kind = unread_format(format_version)
    if kind is None:
        return None
    reads = f"this openprogram reads format {RECORDING_FORMAT_VERSION}"
    return f"Format {format_version}, a {kind} format: not checked ({reads})."


def migration_offer() -> str:
    """The banner's line: what the file is and the key that migrates it (the reader's problem
    under it names the command for this file, so it is not said twice)."""
    return (
        f"Format {OLDER_FORMAT}, an older format: shown read-only (not checked, r is off). "
        f"m migrates it to format {RECORDING_FORMAT_VERSION} and keeps the old file."
    )


def migrate_file(path: Path) -> str:
    """Migrate `path` (the library's `migrate_recording`); the notification that says so."""
    from openprogram.recordings.migrate import migrate_recording

    report = migrate_recording(str(path))
    kept = f"; the old file is kept: {report.kept}" if report.kept else ""
    return f"Migrated to format {report.to_version}{kept}"


if TYPE_CHECKING:
    from tui.model.verdict import Verdict

PENDING = "…"
"""The outcome shown while the index has not reached the call's end yet."""
IN_PROGRESS = "in progress"
"""The outcome of a call without `call_end` in a file being followed (its writer is at it)."""
UNFINISHED = "unfinished"
DAMAGED = "damaged"
BAD_OUTCOMES = frozenset({"error", "cancelled", "abandoned", UNFINISHED, DAMAGED})


@dataclass(frozen=True)
class CallSummary:
    """What the call list shows for one call."""

    ordinal: int
    call_index: int
    provider: str | None
    model: str | None
    event_count: int
    outcome: str
    """`complete`, `error`, `cancelled`, `abandoned`, `unfinished`, `damaged`, `in progress`
    (followed), or `…` (indexing)."""
    error: str | None
    """The recorded error, or why the call's rows cannot be read."""

    @property
    def model_label(self) -> str:
        """`provider/model`, or `?` for parts that could not be read."""
        return visible_line(f"{self.provider or '?'}/{self.model or '?'}")

    def model_within(self, width: int) -> str:
        """`model_label` where it fits in `width`, else the model's own name (the provider is
        the part a reader can spare), cut only if even that does not fit."""
        label = self.model_label
        if len(label) <= width or self.model is None:
            return shorten(label, width)
        return shorten(visible_line(self.model), width)

    @property
    def failed(self) -> bool:
        """True for any outcome other than `complete` (and not still indexing)."""
        return self.outcome in BAD_OUTCOMES

    def text(self, index_width: int = 1) -> str:
        """The row as plain text: `#1  openai/gpt-4o-mini  143 ev  complete`."""
        number = f"#{self.call_index}".ljust(index_width + 1)
        return f"{number}  {self.model_label}  {self.event_count} ev  {self.outcome}"


@dataclass(frozen=True)
class RowFacts:
    """What a call's request and `call_end` rows say, or why they cannot be read."""

    call_index: int | None = None
    model: dict[str, Any] = field(default_factory=dict)
    request_problem: str | None = None
    outcome: str | None = None
    """The recorded outcome; None when there is no `call_end` (or it cannot be read)."""
    error: str | None = None
    end_problem: str | None = None


def read_facts(
    index: RecordingIndex, span: CallSpan, models: dict[int, dict[str, Any]] | None = None
) -> RowFacts:
    """The row facts read as plain JSON (`line_preview`): what the list shows, judged by no one.
    `models` remembers each call's model once found, so a reference is followed once per call."""
    request = peek_row(index.line(span.request_line))
    if request is None or request["type"] != "request":
        problem = f"line {span.request_line + 1}: request row cannot be read"
        return RowFacts(request_problem=problem, **_end_facts(index, span))
    return RowFacts(
        call_index=int_field(request, "call_index"),
        model=_model(index, span.ordinal, request, {} if models is None else models),
        **_end_facts(index, span),
    )


def _model(
    index: RecordingIndex, ordinal: int, request: dict[str, Any], models: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    """The model of call `ordinal`: its row's, or its base's (a format-2 reference)."""
    walked = [ordinal]
    row: dict[str, Any] | None = request
    model: Any = None
    while row is not None and (model := row.get("model")) is None:
        base = int_field(row, "base")
        if base is None or base >= walked[-1]:
            break
        if base in models:
            model = models[base]
            break
        walked.append(base)
        row = peek_row(index.line(index.calls[base].request_line))
    found = model if isinstance(model, dict) else {}
    for n in walked:
        models[n] = found
    return found


def _end_facts(index: RecordingIndex, span: CallSpan) -> dict[str, Any]:
    if span.end_line is None:
        return {}
    end = peek_row(index.line(span.end_line))
    outcome = str_field(end, "outcome") if end is not None and end["type"] == "call_end" else None
    if end is None or outcome not in CALL_OUTCOMES:
        return {"end_problem": f"line {span.end_line + 1}: call_end row cannot be read"}
    return {"outcome": outcome, "error": str_field(end, "error")}


class CallTable:
    """The calls of a `RecordingIndex` as list rows, with the strict verdict's marks once known."""

    def __init__(self, index: RecordingIndex) -> None:
        self.index = index
        self.verdict: Verdict | None = None
        self.validity_unknown: str | None = None
        """Why no verdict is shown and none is coming (the file changed on disk)."""
        self._damaged: dict[int, str] = {}
        self._problem_lines: dict[int, str] = {}
        self._rows: RecentlyUsed[int, CallSummary] = RecentlyUsed(4096)
        self._models: dict[int, dict[str, Any]] = {}
        """Each call's model once found (a reference followed once per call)."""

    @property
    def count(self) -> int:
        """Calls that may be shown now."""
        return self.index.published_calls

    @property
    def index_width(self) -> int:
        """Digits of the largest call number, for aligned rows."""
        return len(str(max(self.count - 1, 0)))

    def set_verdict(self, verdict: Verdict) -> None:
        """Mark the calls the strict reader found damaged, with its reasons."""
        self.verdict = verdict
        self.validity_unknown = None
        self._damaged, self._problem_lines = {}, {}
        for problem in reversed(verdict.problems):  # the first problem of a call or line wins
            reason = f"line {problem.line_number}: {problem.reason}"
            if problem.call_index is not None:
                self._damaged[problem.call_index] = reason
            if problem.line_number is not None:
                self._problem_lines[problem.line_number] = reason
        self._rows.clear()

    def _strict_problem(self, span: CallSpan, call_index: int) -> str | None:
        """The strict reader's reason why this call is damaged, once its verdict is in."""
        for line in (span.request_line, span.end_line):
            if line is not None and line + 1 in self._problem_lines:
                return self._problem_lines[line + 1]
        return self._damaged.get(call_index)

    def refresh(self) -> None:
        """Forget rows of calls that were still being indexed."""
        self._rows.clear()

    def forget_verdict(self, unknown: str | None = None) -> None:
        """Drop the strict verdict; `unknown` says why validity is unknown (`file was replaced`),
        None that a new check is coming."""
        self.verdict = None
        self.validity_unknown = unknown
        self._damaged, self._problem_lines = {}, {}
        self._rows.clear()

    def following_note(self) -> str:
        """`● following · call 1 in progress · f stops — …`: what a followed file is doing (the
        key before the explanation, which a narrow screen cuts)."""
        open_calls = [span.ordinal for span in self.index.calls if not span.finished]
        note = "● following"
        if open_calls:
            shown = ", ".join(map(str, open_calls[:3])) + ("…" if len(open_calls) > 3 else "")
            note += f" · call {shown} in progress"
        return f"{note} · f stops — new rows appear as they are written"

    def facts(self) -> tuple[str, bool]:
        """`format 1 · 5 calls · 115 events · ✓ valid`, and whether it reports a problem.

        Once the strict verdict is in, its totals and word (the library's, as `recordings list`
        and `show` print them); until then (or when the check stopped) the index's count of the
        same rows, and why validity is not known.
        """
        verdict = self.verdict
        index = self.index
        if verdict is not None and is_older_format(verdict.facts.format_version):
            return f"{self._index_facts()} · read-only: older format (m migrates it)", False
        kind = unread_format(verdict.facts.format_version) if verdict is not None else None
        if kind is not None:
            # The strict reader stops at the header (0 calls); the list shows the index's rows.
            reads = f"this openprogram reads {RECORDING_FORMAT_VERSION}"
            return f"{self._index_facts()} · ✗ {kind} format ({reads}): not checked", True
        if verdict is None or verdict.stopped is not None:
            text = self._index_facts()
            if verdict is not None:
                return f"{text} · check stopped: {verdict.stopped}", False
            if self.validity_unknown is not None:
                return f"{text} · validity unknown ({self.validity_unknown})", False
            return f"{text} · {'checking…' if not index.growing else 'unchecked'}", False
        from openprogram.providers.recording.scan_facts import INVALID, VALID  # loaded by now

        facts = verdict.facts
        version = "?" if facts.format_version is None else facts.format_version
        if verdict.following:  # the live count (the check lags behind a growing file)
            index = self.index
            events = sum(span.event_count for span in index.calls)
            totals = f"{plural(len(index.calls), 'call')} · {plural(events, 'event')}"
        else:
            totals = facts.totals(" · ")
        text = f"format {version} · {totals}"
        if verdict.valid:
            return f"{text} · ✓ {VALID}{' so far' if verdict.following else ''}", False
        return f"{text} · ✗ {INVALID} ({plural(verdict.problem_count, 'problem')})", True

    def _index_facts(self) -> str:
        """`format 1 · 5 calls · 115 events`, as the index counts the rows (the list's count)."""
        index = self.index
        events = sum(span.event_count for span in index.calls)
        version = "?" if index.format_version is None else index.format_version
        return f"format {version} · {plural(len(index.calls), 'call')} · {plural(events, 'event')}"

    def ordinal_of(self, call_index: int) -> int | None:
        """The position of the call whose request says `call_index` (they agree in valid files)."""
        if not 0 <= call_index < self.count:
            return None
        if self.summary(call_index).call_index == call_index:
            return call_index
        found = (n for n in range(self.count) if self.summary(n).call_index == call_index)
        return next(found, None)

    def summary(self, ordinal: int) -> CallSummary:
        """The row of call `ordinal` (its position in the file)."""
        cached = self._rows.get(ordinal)
        if cached is not None:
            return cached
        span = self.index.calls[ordinal]
        facts = read_facts(self.index, span, self._models)
        call_index = ordinal if facts.call_index is None else facts.call_index
        error = facts.request_problem or facts.end_problem or facts.error
        outcome: str
        if facts.outcome is not None:
            outcome = facts.outcome
        elif facts.end_problem is not None:
            outcome = DAMAGED
        elif self.index.growing:
            outcome = IN_PROGRESS
        else:
            outcome = UNFINISHED if self.index.complete else PENDING
        if facts.request_problem:
            outcome = DAMAGED
        unended = outcome in (UNFINISHED, IN_PROGRESS)
        strict = self._strict_problem(span, call_index) if not unended else None
        if strict is not None:
            outcome, error = DAMAGED, strict
        summary = CallSummary(
            ordinal=ordinal,
            call_index=call_index,
            provider=str_field(facts.model, "provider"),
            model=str_field(facts.model, "id"),
            event_count=span.event_count,
            outcome=outcome,
            error=error,
        )
        # A call still being indexed (or written, while followed) may gain events; only settled
        # rows are kept.
        if self.index.settled(span):
            self._rows.put(ordinal, summary)
        return summary
