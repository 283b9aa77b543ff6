"""The header of a mismatch: where the field is (`call 1 › context › messages[2] › …`), both values."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from openprogram.providers.recording.difference_text import (
    describe_difference,
    describe_path,
    format_value,
)
from openprogram.providers.recording.differences import FieldDifference

SEPARATOR = " › "
VALUE_LIMIT = 80
"""Values are cut to one line here; the panes and the string diff hold them whole."""


class PathBar(Static):
    """Breadcrumb of the differing field, which difference of how many, and both values bounded."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "pathbar--crumb",
        "pathbar--leaf",
        "pathbar--separator",
        "pathbar--label",
        "pathbar--kind",
        "pathbar--absorbed",
    }
    DEFAULT_CSS = """
    PathBar {
        height: auto;
        padding: 0 1;
        background: $panel;
        border-left: thick $error;
        & > .pathbar--crumb { color: $text; }
        & > .pathbar--leaf { color: $text-accent; text-style: bold; }
        & > .pathbar--separator { color: $text-muted; }
        & > .pathbar--label { color: $text-muted; }
        & > .pathbar--kind { color: $text-warning; }
        & > .pathbar--absorbed { color: $text-muted; text-style: bold; }
        &.-absorbed { border-left: thick $panel-lighten-2; }
    }
    """

    def __init__(
        self, *, sides: tuple[str, str] = ("recorded", "incoming"), id: str | None = None
    ) -> None:
        """`sides` name the two values (the diff view's are `A` and `B`)."""
        super().__init__(id=id)
        self.sides = sides
        self.breadcrumb = ""
        """The path shown, as `describe_path` writes it (what the tmux test looks for)."""

    def show_no_difference(self, only: str | None = None) -> None:
        """No request difference here (a call whose answer alone changed, or that is the same);
        `only`: the one side that has this call (the other has no request to compare)."""
        self.breadcrumb = ""
        self.set_class(False, "-absorbed")
        said = (
            f"Only one side has this call ({only}): there is no other request to compare."
            if only
            else "The requests are the same."
        )
        self.update(Text(said, self.get_component_rich_style("pathbar--label")))

    def show_difference(
        self,
        call_index: int,
        difference: FieldDifference,
        position: int,
        total: int,
        rule: str | None = None,
    ) -> None:
        """Show difference number `position` (0-based) of `total` in call `call_index`; `rule`
        is the rule that absorbed it (None: it counts)."""
        style = self.get_component_rich_style
        self.breadcrumb = describe_path(call_index, difference.path_tokens)
        crumbs = self.breadcrumb.split(SEPARATOR)
        text = Text(no_wrap=False)
        for number, crumb in enumerate(crumbs):
            if number:
                text.append(SEPARATOR, style("pathbar--separator"))
            last = number == len(crumbs) - 1
            text.append(crumb, style("pathbar--leaf" if last else "pathbar--crumb"))
        counter = f"difference {position + 1} of {total}" if total > 1 else "the only difference"
        text.append(f"   {counter} · ", style("pathbar--label"))
        text.append(describe_difference(difference), style("pathbar--kind"))
        if rule is not None:
            text.append("\nabsorbed by ", style("pathbar--label"))
            text.append(rule, style("pathbar--absorbed"))
            text.append(" (replay does not count it)", style("pathbar--label"))
        for label, value in zip(
            self.sides, (difference.recorded, difference.incoming), strict=True
        ):
            text.append(f"\n{label}  ", style("pathbar--label"))
            text.append(format_value(value, VALUE_LIMIT))
        self.set_class(rule is not None, "-absorbed")
        self.update(text)
