"""Record/replay activation at runtime start: read the configuration once and wrap the registry.

`off` installs nothing; `record` wraps every api (present and future) in a `RecordingProvider`
sharing one sink; `replay` serves every api from one pre-validated `ReplayProvider`. Any failure
installs a fail-closed provider for every api instead: nothing silently goes live.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from openprogram.errors import OpenProgramError
from openprogram.providers.api_provider import ApiProvider
from openprogram.providers.api_registry import ProviderWrapper, wrap_api_providers
from openprogram.providers.recording.config import (
    RecordReplayConfig,
    config_path,
    read_record_replay_config,
    state_dir,
)
from openprogram.providers.recording.file_policy import require_usable
from openprogram.providers.recording.recorder import RecordingProvider
from openprogram.providers.recording.redaction import remove_secret_text
from openprogram.providers.recording.rerecord import RerecordingApi, RerecordState
from openprogram.providers.recording.rules import MatchingRules, validate_rules
from openprogram.providers.recording.rules_sources import project_rules
from openprogram.providers.recording.state_files import run_spec_left
from openprogram.providers.recording.store import ensure_recordings_dir, locate_recording
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.replay import ReplayProvider
from openprogram.providers.types import (
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
)

if TYPE_CHECKING:
    from openprogram.providers.recording.check_protocol import ChildRunSpec, RerecordSpec

logger = logging.getLogger("openprogram.providers")


class RecordReplayBlockedError(OpenProgramError, RuntimeError):
    """Record/replay was configured but could not start, so every provider call is refused."""

    def __init__(self, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"record/replay is blocked: {cause}. No provider call will go live. "
            "See `openprogram recordings status`, or run `openprogram recordings off`."
        )


class BlockedProvider(ApiProvider):
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
        require_usable(location, tighten=True)
    return RecordingSink(location.path)


def _start_replay(
    selector: str | None, spec: ChildRunSpec | None, project: MatchingRules
) -> ReplayProvider:
    if not selector:
        raise ActivationError("mode is replay but no file is configured")
    location = locate_recording(selector)
    require_usable(location, tighten=True)
    if spec is None:
        return ReplayProvider(location.path, project_rules=project)
    from openprogram.providers.recording.check_protocol import RulesRow, report_writer

    report = report_writer(spec.report) if spec.report else None
    replay = ReplayProvider(
        location.path,
        project_rules=project,
        rules=spec.rules,
        on_report=report,
        accept_into=spec.accept_into,
        pace=spec.pace,
        fault=spec.fault,
    )
    if report is not None:
        report(RulesRow(rules=replay.rules.describe()))
    return replay


def _rerecord_state(replay: ReplayProvider, rerecord: RerecordSpec) -> RerecordState:
    """Rerecord (`openprogram recordings rerecord`): replay, then live into a new file."""
    sink = RecordingSink(rerecord.into, dict(replay.recording.header.model_extra or {}))
    return RerecordState(replay, sink, rerecord.from_call)


def _wrapper_for(mode: str, selector: str | None, spec: ChildRunSpec | None) -> ProviderWrapper:
    """Every api's record/replay wrapper for `mode`; the project's rules are read here, once."""
    if mode == "record":
        sink = _start_record(selector)
        rules = validate_rules(project_rules())
        return lambda api, provider: RecordingProvider(provider, sink, rules=rules)
    replay = _start_replay(selector, spec, project_rules())
    if spec is not None and spec.rerecord is not None:
        state = _rerecord_state(replay, spec.rerecord)
        return lambda api, provider: RerecordingApi(state, provider)
    return lambda api, provider: replay


def _run_spec() -> ChildRunSpec | None:
    """The run spec a check's parent left in the state directory; None when there is none,
    without importing the check's protocol (a replay that is not a check's child does not need
    its report rows and mismatch types: a third of the open's imports)."""
    home = state_dir()
    if not run_spec_left(home):
        return None
    from openprogram.providers.recording.check_protocol import read_run_spec

    return read_run_spec(home)


def activate_record_replay() -> str:
    """Apply the configured mode to the registry; returns `off`, `record`, `replay` or `blocked`.

    The mode's wrapper goes at the bottom of the registry's stack, under any wrapper already
    there: a wrapper that forwards its calls reaches the recording, the replay or the refusal.
    A check's child runs from the run spec its parent wrote (`check_protocol`), never from the
    user's configuration.
    """
    try:
        spec = _run_spec()
        config = (
            RecordReplayConfig(mode=spec.mode, file=spec.recording)
            if spec is not None
            else read_record_replay_config()
        )
        if config.mode == "off":
            return "off"
        wrap_api_providers(_wrapper_for(config.mode, config.file, spec), innermost=True)
        return config.mode
    except (OpenProgramError, OSError) as exc:  # any failure blocks: nothing goes live
        cause = remove_secret_text(str(exc))
        if isinstance(exc, ActivationError):
            cause = f"{cause} (configuration {config_path()})"
        logger.error("record/replay blocked: %s", cause)
        blocked = BlockedProvider(cause)
        wrap_api_providers(lambda api, provider: blocked, innermost=True)
        return "blocked"
