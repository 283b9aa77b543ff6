"""Every text colour of both themes against what it is drawn on: WCAG AA asks 4.5:1.

The ratios are computed from the themes' own colours (Textual's colour system, the themes'
variables), with the relative luminance formula of WCAG 2; the CSS of the app is scanned so a
text colour or a highlight that is not in `tui.theme`'s tables cannot slip in.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.color import Color

import tui
from tui.theme import BACKDROPS, FOOTER_COLOURS, HIGHLIGHTS, TEXT_COLOURS, THEMES

AA = 4.5
TUI_DIR = Path(tui.__file__).parent
TUI_SOURCES = [*sorted(TUI_DIR.rglob("*.py")), TUI_DIR / "app.tcss"]
NO_TEXT_ON = {"background 50%"}
"""Backgrounds no text lies on: the dimmed screen under a modal dialog."""


def relative_luminance(colour: Color) -> float:
    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(colour.r) + 0.7152 * linear(colour.g) + 0.0722 * linear(colour.b)


def contrast_ratio(a: Color, b: Color) -> float:
    light, dark = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def theme_variables(name: str) -> dict[str, str]:
    theme = THEMES[name]
    return {**theme.to_color_system().generate(), **theme.variables}


def laid_over(variables: dict[str, str], spec: str, under: Color) -> Color:
    """`spec` (`text-muted`, `error 45%`) as it shows over the opaque colour `under`."""
    name, *alpha = spec.split()
    value, *own_alpha = variables[name].split()
    colour = under.get_contrast_text(1.0) if value == "auto" else Color.parse(value)
    for percent in (*own_alpha, *alpha):
        colour = colour.multiply_alpha(float(percent.rstrip("%")) / 100)
    return under + colour


def backdrop(variables: dict[str, str], layers: tuple[str, ...]) -> Color:
    colour = Color.parse(variables[layers[0]])
    for layer in layers[1:]:
        colour = laid_over(variables, layer, colour)
    return colour


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("where", BACKDROPS)
def test_every_text_colour_is_readable_on_every_backdrop(theme: str, where: str) -> None:
    variables = theme_variables(theme)
    under = backdrop(variables, BACKDROPS[where])
    ratios = {
        text: round(contrast_ratio(laid_over(variables, text, under), under), 2)
        for text in TEXT_COLOURS
    }
    assert {text: ratio for text, ratio in ratios.items() if ratio < AA} == {}, (theme, where)


@pytest.mark.parametrize("theme", THEMES)
def test_text_is_readable_on_every_highlight_and_footer_keys_on_the_footer(theme: str) -> None:
    variables = theme_variables(theme)
    pairs = [("text", where, HIGHLIGHTS[where]) for where in HIGHLIGHTS]
    pairs += [(text, "footer", ("panel",)) for text in FOOTER_COLOURS]
    failing = []
    for text, where, layers in pairs:
        under = backdrop(variables, layers)
        ratio = contrast_ratio(laid_over(variables, text, under), under)
        if ratio < AA:
            failing.append(f"{text} on {where}: {ratio:.2f}")
    assert failing == []


def test_the_app_draws_text_only_in_the_colours_and_on_the_backgrounds_checked() -> None:
    text_colours: set[str] = set()
    backgrounds: set[str] = set()
    for path in TUI_SOURCES:
        source = path.read_text(encoding="utf-8")
        text_colours |= set(re.findall(r"(?<![\w-])(?:border-title-)?color:\s*\$([\w-]+)", source))
        # Rich styles of tables, options and previews: `"bold $text-error"`, filled by rich_style.
        text_colours |= set(re.findall(r"[\"'](?:(?:bold|italic) )*\$([a-z][\w-]*)[\"']", source))
        assert not re.findall(
            r"[\"'](?:bold )?(?:red|green|yellow|blue|magenta|cyan)[\"']", source
        ), f"{path}: a Rich colour name is the terminal's colour, not the theme's"
        found = re.findall(r"(?<![\w-])background:\s*\$([\w-]+(?:\s+\d+%)?)", source)
        backgrounds |= {" ".join(value.split()) for value in found}
    assert text_colours and backgrounds, "the scan finds the app's CSS"
    assert text_colours - set(TEXT_COLOURS) == set()
    checked = {layer for layers in (*BACKDROPS.values(), *HIGHLIGHTS.values()) for layer in layers}
    assert backgrounds - checked - NO_TEXT_ON == set()


def test_a_faint_pair_fails() -> None:
    """The measure itself: the old light theme's `complete` (#4EBF71 on #D8D8D8) is 1.6:1."""
    ratio = contrast_ratio(Color.parse("#4EBF71"), Color.parse("#D8D8D8"))
    assert 1.5 < ratio < 1.7
    assert contrast_ratio(Color.parse("#000000"), Color.parse("#FFFFFF")) == pytest.approx(21)
