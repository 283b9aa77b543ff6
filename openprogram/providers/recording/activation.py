"""Record/replay activation at runtime start: read the configuration once and wrap the registry.

`off` installs nothing; `record` wraps every api (present and future) in a `RecordingProvider`
sharing one sink; `replay` serves every api from one pre-validated `ReplayProvider`. Any failure
installs a fail-closed provider for every api instead: nothing silently goes live.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

from openprogram.errors import OpenProgramError
from openprogram.providers.api_registry import ProviderWrapper, wrap_api_providers
from openprogram.providers.recording.config import (
    REPLAY_ACCEPT_ENV,
    REPLAY_REPORT_ENV,
    REPLAY_RESUME_ENV,
    REPLAY_RULES_ENV,
    ConfigError,
    config_path,
    read_record_replay_config,
)
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.recorder import RecordingProvider
from openprogram.providers.recording.redaction import remove_secret_text
from openprogram.providers.recording.resume import ResumeState, ResumingApi
from openprogram.providers.recording.rules import RulesConfigError, validate_rules
from openprogram.providers.recording.rules_sources import project_rules, rules_from_json
from openprogram.providers.recording.store import (
    RecordingSelectorError,
    check_recording_file,
    ensure_recordings_dir,
    locate_recording,
)
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.replay import ReplayProvider
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    SimpleStreamOptions,
    StreamOptions,
)

logger = logging.getLogger("openprogram.providers")


def replay_reporter(path: str) -> Callable[[dict[str, Any]], None]:
    """Append each report row as one JSON line (0600, whole lines) to `path`."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)

    def report(row: dict[str, Any]) -> None:
        os.write(fd, (json.dumps(row, ensure_ascii=False, default=repr) + "\n").encode("utf-8"))

    return report


class RecordReplayBlockedError(OpenProgramError, RuntimeError):
    """Record/replay was configured but could not start, so every provider call is refused."""

    def __init__(self, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"record/replay is blocked: {cause}. No provider call will go live. "
            "See `openprogram recordings status`, or run `openprogram recordings off`."
        )


class BlockedProvider:
    """A fail-closed provider: no credentials, no network; every stream raises the diagnostic."""

    requires_credentials = False

    def __init__(self, cause: str) -> None:
        self.cause = cause

    async def _refuse(self) -> AsyncIterator[AssistantMessageEvent]:
        raise RecordReplayBlockedError(self.cause)
        yield  # pragma: no cover - makes this an async generator

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Refuse the call."""
        return self._refuse()

    def stream_simple(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        """Refuse the call."""
        return self._refuse()


class ActivationError(OpenProgramError):
    """Why the configured record/replay mode cannot start (becomes the blocked diagnostic)."""


def _start_record(selector: str | None) -> RecordingSink:
    if not selector:
        raise ActivationError("mode is record but no file is configured")
    location = locate_recording(selector)
    if not location.managed:
        raise ActivationError(
            f"record file {location.path} is outside the managed recordings directory"
        )
    ensure_recordings_dir()
    if location.path.exists() or location.path.is_symlink():
        check_recording_file(location, repair_managed=True)
    return RecordingSink(location.path)


def _start_replay(selector: str | None) -> ReplayProvider:
    if not selector:
        raise ActivationError("mode is replay but no file is configured")
    location = locate_recording(selector)
    check_recording_file(location, repair_managed=True)
    report_path = os.environ.get(REPLAY_REPORT_ENV)
    given = os.environ.get(REPLAY_RULES_ENV)
    rules = rules_from_json(given, "the command line's rules") if given else None
    report = replay_reporter(report_path) if report_path else None
    accept_into = os.environ.get(REPLAY_ACCEPT_ENV) or None
    replay = ReplayProvider(location.path, rules=rules, on_report=report, accept_into=accept_into)
    if report is not None:
        report({"type": "rules", "rules": replay.rules.describe()})
    return replay


def _resume_state(replay: ReplayProvider, setting: str) -> ResumeState:
    """Resume mode (`openprogram recordings rerecord`): replay, then live into a new file."""
    try:
        value = json.loads(setting)
        into, from_call = str(value["into"]), value.get("from_call")
    except (ValueError, KeyError, TypeError):
        raise ActivationError(f"{REPLAY_RESUME_ENV} is not usable: {setting!r}") from None
    sink = RecordingSink(into, dict(replay.recording.header.model_extra or {}))
    return ResumeState(replay, sink, from_call if isinstance(from_call, int) else None)


def _wrapper_for(mode: str, selector: str | None) -> ProviderWrapper:
    """Every api's record/replay wrapper for `mode`; the project's rules are read here, once."""
    if mode == "record":
        sink = _start_record(selector)
        rules = validate_rules(project_rules())
        return lambda api, provider: RecordingProvider(provider, sink, rules=rules)
    replay = _start_replay(selector)
    resume = os.environ.get(REPLAY_RESUME_ENV)
    if resume:
        state = _resume_state(replay, resume)
        return lambda api, provider: ResumingApi(state, provider)
    return lambda api, provider: replay


def activate_record_replay() -> str:
    """Apply the configured mode to the registry; returns `off`, `record`, `replay` or `blocked`.

    The mode's wrapper goes at the bottom of the registry's stack, under any wrapper already
    there: a wrapper that forwards its calls reaches the recording, the replay or the refusal.
    """
    try:
        config = read_record_replay_config()
        if config.mode == "off":
            return "off"
        wrap_api_providers(_wrapper_for(config.mode, config.file), innermost=True)
        return config.mode
    except (
        ActivationError,
        ConfigError,
        RecordingFileError,
        RecordingSelectorError,
        RulesConfigError,
        OSError,
    ) as exc:
        cause = remove_secret_text(str(exc))
        if isinstance(exc, ActivationError):
            cause = f"{cause} (configuration {config_path()})"
        logger.error("record/replay blocked: %s", cause)
        blocked = BlockedProvider(cause)
        wrap_api_providers(lambda api, provider: blocked, innermost=True)
        return "blocked"
