"""The provider runtime's lifecycle: start once per process, and every caller sees the same result.

States NEW → INITIALIZING → READY | FAILED under one condition variable; concurrent first callers
wait for the one initializer and share its result. A failure is FAILED for good: each caller gets a
fresh `ProviderRuntimeInitializationError` with the same facts. Whatever the failure (even an
exception whose `str()` raises), the state leaves INITIALIZING, so no caller ever waits forever.

What the runtime does when it starts (register the built-ins, apply record/replay) is the
registry's business: `openprogram.providers.api_registry` hands its stages to `ProviderRuntime.start`.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Sequence

from openprogram.errors import OpenProgramError
from openprogram.text import one_line, shorten

MAX_CAUSE_MESSAGE = 500
"""A failure's message is cut to this many characters (it is shown on one line)."""


class RuntimeState(enum.Enum):
    """Where the provider runtime is in its lifecycle."""

    NEW = "new"
    INITIALIZING = "initializing"
    READY = "ready"
    FAILED = "failed"


class ProviderRuntimeInitializationError(OpenProgramError, RuntimeError):
    """The provider runtime could not start; `stage`, `cause_type`, `cause_message` say why."""

    def __init__(self, stage: str, cause_type: str, cause_message: str) -> None:
        self.stage = stage
        self.cause_type = cause_type
        self.cause_message = cause_message
        super().__init__(
            f"provider runtime failed to initialize at stage {stage!r}: {cause_type}: {cause_message}"
        )


Stage = tuple[str, Callable[[], None]]
"""A named step of the start; its name is the `stage` of a failure."""


def describe_cause(exc: BaseException, redact: Callable[[str], str]) -> str:
    """The exception's message, redacted and bounded to one line; never raises."""
    try:
        text = redact(one_line(exc))
    except Exception:  # a broken __str__ must not leave the runtime INITIALIZING
        text = "(the error's message could not be read)"
    return shorten(text, MAX_CAUSE_MESSAGE)


class ProviderRuntime:
    """One process's runtime: its state, the failure that ended it, and the record/replay mode."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.state = RuntimeState.NEW
        self.failure: tuple[str, str, str] | None = None
        self.mode = "off"
        """The record/replay mode the runtime started with: off, record, replay or blocked."""

    def start(self, stages: Sequence[Stage], redact: Callable[[str], str]) -> None:
        """Run `stages` once; later calls return at once, wait for the running start, or re-raise.

        `redact` cleans a failure's message before it is kept (it may come from a vendor module).
        """
        with self.condition:
            while self.state is RuntimeState.INITIALIZING:
                self.condition.wait()
            if self.state is RuntimeState.READY:
                return
            if self.state is RuntimeState.FAILED:
                assert self.failure is not None
                raise ProviderRuntimeInitializationError(*self.failure)
            self.state = RuntimeState.INITIALIZING
        stage = ""
        try:
            for name, run in stages:
                stage = name
                run()
        except BaseException as exc:
            failure = (stage, type(exc).__name__, describe_cause(exc, redact))
            with self.condition:
                self.failure, self.state = failure, RuntimeState.FAILED
                self.condition.notify_all()
            if not isinstance(exc, Exception):
                raise  # KeyboardInterrupt and friends propagate; waiters are already released
            # Not chained: the cause's own message is unredacted and may hold a secret.
            raise ProviderRuntimeInitializationError(*failure) from None
        with self.condition:
            self.state = RuntimeState.READY
            self.condition.notify_all()

    def current_state(self) -> RuntimeState:
        """The state now (under the lock)."""
        with self.condition:
            return self.state
