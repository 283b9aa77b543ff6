"""The footer: Textual's, rebuilt only when the keys it shows change and it is not covered."""

from __future__ import annotations

from collections.abc import Hashable

from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual's `Footer`, which rebuilds itself only when a key it shows changes.

    Textual's footer recomposes (mounting a widget per key: 15–45 ms on a 2-core machine) every
    time the focus moves or a screen opens or closes, even when no key it shows changes, as when
    the focus moves from the call list to the event list. While `hold` is on (a prompt lies over
    the footer) it does not rebuild at all; `release` catches up.
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

    def _keys_to_show(self) -> Hashable:
        """Everything `Footer.compose` reads from the bindings, as one comparable value."""
        if not self._bindings_ready:
            return None
        app = self.app
        return (
            self.show_command_palette and app.ENABLE_COMMAND_PALETTE,
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

    async def recompose(self) -> None:
        if not self.is_attached or self._pruning or self._held:
            return  # not attached: as Textual's own recompose does (the screen may be closing)
        keys = self._keys_to_show()
        if keys is not None and keys == self._keys_shown:
            return
        self._keys_shown = keys
        await super().recompose()
