"""One side of a mismatch: a request as a lazily built tree, opened along a path, one node marked.

Object members are listed by sorted key (the order replay compares them in), so the recorded and
the incoming pane line up row for row. A key that exists on the other side only is shown here as a
ghost row, `⟨missing⟩`, where it would be.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from openprogram.providers.recording.differences import MISSING, PathToken
from tui.model.json_nodes import JsonNode, describe_value, value_kind
from tui.model.request_comparison import value_at
from tui.widgets.common.json_tree import JsonNodeTree

GHOST = "⟨missing⟩"
NO_REQUEST = "no request on this side"
TOGGLE_STYLE = Style.from_meta({"toggle": True})
"""What makes a click on the ▶ icon open the node (as in Textual's own `Tree`)."""
_VALUE_CLASSES = {
    "object": "jsonpane--container",
    "array": "jsonpane--container",
    "string": "jsonpane--string",
    "number": "jsonpane--number",
}


def _sorts_after(key: PathToken, token: PathToken) -> bool:
    if isinstance(key, str) and isinstance(token, str):
        return key > token
    if isinstance(key, int) and isinstance(token, int):
        return key > token
    return False


class JsonPane(JsonNodeTree):
    """A request (or any JSON value) whose node at the mismatch path is opened and marked."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "jsonpane--key",
        "jsonpane--string",
        "jsonpane--number",
        "jsonpane--literal",
        "jsonpane--container",
        "jsonpane--ghost",
        "jsonpane--mismatch",
        "jsonpane--absorbed",
        "jsonpane--absorbed-mark",
    }
    DEFAULT_CSS = """
    JsonPane {
        width: 1fr;
        height: 1fr;
        overflow-x: hidden;
        border: round $panel;
        border-title-color: $text-muted;
        &:focus { border: round $primary; }
        & > .jsonpane--key { color: $text-accent; }
        & > .jsonpane--string { color: $text-success; }
        & > .jsonpane--number { color: $text-warning; }
        & > .jsonpane--literal { color: $text-primary; }
        & > .jsonpane--container { color: $text-muted; }
        & > .jsonpane--ghost { color: $text-muted; text-style: italic; }
        & > .jsonpane--mismatch { color: $text; background: $error 60%; text-style: bold; }
        & > .jsonpane--absorbed { color: $text-muted; text-style: italic; }
        & > .jsonpane--absorbed-mark { color: $text; background: $panel-lighten-2; }
    }
    """

    @dataclass(eq=False)
    class Scrolled(Message):
        """The user scrolled the pane; `offset` is rows from the marked node to the top row."""

        pane: JsonPane
        offset: float

    @dataclass(eq=False)
    class NodeToggled(Message):
        """A node at `path` was opened or closed."""

        pane: JsonPane
        path: tuple[PathToken, ...]
        expanded: bool

    def __init__(self, title: str, *, id: str | None = None) -> None:
        # Set before the tree exists: building the root already renders a label.
        self.marked: TreeNode[JsonNode] | None = None
        """The node at the mismatch path (a ghost row when this side lacks it)."""
        self.absorbed: dict[tuple[PathToken, ...], str] = {}
        """Paths of differences a rule absorbed → what the rule did (`ignored`, `≈ uuid`); drawn
        dimmed, with that beside the key."""
        self._following = False
        self._reveal_pending = False
        super().__init__("request", id=id)
        self.border_title = title
        self.show_root = False
        self.guide_depth = 3
        self.auto_expand = False

    # -- content --

    def show_document(self, document: Any) -> None:
        """Show `document` with its top level open (`MISSING`: this side has no such request)."""
        self.clear()
        self.marked = None
        self.root.data = JsonNode((), document)
        if document is MISSING or document is None:
            self.root.add_leaf(NO_REQUEST)
        else:
            self._fill(self.root)
        self.root.expand()

    def mark(self, tokens: Sequence[PathToken]) -> TreeNode[JsonNode] | None:
        """Open the tree along `tokens`, mark the node there and bring it into view."""
        previous = self.marked
        if previous is not None and previous.data is not None and previous.data.value is MISSING:
            previous.remove()  # the ghost of the previous difference
            previous = None
        self.marked = self._open_path(tuple(tokens), ghost=True)
        for node in (previous, self.marked):
            if node is not None:
                node.refresh()
        self.call_after_refresh(self._reveal)
        return self.marked

    def show_absorbed(self, absorbed: dict[tuple[PathToken, ...], str]) -> None:
        """Open the tree along every absorbed difference (where this side has it) and dim it."""
        self.absorbed = dict(absorbed)
        for tokens in absorbed:
            self._open_path(tokens, ghost=False)
        self.refresh()

    def set_expanded(self, path: Sequence[PathToken], expanded: bool) -> None:
        """Open or close the node at `path`, if this side has one (mirrors the other pane)."""
        node: TreeNode[JsonNode] | None = self.root
        for token in path:
            node = self._child(node, token) if node is not None else None
        if node is None or node is self.root or not node.allow_expand:
            return
        if node.is_expanded != expanded:
            node.expand() if expanded else node.collapse()

    def follow(self, offset: float) -> None:
        """Scroll so the marked node sits `offset` rows above the top, as in the other pane."""
        mark_line = self.marked.line if self.marked is not None else -1
        self._following = True
        try:
            self.scroll_to(y=max(mark_line, 0) + offset, animate=False, immediate=True)
        finally:
            self._following = False

    # -- building --

    def _style(self, component: str) -> Style:
        try:
            full = self.get_component_rich_style(component)
        except KeyError:  # asked for a label width before the styles are loaded
            return Style()
        if component in ("jsonpane--mismatch", "jsonpane--absorbed-mark"):
            return full
        # Text colours only: the line's own background (cursor, hover) must show through.
        # (`partial=True` would keep muted colours unblended, white in every theme.)
        return Style(color=full.color, bold=full.bold, italic=full.italic)

    def _label(self, node: TreeNode[JsonNode]) -> Text:
        """The node's label in the current theme's colours (built when the line is drawn)."""
        data = node.data
        if data is None:  # "… more not shown" and "no request on this side"
            return Text(str(node.label), self._style("jsonpane--ghost"))
        text = Text()
        if data.key_label:
            text.append(data.key_label, self._style("jsonpane--key"))
            effect = self.absorbed.get(data.path)
            if effect is not None:
                text.append(f" ({effect})", self._style("jsonpane--absorbed"))
            text.append(": ")
        if data.value is MISSING:
            text.append(GHOST, self._style("jsonpane--ghost"))
            return text
        value_class = _VALUE_CLASSES.get(value_kind(data.value), "jsonpane--literal")
        text.append(describe_value(data.value), self._style(value_class))
        return text

    def _ordered(self, parent: JsonNode) -> list[JsonNode]:
        children = parent.children()
        if isinstance(parent.value, dict):
            children.sort(key=lambda child: str(child.key))
        return children

    def _child(self, parent: TreeNode[JsonNode], token: PathToken) -> TreeNode[JsonNode] | None:
        self._fill(parent)
        for child in parent.children:
            if child.data is not None and child.data.key == token:
                return child
        if parent.data is None:
            return None
        value = value_at(parent.data.value, (token,))
        if value is MISSING:
            return None
        found = JsonNode((*parent.data.path, token), value)
        # An object or array lists at most CHILD_LIMIT children, plus the one on a marked path.
        return parent.add(found.key_label, data=found, allow_expand=found.expandable)

    def _ghost(self, parent: TreeNode[JsonNode], token: PathToken) -> TreeNode[JsonNode]:
        ghost = JsonNode((*(parent.data.path if parent.data else ()), token), MISSING)
        later = next(
            (
                child
                for child in parent.children
                if child.data is not None
                and child.data.key is not None
                and _sorts_after(child.data.key, token)
            ),
            None,
        )
        return parent.add(ghost.key_label, data=ghost, before=later, allow_expand=False)

    def _open_path(self, tokens: tuple[PathToken, ...], ghost: bool) -> TreeNode[JsonNode] | None:
        node: TreeNode[JsonNode] = self.root
        for token in tokens:
            child = self._child(node, token)
            if child is None:
                return self._ghost(node, token) if ghost else None
            if node is not self.root and not node.is_expanded:
                node.expand()
            node = child
        if node.allow_expand and not node.is_expanded:
            node.expand()
        return None if node is self.root else node

    def _reveal(self, tries: int = 3) -> None:
        if self.marked is None or self.marked.line < 0:
            return
        # One scroll, done at once and not echoed to the other pane (whose reveal puts its own
        # mark in view): `move_cursor` would queue a second scroll of its own, and which of the
        # two landed last depended on timing. A pane not laid out yet (no height) reveals when
        # it gets its size; until the tree's lines are measured the scroll would stop short, so
        # it waits for them (a few refreshes at most).
        self._reveal_pending = not self.size.height
        if self._reveal_pending:
            return
        y = max(self.marked.line - self.size.height // 3, 0)
        if y > self.max_scroll_y and tries > 0:
            self.call_after_refresh(self._reveal, tries - 1)
            return
        self._following = True
        try:
            self.cursor_line = self.marked.line
            self.scroll_to(y=y, animate=False, immediate=True)
        finally:
            self._following = False

    def on_resize(self) -> None:
        if self._reveal_pending:
            self.call_after_refresh(self._reveal)

    # -- rendering and events --

    def render_label(self, node: TreeNode[JsonNode], base_style: Style, style: Style) -> Text:
        label = self._label(node)
        label.stylize(style)
        rule = self.absorbed.get(node.data.path) if node.data is not None else None
        if rule is not None:
            label.stylize(self._style("jsonpane--absorbed"))
        if node is self.marked:
            mark = "jsonpane--absorbed-mark" if rule is not None else "jsonpane--mismatch"
            label.stylize(self._style(mark))
        if not node.allow_expand:
            return label
        icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
        return Text.assemble((icon, base_style + TOGGLE_STYLE), label)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._following and round(old_value) != round(new_value):
            mark_line = self.marked.line if self.marked is not None else -1
            self.post_message(self.Scrolled(self, new_value - max(mark_line, 0)))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[JsonNode]) -> None:
        event.stop()
        self._fill(event.node)
        if event.node.data is not None and event.node.data.path:
            self.post_message(self.NodeToggled(self, event.node.data.path, True))

    def on_tree_node_collapsed(self, event: Tree.NodeCollapsed[JsonNode]) -> None:
        event.stop()
        if event.node.data is not None and event.node.data.path:
            self.post_message(self.NodeToggled(self, event.node.data.path, False))
