"""The command palette's own entries: settings, recordings, help, go to, theme."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

ENTRIES: tuple[tuple[str, str, str], ...] = (
    (
        "Settings: record / replay mode",
        "settings",
        "Choose off, record or replay for the next start",
    ),
    ("Recordings: list managed recordings", "recordings", "Open the list of managed recordings"),
    ("Go to call or event", "goto", "Jump to a call (12) or an event (12.40)"),
    ("Help: keys", "help", "Every key that works on this screen"),
    ("Toggle light / dark theme", "toggle_dark", "Switch between the light and the dark theme"),
)


class TuiCommands(Provider):
    """openprogram-tui's actions in the palette (ctrl+p)."""

    def _runner(self, action: str) -> Callable[[], object]:
        return partial(self.app.run_action, action)

    async def discover(self) -> Hits:
        for name, action, help_text in ENTRIES:
            yield DiscoveryHit(name, self._runner(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in ENTRIES:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._runner(action), help=help_text)
