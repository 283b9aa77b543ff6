"""Text from a recording, made safe to show on a terminal: nothing in it is ever interpreted.

A recording is untrusted input (teammates commit them, CI uploads them, issues attach them), and
its strings can hold terminal escape sequences (set the window title, write the clipboard with OSC
52, clear the screen, turn mouse mode on) or characters that reorder or hide what is shown (bidi
overrides, zero-width characters). `visible()` is the one step every surface takes where file text
meets a terminal: the CLI's text output and textconv, and every TUI widget. Each control character
becomes its visible picture (`ESC` is `␛`, so `\\x1b[2J` shows as `␛[2J`), C1 controls and the
invisible formatting characters become `<U+202E>`; newlines and tabs stay.
"""

from __future__ import annotations

import re

__all__ = ["has_hidden", "visible", "visible_line"]


def _table() -> dict[int, str]:
    table: dict[int, str] = {code: chr(0x2400 + code) for code in range(0x20)}  # ␀ … ␟
    del table[ord("\n")], table[ord("\t")]
    table[0x7F] = "␡"
    for code in range(0x80, 0xA0):  # C1 controls: CSI (0x9B), OSC (0x9D) on 8-bit terminals
        table[code] = f"<U+{code:04X}>"
    invisible = [0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060, 0x2061, 0x2062, 0x2063,
                 0x2064, 0xFEFF, 0x2028, 0x2029, *range(0x202A, 0x202F),
                 *range(0x2066, 0x206A)]  # fmt: skip
    for code in invisible:  # bidi overrides and isolates, zero-width characters
        table[code] = f"<U+{code:04X}>"
    return table


_VISIBLE = _table()
_LINE = {**_VISIBLE, ord("\n"): "␊", ord("\t"): "␉"}
_HIDDEN = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(_LINE)) + "]")


def visible(text: str) -> str:
    """`text` with every control and invisible formatting character shown as a visible mark;
    newlines and tabs kept."""
    return text.translate(_VISIBLE)


def has_hidden(text: str) -> bool:
    """True when `visible_line(text)` would change `text`: it holds a control or invisible
    formatting character, a newline or a tab (a search, many times faster than the translation)."""
    return _HIDDEN.search(text) is not None


def visible_line(text: str) -> str:
    """`visible(text)` on one line: newlines and tabs shown as `␊` and `␉` too."""
    return text.translate(_LINE)
