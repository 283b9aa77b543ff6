"""openprogram-tui: browse recordings call by call, step through streamed events, switch modes.

The package uses `openprogram`'s modules, never their private (`_`) names; `tui.model` holds
everything that does not need Textual, so it can be tested (and reused) without a terminal.
"""

from __future__ import annotations


def version() -> str:
    """The installed version of openprogram (the TUI ships with it)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("openprogram")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+source"


__all__ = ["version"]
