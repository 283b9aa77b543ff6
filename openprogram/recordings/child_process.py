"""Programs we start end with us: a child dies when the process that started it does, even by
`kill -9`, and a signal that ends us is passed on to it first.

Linux's `prctl(PR_SET_PDEATHSIG)` (a documented libc call, reached through `ctypes`) asks the
kernel to send the child a signal when its parent ends: nothing of ours needs to run for it, so it
holds for `kill -9`. It is set in the child between fork and exec (`preexec_fn`); a parent that
ended before that is caught by comparing `getppid()`. Elsewhere nothing is set (best effort). It
reaches the program we started, not programs it starts itself (see docs/design-decisions.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

PR_SET_PDEATHSIG = 1
"""From `<linux/prctl.h>`."""

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""The signals `forwarding_signals` passes on to the running program."""


def die_with_parent(sig: signal.Signals) -> Callable[[], None]:
    """A `preexec_fn` for `subprocess.Popen`: the child receives `sig` when this process ends."""
    if not sys.platform.startswith("linux"):
        return lambda: None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before fork, called after it
    parent = os.getpid()

    def in_child() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent ended before the call above: no signal would come
            os.kill(os.getpid(), sig)

    return in_child


def _terminal_sends_it_too(sig: int) -> bool:
    """True for a SIGINT typed at our terminal: it reached the program already (same foreground
    process group), so passing it on would deliver it twice."""
    if sig != signal.SIGINT:
        return False
    try:
        return os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        return False


class SignalForwarder:
    """The signals caught (`received`) and where they go: the program, once it has started."""

    def __init__(self) -> None:
        self.received: list[signal.Signals] = []
        self._pid: int | None = None

    def catch(self, number: int, _frame: object = None) -> None:
        """The signal handler: note the signal, pass it on to the program if it has started."""
        self.received.append(signal.Signals(number))
        if self._pid is not None:
            self._send(number)

    def to(self, pid: int) -> None:
        """The program started as `pid`: from now on signals go to it, those caught before too."""
        self._pid = pid
        for sig in self.received:
            self._send(sig)

    def _send(self, number: int) -> None:
        if self._pid is not None and not _terminal_sends_it_too(number):
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.kill(self._pid, number)


@contextmanager
def forwarding_signals() -> Iterator[SignalForwarder]:
    """While inside, SIGTERM, SIGINT and SIGHUP sent to this process are caught instead of ending
    it and passed on to the program named with `to` (one caught before it started goes to it as it
    starts), so we can wait for it and keep what it did. Only the main thread can catch signals:
    elsewhere nothing is changed."""
    forwarder = SignalForwarder()
    if threading.current_thread() is not threading.main_thread():
        yield forwarder
        return
    previous = {sig: signal.signal(sig, forwarder.catch) for sig in FORWARDED}
    try:
        yield forwarder
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def wait_handling_signals(child: subprocess.Popen[bytes]) -> int:
    """`child.wait()`, with the signals caught meanwhile handled within a tenth of a second. A
    Python signal handler runs between bytecodes: a signal whose C-level handler ran just before
    a blocking `waitpid` began waits for the program to end on its own (seen in CI: a SIGHUP to
    `record` never passed on, the program waiting for it). Waiting in short steps bounds that."""
    while True:
        try:
            return child.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
