"""What a call's request and `call_end` rows say, as the call list needs it, whoever reads them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tui.model.recording_index import CallSpan, RecordingIndex


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


FactsReader = Callable[[RecordingIndex, CallSpan], RowFacts]
