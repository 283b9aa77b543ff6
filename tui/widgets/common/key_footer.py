"""The footer: Textual's, showing the keys that fit, rebuilt only when those keys change."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ALWAYS_SHOWN = frozenset({"help", "settings", "quit-first-screen", "back"})
"""Binding ids the footer never drops for width: the ways to help, settings and out."""


def key_width(key_display: str, description: str) -> int:
    """Columns one compact footer key takes: `? Help` and the gap after it."""
    return len(key_display) + 1 + len(description) + 1


def keys_that_fit(
    keys: Iterable[tuple[Binding, str]], width: int
) -> tuple[tuple[Binding, str], ...]:
    """The `(binding, key display)` pairs to show in `width` columns, in their order.

    Keys are dropped from the last declared backwards (a screen lists its keys by importance,
    and its keys come before the app's), never one in `ALWAYS_SHOWN`.
    """
    shown = list(keys)
    total = sum(key_width(display, binding.description) for binding, display in shown)
    for binding, display in reversed(shown[:]):
        if total <= width:
            break
        if binding.id not in ALWAYS_SHOWN:
            shown.remove((binding, display))
            total -= key_width(display, binding.description)
    return tuple(shown)


class KeyFooter(Footer):
    """Textual's `Footer` in the width it has: low-priority keys go when they would not fit.

    The command palette key stays on the right, and the keys in `ALWAYS_SHOWN` stay too; the
    rest go from the last declared backwards (all of them are in the help screen, `?`).

    It rebuilds itself only when a key it shows changes: Textual's footer recomposes (mounting a
    widget per key: 15–45 ms on a 2-core machine) every time the focus moves or a screen opens or
    closes, even when no key it shows changes, as when the focus moves from the call list to the
    event list. While `hold` is on (a prompt lies over the footer) it does not rebuild at all;
    `release` catches up.
    """

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._keys_shown: Hashable = None
        """What the last composition showed (None: not composed yet)."""
        self._held = False

    def hold(self) -> None:
        """Stop rebuilding (something covers the footer) until `release`."""
        self._held = True

    def release(self) -> None:
        """Rebuild again, at once if the keys changed meanwhile."""
        if self._held:
            self._held = False
            self.call_after_refresh(self.recompose)

    def _room_for_keys(self) -> int:
        """Columns left for the keys once the command palette key (docked right) has its own."""
        width = self.size.width or self.app.size.width
        app = self.app
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            entry = self.screen.active_bindings.get(app.COMMAND_PALETTE_BINDING)
            if entry is not None:
                binding = entry[1]
                width -= key_width(app.get_key_display(binding), binding.description) + 1
        return width

    def _fitting_keys(self) -> tuple[tuple[Binding, str], ...]:
        """The keys shown, one per action as Textual's footer shows them, that fit the width."""
        app = self.app
        by_action: dict[str, tuple[Binding, str]] = {}
        for _node, binding, _enabled, _tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in by_action:
                by_action[binding.action] = (binding, app.get_key_display(binding))
        return keys_that_fit(by_action.values(), self._room_for_keys())

    def _keys_to_show(self) -> Hashable:
        """Everything `Footer.compose` reads from the bindings, as one comparable value."""
        if not self._bindings_ready:
            return None
        app = self.app
        return (
            self.show_command_palette and app.ENABLE_COMMAND_PALETTE,
            tuple(binding.action for binding, _ in self._fitting_keys()),
            tuple(
                (
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    binding.show,
                    binding.group,
                    binding.tooltip,
                    enabled,
                    tooltip,
                )
                for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
                if binding.show or key == app.COMMAND_PALETTE_BINDING
            ),
        )

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        fitting = {binding.action for binding, _ in self._fitting_keys()}
        for widget in super().compose():
            ordinary_key = isinstance(widget, FooterKey) and not widget.has_class(
                "-command-palette"
            )
            if not ordinary_key or cast(FooterKey, widget).action in fitting:
                yield widget

    def on_resize(self, event: events.Resize) -> None:
        if self._keys_to_show() != self._keys_shown:
            self.call_after_refresh(self.recompose)

    async def recompose(self) -> None:
        if not self.is_attached or self._pruning or self._held:
            return  # not attached: as Textual's own recompose does (the screen may be closing)
        keys = self._keys_to_show()
        if keys is not None and keys == self._keys_shown:
            return
        self._keys_shown = keys
        await super().recompose()
