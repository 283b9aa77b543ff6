"""The mismatch, side by side: the path on top, recorded and incoming request, a diff of long strings.

Both panes open along the differing field and mark it; scrolling one scrolls the other so the
marked rows stay level, and opening a node opens it on the other side too. `n` / `N` step through
every differing field, not only the first one replay stopped at.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive

from openprogram.providers.recording.differences import MISSING, FieldDifference, PathToken
from tui.model.rerun import RequestComparison
from tui.model.rule_offers import RuleKind, why_not_normalizable
from tui.model.string_diff import string_diff, wants_string_diff
from tui.widgets.rerun.json_pane import JsonPane
from tui.widgets.rerun.path_bar import PathBar
from tui.widgets.rerun.string_diff import StringDiffView


class MismatchView(Vertical):
    """A content mismatch: `PathBar`, two `JsonPane`s and a `StringDiffView`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "step(1)", "Next diff", id="mismatch.next"),
        Binding("N", "step(-1)", "Previous diff", show=False, id="mismatch.previous"),
        Binding("y", "copy_path", "Copy path", show=False, id="mismatch.copy-path"),
        Binding("o", "open_call", "Open call", id="mismatch.open-call"),
        Binding("i", "offer_rule('ignore')", "Ignore", id="mismatch.ignore"),
        Binding("z", "offer_rule('normalize')", "Normalise", id="mismatch.normalize"),
    ]
    DEFAULT_CSS = """
    MismatchView {
        height: 1fr;
        & > #mismatch-panes { height: 1fr; }
    }
    """

    position: reactive[int] = reactive(0, init=False)
    """Which of the report's differences is shown (0-based); starts at the one replay reported."""

    class CallOpenRequested(Message):
        """The user asked to see call `call_index` in the recording, at the field `path_tokens`."""

        def __init__(self, call_index: int, path_tokens: tuple[PathToken, ...]) -> None:
            super().__init__()
            self.call_index, self.path_tokens = call_index, path_tokens

    class RuleOffered(Message):
        """The user asked to absorb `difference` with a rule of `kind` (`ignore`, `normalize`)."""

        def __init__(self, kind: RuleKind, difference: FieldDifference) -> None:
            super().__init__()
            self.kind, self.difference = kind, difference

    def __init__(self, report: RequestComparison, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.report = report
        self.set_reactive(MismatchView.position, report.first)

    def compose(self) -> ComposeResult:
        call = self.report.call_index
        yield PathBar(id="mismatch-path")
        with Horizontal(id="mismatch-panes"):
            yield JsonPane(f"Recorded request · call {call}", id="recorded")
            yield JsonPane(f"Incoming request · call {call}", id="incoming")
        yield StringDiffView(id="mismatch-string-diff")

    def on_mount(self) -> None:
        recorded, incoming = self._panes()
        recorded.show_document(self.report.recorded_request or MISSING)
        incoming.show_document(self.report.incoming_request or MISSING)
        absorbed = {
            difference.path_tokens: rule
            for number, difference in enumerate(self.report.differences)
            if (rule := self.report.effect_of(number)) is not None
        }
        for pane in (recorded, incoming):
            pane.show_absorbed(absorbed)
        self._show(self.position)
        recorded.focus()

    @property
    def difference(self) -> FieldDifference:
        """The difference shown."""
        return self.report.differences[self.position]

    def _panes(self) -> tuple[JsonPane, JsonPane]:
        return self.query_one("#recorded", JsonPane), self.query_one("#incoming", JsonPane)

    def watch_position(self, position: int) -> None:
        self._show(position)

    def _show(self, position: int) -> None:
        difference = self.report.differences[position]
        total = len(self.report.differences)
        self.query_one(PathBar).show_difference(
            self.report.call_index, difference, position, total, self.report.rule_of(position)
        )
        recorded_pane, incoming_pane = self._panes()  # an aligned list can shift an index
        recorded_pane.mark(difference.recorded_path_tokens)
        incoming_pane.mark(difference.incoming_path_tokens)
        recorded, incoming = difference.recorded, difference.incoming
        diff = string_diff(recorded, incoming) if wants_string_diff(recorded, incoming) else None
        self.query_one(StringDiffView).show_diff(diff)

    # -- keeping the panes level --

    def _other(self, pane: JsonPane) -> JsonPane:
        recorded, incoming = self._panes()
        return incoming if pane is recorded else recorded

    def on_json_pane_scrolled(self, message: JsonPane.Scrolled) -> None:
        message.stop()
        self._other(message.pane).follow(message.offset)

    def on_json_pane_node_toggled(self, message: JsonPane.NodeToggled) -> None:
        message.stop()
        self._other(message.pane).set_expanded(message.path, message.expanded)

    # -- actions --

    def action_step(self, step: int) -> None:
        total = len(self.report.differences)
        if total == 1:
            self.notify("This is the only differing field.", severity="information")
            return
        self.position = (self.position + step) % total

    def action_copy_path(self) -> None:
        path = self.difference.field_path
        self.app.copy_to_clipboard(path)
        self.notify(path, title="Copied the field path")

    def action_offer_rule(self, kind: RuleKind) -> None:
        if self.report.rule_of(self.position) is not None:
            self.notify("A rule already absorbs this difference; n shows the next one.")
            return
        if kind == "normalize" and (why := why_not_normalizable(self.difference)) is not None:
            self.notify(f"Nothing to normalise: {why}.", severity="warning")
            return
        self.post_message(self.RuleOffered(kind, self.difference))

    def action_open_call(self) -> None:
        self.post_message(
            self.CallOpenRequested(self.report.call_index, self.difference.path_tokens)
        )
