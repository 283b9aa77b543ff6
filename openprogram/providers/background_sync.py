"""The `fsync` after a recorded call, run in a helper thread so the caller does not wait for the disk.

On ext4 an `fsync` that grows a file waits for a journal commit (0.2–1 ms on a shared disk, more
than everything else the recorder does per call). The sink starts it once a call's rows are
written and waits for it before it writes the *next* call's `call_end`, so at any moment at most
one finished call is not yet on disk, and only for the time of one `fsync`. Rows are written (in
the kernel) before the call's last event is delivered, so a crash of the process loses nothing;
only a crash of the machine can lose that last finished call, and the file then ends at a row
boundary or inside the last call, which the strict reader names, as before.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor


class BackgroundSync:
    """At most one `fsync` of a file in flight; `wait()` blocks until it is done.

    Not thread-safe on its own: the sink calls it under its lock. Safe across `fork`: a child
    starts its own helper thread and does not wait for its parent's.
    """

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._pid = 0
        self._pending: Future[None] | None = None

    def start(self, fd: int) -> None:
        """Start `fsync(fd)` in the helper thread; call `wait()` first if one may be running."""
        if self._executor is None or self._pid != os.getpid():
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="openprogram-fsync")
            self._pid = os.getpid()
        self._pending = self._executor.submit(os.fsync, fd)

    def wait(self) -> None:
        """Block until the last `fsync` started is done; raises its `OSError`, once."""
        pending, self._pending = self._pending, None
        if pending is not None and self._pid == os.getpid():
            pending.result()

    def close(self) -> None:
        """Wait for the last `fsync` (raising its error) and stop the helper thread."""
        executor, self._executor = self._executor, None
        try:
            self.wait()
        finally:
            if executor is not None and self._pid == os.getpid():
                executor.shutdown(wait=True)
