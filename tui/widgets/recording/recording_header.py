"""The top of a recording view: the title with the file's facts, the line about the file on disk,
and the strict reader's verdict over its first problems."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical

from openprogram.text import plural
from tui.widgets.common.title_bar import TitleBar
from tui.widgets.recording.file_notice import FileNotice
from tui.widgets.recording.problem_banner import ProblemBanner

if TYPE_CHECKING:
    from openprogram.providers.recording.errors import RecordingProblem
    from tui.model.file_stamp import FileWatch
    from tui.model.verdict import Verdict
    from tui.widgets.recording.call_browser import CallBrowser


class RecordingHeader(Vertical):
    """`TitleBar` (`format 2 · 5 calls · ✓ valid`), `FileNotice` and the file's `ProblemBanner`:
    what the view says about the whole file, each line from the facts it is told."""

    DEFAULT_CSS = """
    RecordingHeader {
        dock: top;
        height: auto;
        /* Docked, it would not count in the header's height. */
        & > TitleBar { dock: none; }
    }
    """

    def __init__(self, file_name: str) -> None:
        super().__init__()
        self._file_name = file_name
        self.version_note: str | None = None
        """What accept or rerecord made of this recording, and the versions kept (said last)."""

    def compose(self) -> ComposeResult:
        yield TitleBar(self._file_name, "opening…")
        yield FileNotice()
        yield ProblemBanner(limit=1, id="file-problems")

    def say(self, facts: str, problem: bool = False) -> None:
        """Put `facts` beside the title (`indexing 40%…`, why it cannot be read)."""
        self.query_one(TitleBar).set_facts(facts, problem)

    def cannot_open(self, problem: RecordingProblem) -> None:
        """The file could not be opened: said in the title, the reader's problem under it."""
        self.say("cannot be opened", problem=True)
        self.query_one(ProblemBanner).show_problems((problem,))

    def show_verdict(self, verdict: Verdict | None) -> None:
        """The strict reader's problems under its headline, or none (no verdict, or dropped)."""
        problems = verdict.problems if verdict is not None else ()
        headline = verdict.headline() if verdict is not None else ""
        self.query_one(ProblemBanner).show_problems(problems, headline)

    def show_facts(self, browser: CallBrowser, watch: FileWatch) -> None:
        """The calls' facts and the verdict's word (and the versions kept), and the line about
        the file on disk: followed, or how it changed since it was read. A file that is not a
        recording: its line count, and what it is not."""
        table = browser.table
        if browser.raw_lines is not None:
            lines = plural(table.index.line_count, "line")
            self.say(f"{lines} · not an OpenProgram recording", True)
            return
        facts, problem = table.facts()
        if self.version_note:
            facts += f" · {self.version_note}"
        self.say(facts, problem)
        following = watch.following
        notice = table.following_note() if following else watch.notice()
        self.query_one(FileNotice).show_notice(notice, following=following)
