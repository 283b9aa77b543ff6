"""Where the real vendor streams are: `$OPENPROGRAM_REAL_SSE_DIR`, else `../shared/real_sse`.

Third-party data, never copied into the repository. Tests that need it skip without it, naming the
folder, unless `OPENPROGRAM_REAL_SSE_REQUIRED=1` (set by `.ci/run`) makes its absence a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FOLDER = Path(os.environ.get("OPENPROGRAM_REAL_SSE_DIR") or REPO.parent / "shared" / "real_sse")
REQUIRED = os.environ.get("OPENPROGRAM_REAL_SSE_REQUIRED") == "1"


def require_folder() -> Path:
    """The folder; skips the test (or fails it, when required) if it is absent."""
    if not FOLDER.is_dir():
        message = f"the real streams folder {FOLDER} is absent (set OPENPROGRAM_REAL_SSE_DIR)"
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    return FOLDER
