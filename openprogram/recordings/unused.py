"""Recordings no collected test uses: found after collection, trusted only for a whole suite.

A test uses the recording its marker or fixture points at (`recording_path`), whether or not it
runs, passes or is skipped: what counts is what the collected tests would read. The candidates
are the `*.jsonl` files under the `recordings/` folder beside each collected test module (hidden
partial files left out). The answer is only complete when nothing narrowed the collection: no
paths or node ids on the command line, nothing deselected (`-k`, `-m`, `--lf`, …) and no
collection error; otherwise the check says why it was not made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UNUSED_CACHE_KEY = "openprogram/unused"
"""Where the plugin leaves the last complete answer in pytest's cache (`.pytest_cache/v/…`), for
`openprogram recordings prune --unused`."""


@dataclass(frozen=True)
class UnusedCheck:
    """The recordings no collected test uses, or why the collection was not whole enough to say."""

    unused: tuple[Path, ...] = ()
    narrowed: str | None = None
    """Why the answer would not be complete (then `unused` is empty)."""

    def to_json(self) -> dict[str, Any]:
        return {"unused": [str(path) for path in self.unused], "narrowed": self.narrowed}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UnusedCheck:
        return cls(tuple(Path(p) for p in data.get("unused", ())), data.get("narrowed"))


def find_unused(
    test_files: Iterable[Path], used: Iterable[Path], recordings_dir: str
) -> tuple[Path, ...]:
    """Every `*.jsonl` under `recordings_dir` beside the test files that is not in `used`."""
    taken = {path.resolve() for path in used}
    folders = {path.parent / recordings_dir for path in test_files}
    found = []
    for folder in sorted(folders):
        if not folder.is_dir() or folder.is_symlink():
            continue
        for path in sorted(folder.rglob("*.jsonl")):
            hidden = any(part.startswith(".") for part in path.relative_to(folder).parts)
            if not hidden and path.is_file() and path.resolve() not in taken:
                found.append(path)
    return tuple(found)


def check_unused(
    items: Iterable[Any],
    path_of: Callable[[Any], Path | None],
    recordings_dir: str,
    narrowed: str | None,
) -> UnusedCheck:
    """The check for a collected suite: `path_of(item)` is the recording an item uses, or None."""
    if narrowed is not None:
        return UnusedCheck(narrowed=narrowed)
    items = list(items)
    used = [path for path in map(path_of, items) if path is not None]
    return UnusedCheck(find_unused((item.path for item in items), used, recordings_dir))
