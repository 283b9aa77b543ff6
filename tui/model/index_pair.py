"""Two recordings indexed side by side, each by its own thread: what the diff view reads first.

Light on purpose (the line index only: no row models, no rules), so the diff screen can list the
calls both files have while the comparison's modules are still being imported. `LazyDiff`
compares the calls of a pair. Never imports Textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from tui.model.recording_index import RecordingIndex

Side = Literal["a", "b"]
FIRST_ROWS_INTERVAL = 0.02
"""How often (seconds) an index tells its progress: the first rows wait for it."""
FIRST_SCREEN_CALLS = 100
"""Calls an index finds before it waits for `resume`, unless told otherwise: a screenful."""


class IndexPair:
    """The line indexes of recordings `a` and `b` (raises `RecordingFileError` for a file that
    cannot be opened); `start` builds both in threads."""

    def __init__(self, a: Path, b: Path) -> None:
        first = RecordingIndex.open(a)
        try:
            second = RecordingIndex.open(b)
        except BaseException:
            first.close()
            raise
        self.indexes: dict[Side, RecordingIndex] = {"a": first, "b": second}
        self._changed = threading.Condition()
        self._resumed = threading.Event()
        self._threads: list[threading.Thread] = []
        self._errors: list[BaseException] = []
        self._ended = 0

    def start(
        self, progress: Callable[[], None] | None = None, first_screen: int = FIRST_SCREEN_CALLS
    ) -> None:
        """Index both files, one thread each; `progress()` is called (from those threads) as calls
        are found. Each waits after `first_screen` calls until `resume()`: the first screen is
        drawn and the first call compared without two threads reading big files beside them.
        A second call does nothing."""
        if self._threads:
            return

        def build(index: RecordingIndex) -> None:
            def told(told_by: RecordingIndex) -> None:
                self._notify()
                if progress is not None:
                    progress()
                if told_by.published_calls >= first_screen:
                    self._resumed.wait()

            try:
                index.build(told, FIRST_ROWS_INTERVAL)
            except BaseException as exc:
                self._errors.append(exc)
            finally:
                self._ended += 1
                self._notify()
                if progress is not None:
                    progress()

        self._threads = [
            threading.Thread(target=build, args=(index,), daemon=True)
            for index in self.indexes.values()
        ]
        for thread in self._threads:
            thread.start()

    def resume(self) -> None:
        """Let both indexes go on past their first screen of calls."""
        self._resumed.set()

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def published(self, side: Side) -> int:
        """Calls of one side a reader may look at by now."""
        index = self.indexes[side]
        return len(index.calls) if index.complete else index.published_calls

    @property
    def common_calls(self) -> int:
        """Calls both sides have by now (the rows that can be compared by index)."""
        return min(self.published("a"), self.published("b"))

    @property
    def indexed(self) -> bool:
        """True once both threads have ended (`join` then says whether they failed)."""
        return bool(self._threads) and not any(thread.is_alive() for thread in self._threads)

    @property
    def ended(self) -> bool:
        """True once a thread has ended (its file indexed, or failed)."""
        return self._ended > 0

    def wait(self, timeout: float) -> None:
        """Until an index tells progress or ends, at most `timeout` seconds."""
        with self._changed:
            self._changed.wait(timeout)

    def join(self) -> None:
        """Wait for both threads; raise what stopped one of them."""
        for thread in self._threads:
            thread.join()
        if self._errors:
            raise self._errors[0]

    def failure(self) -> BaseException | None:
        """What stopped an index thread so far, if anything."""
        return self._errors[0] if self._errors else None

    def truncation_warnings(self) -> list[str]:
        """One line per file whose last line has no newline (`recordings diff` refuses those; the
        view compares what is there): `⚠ B b.jsonl: line 7: last line is truncated, …`."""
        from openprogram.providers.recording.errors import TRUNCATED_LAST_LINE_REASON
        from openprogram.visible_text import visible_line

        return [
            f"⚠ {side.upper()} {visible_line(index.path.name)}: line {index.line_count}: "
            f"{TRUNCATED_LAST_LINE_REASON}, compared without it"
            for side, index in self.indexes.items()
            if index.truncated_tail
        ]

    def close(self) -> None:
        """Release both files (builds still running stop)."""
        self._resumed.set()
        for index in self.indexes.values():
            index.close()
