"""The mismatch, side by side: the path on top, recorded and incoming request, a diff of long strings.

Both panes open along the differing field and mark it; scrolling one scrolls the other so the
marked rows stay level, and opening a node opens it on the other side too. `n` / `N` step through
every differing field, not only the first one replay stopped at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive

from openprogram.providers.recording.differences import MISSING, FieldDifference
from tui.messages import CallOpenRequested
from tui.model.request_comparison import RequestComparison, RuleKind, why_not_normalizable
from tui.model.string_diff import string_diff, wants_string_diff
from tui.widgets.comparison.json_pane import JsonPane
from tui.widgets.comparison.path_bar import PathBar
from tui.widgets.comparison.string_diff import StringDiffView


class MismatchView(Vertical):
    """A content mismatch: `PathBar`, two `JsonPane`s and a `StringDiffView`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "step(1)", "Next", id="mismatch.next"),
        Binding("N", "step(-1)", "Previous diff", show=False, id="mismatch.previous"),
        Binding("y", "copy_path", "Copy path", show=False, id="mismatch.copy-path"),
        Binding("o", "open_call", "Open call", show=False, id="mismatch.open-call"),
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

    @dataclass(eq=False)
    class RuleOffered(Message):
        """The user asked to absorb `difference` with a rule of `kind` (`ignore`, `normalize`)."""

        kind: RuleKind
        difference: FieldDifference

    @dataclass(eq=False)
    class SteppedPastEnd(Message):
        """`n` on the last difference (`step` 1) or `N` on the first (-1), when not wrapping."""

        step: int

    def __init__(
        self,
        report: RequestComparison,
        *,
        titles: tuple[str, str] | None = None,
        sides: tuple[str, str] = ("recorded", "incoming"),
        wrap: bool = True,
        offers_rules: bool = True,
        start_at_end: bool = False,
        take_focus: bool = True,
        id: str | None = None,
    ) -> None:
        """`titles` name the two panes (default: recorded and incoming request of the call);
        without `wrap`, stepping past either end posts `SteppedPastEnd` (the diff screen moves to
        another call); `offers_rules` shows `i`/`z`; `start_at_end` starts on the last difference;
        `take_focus` focuses the recorded pane once shown."""
        super().__init__(id=id)
        self.report = report
        call = report.call_index
        self.titles = titles or (
            f"Recorded request · call {call}",
            f"Incoming request · call {call}",
        )
        self.sides = sides
        """How the path bar names the two values (`recorded`/`incoming`; the diff's `A`/`B`)."""
        self.wrap = wrap
        self.offers_rules = offers_rules
        self.take_focus = take_focus
        start = len(report.differences) - 1 if start_at_end and report.differences else report.first
        self.set_reactive(MismatchView.position, start)

    def compose(self) -> ComposeResult:
        yield PathBar(sides=self.sides, id="mismatch-path")
        with Horizontal(id="mismatch-panes"):
            yield JsonPane(self.titles[0], id="recorded")
            yield JsonPane(self.titles[1], id="incoming")
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
        if self.take_focus:
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
        if not self.report.differences:
            requests = (self.report.recorded_request, self.report.incoming_request)
            present = [
                title for title, request in zip(self.titles, requests, strict=True) if request
            ]
            only = present[0] if len(present) == 1 else None
            self.query_one(PathBar).show_no_difference(only)
            self.query_one(StringDiffView).show_diff(None)
            return
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "offer_rule":
            return self.offers_rules
        if action in ("copy_path", "open_call"):
            return bool(self.report.differences)
        return True

    def action_step(self, step: int) -> None:
        total = len(self.report.differences)
        position = self.position + step
        if not self.wrap and not 0 <= position < total:
            self.post_message(self.SteppedPastEnd(step))
            return
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
        self.post_message(CallOpenRequested(self.report.call_index, self.difference.path_tokens))
