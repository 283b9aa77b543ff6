"""The app's light and dark themes, and every colour its text is drawn in on what background.

The themes are Textual's own with the text colours that were too faint made readable (WCAG AA,
4.5:1); `tests/tui/test_theme_contrast.py` computes every ratio below from the theme's colours.
Widgets draw coloured text in the `$text-*` variables, never in `$success` or `$accent` (those
are for borders and tints), so a theme can tune the text alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from textual.theme import BUILTIN_THEMES, Theme

DARK_THEME, LIGHT_THEME = "openprogram-dark", "openprogram-light"

THEMES: dict[str, Theme] = {
    DARK_THEME: replace(
        BUILTIN_THEMES["textual-dark"],
        name=DARK_THEME,
        variables={
            "text-error": "#F799AE",
            "text-primary": "#6CB4EE",
            "row-cursor": "#0178D4 40%",
            "row-cursor-blurred": "#0178D4 15%",
        },
    ),
    LIGHT_THEME: replace(
        BUILTIN_THEMES["textual-light"],
        name=LIGHT_THEME,
        background="#F2F2F2",
        surface="#EBEBEB",
        panel="#DCDCDC",
        variables={
            "text-accent": "#7F3F00",
            "text-success": "#17602F",
            "text-warning": "#704700",
            "text-error": "#A01C3C",
            "footer-key-foreground": "#004578",
            # The light theme's primary is a dark blue: a tint of it would darken the row too much.
            "row-cursor": "#0178D4 25%",
            "row-cursor-blurred": "#0178D4 12%",
        },
    ),
}
"""By name: what `ctrl+t` switches between, `--light`/`--dark` pick, and the state file keeps."""


def theme_variable_defaults(theme: Theme) -> dict[str, str]:
    """The app's own variables for a theme that does not set them (one picked in the palette)."""
    return {"row-cursor": f"{theme.primary} 40%", "row-cursor-blurred": f"{theme.primary} 15%"}


TEXT_COLOURS: tuple[str, ...] = (
    "text",
    "text-muted",
    "text-primary",
    "text-accent",
    "text-success",
    "text-warning",
    "text-error",
)
"""Every theme variable the app's text is drawn in (`color:` and `border-title-color:`)."""

BACKDROPS: dict[str, tuple[str, ...]] = {
    "screen": ("background",),
    "list": ("surface",),
    "bar": ("panel",),
    "row cursor": ("surface", "row-cursor"),
    "row cursor, list not focused": ("surface", "row-cursor-blurred"),
    "find match": ("surface", "warning 20%"),
}
"""What text in any of `TEXT_COLOURS` lies on: a theme colour, then the tints laid over it."""

HIGHLIGHTS: dict[str, tuple[str, ...]] = {
    "record badge": ("panel", "error 70%"),
    "replay badge": ("panel", "success 35%"),
    "blocked badge": ("panel", "warning 40%"),
    "problem banner": ("background", "error 20%"),
    "file changed on disk notice": ("background", "warning 25%"),
    "following line": ("background", "primary 20%"),
    "removed characters": ("surface", "error 45%"),
    "added characters": ("surface", "success 45%"),
    "mismatching field": ("surface", "error 60%"),
    "diverging event": ("surface", "error 35%"),
    "rule mark of an absorbed difference": ("panel-lighten-2",),
}
"""Highlighted spans: always `$text` on these."""

FOOTER_COLOURS: tuple[str, ...] = ("footer-key-foreground", "footer-description-foreground")
"""The footer's keys and descriptions, on `$panel` (app.tcss)."""


def start_theme(light: bool = False, dark: bool = False) -> str:
    """The theme to start with: `--light` or `--dark` when given, else the last one switched to
    (`ctrl+t`, the settings screen), else dark; a saved file that cannot be used counts as none."""
    from tui.model.state_dir import read_saved_theme

    if light or dark:
        return LIGHT_THEME if light else DARK_THEME
    return read_saved_theme(THEMES).name or DARK_THEME


def rich_style(variables: Mapping[str, str], style: str) -> str:
    """A Rich style such as `bold $text-error` with its theme variables filled in (for the Rich
    text of tables, options and previews, which Textual's CSS does not reach)."""
    return " ".join(
        variables.get(word[1:], "default") if word.startswith("$") else word
        for word in style.split()
    )
