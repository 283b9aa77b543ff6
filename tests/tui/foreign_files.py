"""Files that are not recordings: another tool's JSON lines, as a user might open by mistake."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tui.conftest import write_private

LOG_ROWS = [
    {"ts": "2026-01-05T09:30:00Z", "level": "info", "msg": "server started", "port": 8080},
    {"ts": "2026-01-05T09:30:01Z", "level": "warn", "msg": "slow request", "ms": 1520},
    {"ts": "2026-01-05T09:30:02Z", "level": "info", "msg": "a long line " + "x" * 300},
]


def write_log_file(path: Path) -> Path:
    """Three JSON log rows, then a line that is not JSON: a private file at `path`."""
    lines = [json.dumps(row) for row in LOG_ROWS] + ["plain text, not JSON"]
    return write_private(path, ("\n".join(lines) + "\n").encode())
