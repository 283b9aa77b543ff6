"""What the next start will do with record/replay: off, recording into X, replaying Y, or blocked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

if TYPE_CHECKING:
    from openprogram.recordings import RecordReplayStatus


def badge_text(status: RecordReplayStatus | None, demo: bool = False) -> tuple[str, str]:
    """(label, modifier class) for a status; the class picks the colour. In the `demo` the
    label starts with `demo`: the mode is the demo's, not the user's configuration."""
    label, modifier = _mode_label(status)
    return (f"demo {label}" if demo and status is not None else label), modifier


def _mode_label(status: RecordReplayStatus | None) -> tuple[str, str]:
    if status is None:
        return "next start: …", "-unknown"
    if status.config_error is not None:
        return "⚠ config unreadable", "-blocked"
    name = status.file or ""
    if status.path is not None and status.managed:
        name = status.path.stem
    elif status.path is not None:
        name = status.path.name
    if status.would_block:
        return f"⚠ next start blocked: {status.mode} {name}".rstrip(), "-blocked"
    if status.mode == "record":
        return f"● record → {name}", "-record"
    if status.mode == "replay":
        return f"▶ replay {name}", "-replay"
    return "○ off (live)", "-off"


class ModeBadge(Static):
    """The configured record/replay mode, coloured by what it means for the next start."""

    DEFAULT_CSS = """
    ModeBadge {
        width: auto;
        height: 1;
        padding: 0 1;
        text-style: bold;
        &.-unknown, &.-off { color: $text-muted; background: $panel; }
        &.-record { color: $text; background: $error 70%; }
        &.-replay { color: $text; background: $success 35%; }
        &.-blocked { color: $text; background: $warning 40%; }
    }
    """

    status: reactive[RecordReplayStatus | None] = reactive(None)
    """The status from `openprogram.recordings.read_status()`, or None while it is read."""

    def on_mount(self) -> None:
        # The app owns the status; every badge follows it.
        self.watch(self.app, "record_replay_status", self._status_changed)

    def _status_changed(self, status: RecordReplayStatus | None) -> None:
        self.status = status

    def watch_status(self, status: RecordReplayStatus | None) -> None:
        label, modifier = badge_text(status, bool(getattr(self.app, "demo", False)))
        for name in ("-unknown", "-off", "-record", "-replay", "-blocked"):
            self.set_class(name == modifier, name)
        self.update(Text(label))
        reason = status.reason if status is not None else None
        self.tooltip = reason or (status.applies_on_next_start if status else None)
