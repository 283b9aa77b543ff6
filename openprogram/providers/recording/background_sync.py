"""The `fsync` after a recorded call, done by a helper process so the caller does not wait for the disk.

On ext4 an `fsync` that grows a file waits for a journal commit (0.2–1 ms on a shared disk, more
than everything else the recorder does per call). The sink asks for it once a call's rows are
written and waits for it before it writes the *next* call's `call_end`, so at any moment at most
one finished call is not yet on disk, and only for the time of one `fsync`. Rows are written (in
the kernel) before the call's last event is delivered, so a crash of the process loses nothing;
only a crash of the machine can lose that last finished call, and the file then ends at a row
boundary or inside the last call, which the strict reader names, as before.

Why a process and not a thread: a helper thread needs the GIL to begin its `fsync`, and a caller
running Python code (events streamed with no I/O between them) holds it until it next blocks, so
the `fsync` only began when the next call waited for it (measured: 0.55 ms after it was asked for,
the whole of the next call). The helper, `python -I -S` with a loop of `read`/`fsync`/`write` over
two pipes and nothing but the recording's descriptor, begins at once. When it cannot be started
or dies, the sink falls back to calling `fsync` itself, so durability never depends on it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import weakref

HELPER = """\
import os, sys
fd, request, done = (int(arg) for arg in sys.argv[1:])
while os.read(request, 1):
    try:
        os.fsync(fd)
    except OSError as exc:
        os.write(done, bytes([exc.errno if 0 < exc.errno < 256 else 5]))
    else:
        os.write(done, b"\\0")
"""
"""The helper's whole program: one `fsync(fd)` per byte read, answered with 0 or the errno."""


class _Helper:
    """A running helper process for one descriptor, and our ends of its two pipes."""

    def __init__(self, fd: int) -> None:
        if not sys.executable:
            raise OSError("no Python executable to start the fsync helper with")
        request_read, self.request = os.pipe()
        done_write = -1
        try:
            self.done, done_write = os.pipe()
            descriptors = (fd, request_read, done_write)
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", HELPER, *map(str, descriptors)],
                pass_fds=descriptors,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # no Ctrl-C of the terminal; it ends when we close
            )
        except BaseException:
            self._close_pipes()
            raise
        finally:
            os.close(request_read)
            if done_write >= 0:
                os.close(done_write)
        self.fd = fd
        # A sink dropped without `close()` must not leave its helper waiting: closing our pipe
        # ends is what tells it to exit.
        self._stop = weakref.finalize(self, _stop_helper, self.request, self.done, self.process)

    def _close_pipes(self) -> None:
        for end in (getattr(self, "request", -1), getattr(self, "done", -1)):
            if end >= 0:
                with contextlib.suppress(OSError):
                    os.close(end)

    def stop(self) -> None:
        """Close the pipes (the helper's `read` returns nothing and it exits) and reap it."""
        self._stop()


def _stop_helper(request: int, done: int, process: subprocess.Popen[bytes]) -> None:
    for end in (request, done):
        with contextlib.suppress(OSError):
            os.close(end)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class BackgroundSync:
    """At most one `fsync` of a file in flight; `wait()` blocks until it is done.

    Not thread-safe on its own: the sink calls it under its lock. After `fork` a child never uses
    its parent's helper (it starts its own) and never waits for the parent's `fsync`.
    """

    def __init__(self) -> None:
        self._helper: _Helper | None = None
        self._pid = os.getpid()
        self._pending = False
        self._unavailable = False
        """True once the helper could not be started: `fsync` is then done in the caller."""
        self._synced_in_place = False
        """The first `fsync` is done in the caller: a recording of one call starts no helper."""

    def start(self, fd: int) -> None:
        """Have `fsync(fd)` done now, in the helper; call `wait()` first if one may be running."""
        if self._pid != os.getpid():  # a forked child: the helper and its pipes are the parent's
            self._helper, self._pid, self._pending = None, os.getpid(), False
        if not self._synced_in_place:
            self._synced_in_place = True
            os.fsync(fd)
            return
        helper = self._running_helper(fd)
        if helper is not None:
            try:
                os.write(helper.request, b"s")
            except OSError:  # it died: do without it from now on
                self._drop_helper()
            else:
                self._pending = True
                return
        os.fsync(fd)

    def _running_helper(self, fd: int) -> _Helper | None:
        if self._helper is not None and self._helper.fd != fd:
            self._drop_helper()
        if self._helper is None and not self._unavailable:
            try:
                self._helper = _Helper(fd)
            except (OSError, ValueError, subprocess.SubprocessError):
                self._unavailable = True
        return self._helper

    def _drop_helper(self) -> None:
        helper, self._helper = self._helper, None
        if helper is not None:
            helper.stop()
        self._unavailable = True

    def wait(self) -> None:
        """Block until the last `fsync` asked for is done; raises its `OSError`, once."""
        if not self._pending or self._pid != os.getpid():
            return
        self._pending = False
        helper = self._helper
        assert helper is not None
        try:
            answer = os.read(helper.done, 1)
        except OSError:
            answer = b""
        if answer == b"":  # it died before answering: sync ourselves, it may not have
            self._drop_helper()
            os.fsync(helper.fd)
        elif answer != b"\0":
            raise OSError(answer[0], os.strerror(answer[0]))

    def close(self) -> None:
        """Wait for the last `fsync` (raising its error) and stop the helper."""
        try:
            self.wait()
        finally:
            if self._helper is not None and self._pid == os.getpid():
                self._helper.stop()
            self._helper = None
