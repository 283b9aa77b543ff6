"""One line under the title about the file on disk: followed as it is written, or changed since
it was read (what happened, and the key to press)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class FileNotice(Static):
    """`file changed on disk — ctrl+r reloads · f follows`, or `● following …` (hidden otherwise)."""

    DEFAULT_CSS = """
    FileNotice {
        height: 1;
        display: none;
        padding: 0 1;
        color: $text;
        background: $warning 25%;
        border-left: thick $warning;
        &.-shown { display: block; }
        &.-following { background: $primary 20%; border-left: thick $primary; }
    }
    """

    notice: str | None = None
    """The line shown, if any."""

    def show_notice(self, notice: str | None, following: bool = False) -> None:
        """Show `notice` (a change on disk; `following`: the state of a followed file), or hide
        the line (None)."""
        self.notice = notice
        self.set_class(notice is not None, "-shown")
        self.set_class(following, "-following")
        self.update(Text(notice or ""))
