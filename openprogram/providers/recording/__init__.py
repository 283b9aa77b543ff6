"""Record and replay at the provider boundary: one module per part of the job.

- `row_encoding`: the row kinds and the compact encoder (no pydantic); `row_models`: the row
  models (pydantic).
- `errors`: the one problem type (`RecordingProblem`, and `RecordingFileError` raising it), and
  opening a file for reading safely.
- `reader`: the one strict reader; `writer`: `RecordingSink`, lines appended under a lock.
- `redaction`: secrets removed before anything reaches a file.
- `differences`: the walk that finds where two requests differ; `difference_text`: how a
  difference reads (values, paths, kinds) in every message, the CLI and the TUI.
- `recorder`: `RecordingProvider`; `replayer`: `ReplayProvider`; `mismatch`: `ReplayMismatch`
  and the one `MismatchReport` it holds; `stream_faults`: a recorded stream broken as a live one
  breaks (`ReplayProvider(path, fault=…)`).
- `config`, `store`: the next-start configuration and the managed recordings root;
  `activation`: applies that configuration when the provider runtime starts.

This layer imports the provider boundary, never the reverse. The public names below are written
once and load on first use (`openprogram.lazy_names`), so `row_encoding` and `errors` can be imported
without building the pydantic models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openprogram import lazy_names

if TYPE_CHECKING:
    from openprogram.providers.recording.differences import NON_DETERMINISTIC_FIELD_NAMES
    from openprogram.providers.recording.recorder import RecordingProvider
    from openprogram.providers.recording.redaction import SECRET_FIELD_NAMES, remove_secret_values
    from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION
    from openprogram.providers.recording.writer import RecordingWriteError

__all__, __getattr__, __dir__ = lazy_names.lazy_facade(__name__)
"""The public names: the imports above, each loaded from its module the first time it is asked for."""
