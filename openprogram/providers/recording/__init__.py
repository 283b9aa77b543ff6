"""Record and replay at the provider boundary: one module per part of the job.

- `rows`: the row kinds and the compact encoder (no pydantic); `format`: the row models.
- `errors`: `RecordingFileError`, and opening a file for reading safely.
- `reader`: the one strict reader; `writer`: `RecordingSink`, lines appended under a lock.
- `redaction`: secrets removed before anything reaches a file.
- `differences`: the walk that finds where two requests differ; `difference_text`: how a
  difference reads (values, paths, kinds) in every message, the CLI and the TUI.
- `recorder`: `RecordingProvider`; `replayer`: `ReplayProvider`; `mismatch`: `ReplayMismatch`
  and the one `MismatchReport` it holds.
- `config`, `store`: the next-start configuration and the managed recordings root;
  `activation`: applies that configuration when the provider runtime starts.

This layer imports the provider boundary, never the reverse. The public names below load on first
use, so `rows` and `errors` can be imported without building the pydantic models.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openprogram.providers.recording.differences import NON_DETERMINISTIC_FIELD_NAMES
    from openprogram.providers.recording.recorder import RecordingProvider
    from openprogram.providers.recording.redaction import remove_secret_values
    from openprogram.providers.recording.rows import RECORDING_FORMAT_VERSION
    from openprogram.providers.recording.writer import RecordingWriteError

_PUBLIC_NAMES = {
    "NON_DETERMINISTIC_FIELD_NAMES": "differences",
    "RECORDING_FORMAT_VERSION": "rows",
    "RecordingProvider": "recorder",
    "RecordingWriteError": "writer",
    "remove_secret_values": "redaction",
}
"""Each public name and the submodule that defines it."""

__all__ = [
    "NON_DETERMINISTIC_FIELD_NAMES",
    "RECORDING_FORMAT_VERSION",
    "RecordingProvider",
    "RecordingWriteError",
    "remove_secret_values",
]


def __getattr__(name: str) -> object:
    """A public name, imported from its submodule the first time it is asked for."""
    source = _PUBLIC_NAMES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{source}"), name)
    globals()[name] = value
    return value
