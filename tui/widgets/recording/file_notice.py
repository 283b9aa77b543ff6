"""One line under the title when the recording changed on disk: what happened, and the key to press."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class FileNotice(Static):
    """`file changed on disk — ctrl+r reloads, f follows` (hidden while the file is as read)."""

    DEFAULT_CSS = """
    FileNotice {
        height: 1;
        display: none;
        padding: 0 1;
        color: $text;
        background: $warning 25%;
        border-left: thick $warning;
        &.-shown { display: block; }
    }
    """

    notice: str | None = None
    """The notice shown, if any."""

    def show_notice(self, notice: str | None) -> None:
        """Show `notice`, or hide the line (None)."""
        self.notice = notice
        self.set_class(notice is not None, "-shown")
        self.update(Text(notice or ""))
