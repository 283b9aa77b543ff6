"""A JSON document as a tree whose children are built only when a node is expanded."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui.model.json_nodes import JsonNode, describe_member, value_kind

CHILD_LIMIT = 500
"""An array or object shows at most this many children (the rest are summarised in one row)."""


TREE_BINDINGS: tuple[Binding, ...] = (
    Binding("j", "cursor_down", "Down", show=False, id="tree.down"),
    Binding("k", "cursor_up", "Up", show=False, id="tree.up"),
    Binding("g", "scroll_home", "First", show=False, id="tree.first"),
    Binding("G", "scroll_end", "Last", show=False, id="tree.last"),
    Binding("l,right", "expand_node", "Expand", show=False, id="tree.expand"),
    Binding("h,left", "collapse_node", "Collapse", show=False, id="tree.collapse"),
)
"""Keys of every JSON tree (request trees and mismatch panes share the ids, so one keymap)."""


class JsonNodeTree(Tree[JsonNode]):
    """A tree of `JsonNode`s filled level by level as nodes open, with the shared JSON tree keys.

    Subclasses say how a level is ordered (`_ordered`) and what a child's label is (`_child_label`).
    """

    HELP_TITLE: ClassVar[str] = "JSON tree"
    """Where its keys work, as the help names it."""

    BINDINGS: ClassVar[list[BindingType]] = list(TREE_BINDINGS)

    def _ordered(self, parent: JsonNode) -> list[JsonNode]:
        return parent.children()

    def _child_label(self, child: JsonNode) -> str | Text:
        return child.key_label

    def _fill(self, parent: TreeNode[JsonNode]) -> None:
        if parent.children or parent.data is None:
            return
        children = self._ordered(parent.data)
        for child in children[:CHILD_LIMIT]:
            parent.add(self._child_label(child), data=child, allow_expand=child.expandable)
        if len(children) > CHILD_LIMIT:
            rest = len(children) - CHILD_LIMIT
            parent.add_leaf(Text(f"… {rest:,} more not shown", "dim italic"))

    def action_expand_node(self) -> None:
        node = self.cursor_node
        if node is not None and node.allow_expand:
            node.expand()

    def action_collapse_node(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)


class JsonTree(JsonNodeTree):
    """Model, context and options of a request, expanded level by level on demand."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "json-tree--key",
        "json-tree--string",
        "json-tree--number",
        "json-tree--literal",
        "json-tree--container",
    }
    DEFAULT_CSS = """
    JsonTree {
        height: 1fr;
        scrollbar-size: 1 1;
        border: round $panel;
        border-title-color: $text-muted;
        &:focus { border: round $primary; }
        & > .json-tree--key { color: $text-accent; }
        & > .json-tree--string { color: $text-success; }
        & > .json-tree--number { color: $text-warning; }
        & > .json-tree--literal { color: $text-primary; }
        & > .json-tree--container { color: $text-muted; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("request", id=id)
        self.border_title = "Request JSON"
        self.show_root = False
        self.guide_depth = 3
        self._labelled_width = 0
        """The width the labels' strings were cut for (they use it: `string_room`)."""

    def show_document(self, document: dict[str, Any], expand: tuple[str, ...] = ()) -> None:
        """Show `document`, with its top-level members (and those named in `expand`) open."""
        self.clear()
        self.root.data = JsonNode((), document)
        self._fill(self.root)
        self.root.expand()
        for child in self.root.children:
            if child.data is not None and child.data.key in expand:
                self._fill(child)
                child.expand()

    def reveal(self, path: tuple[str | int, ...]) -> bool:
        """Open the nodes along `path` and put the cursor on its end; False if it is not there."""
        node = self.root
        for token in path:
            self._fill(node)
            node.expand()
            found = next((c for c in node.children if c.data and c.data.key == token), None)
            if found is None:
                self.call_after_refresh(self._select, node)
                return False
            node = found
        self._fill(node)
        self.call_after_refresh(self._select, node)
        return True

    def _select(self, node: TreeNode[JsonNode]) -> None:
        # Nodes get their line once the tree has been laid out again, hence after a refresh.
        if node is not self.root:
            self.move_cursor(node)
            self.scroll_to_node(node, animate=False)

    def _label(self, node: JsonNode) -> Text:
        style = self.get_component_rich_style
        kind = value_kind(node.value)
        value_class = {
            "object": "json-tree--container",
            "array": "json-tree--container",
            "string": "json-tree--string",
            "number": "json-tree--number",
        }.get(kind, "json-tree--literal")
        text = Text()
        if node.key_label:
            text.append(node.key_label, style("json-tree--key"))
            text.append(": ")
        width = self._labelled_width = self.scrollable_content_region.width
        # The value starts after the guides (3 per level), the key and `: `.
        indent = len(node.path) * self.guide_depth + len(node.key_label) + 2
        room = width - indent if width else None
        text.append(describe_member(node.key, node.value, room), style(value_class))
        return text

    def on_resize(self, event: events.Resize) -> None:
        """Strings are cut at the width: the labels made for another width are made again."""
        if self.scrollable_content_region.width == self._labelled_width:
            return
        filled = [self.root]
        while filled:
            node = filled.pop()
            for child in node.children:
                if child.data is not None:
                    child.set_label(self._label(child.data))
                filled.append(child)

    def _child_label(self, child: JsonNode) -> Text:
        return self._label(child)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[JsonNode]) -> None:
        event.stop()
        self._fill(event.node)
