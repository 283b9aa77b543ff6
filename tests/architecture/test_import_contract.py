"""The layers of the code base, enforced: who may import whom, and no import cycle anywhere.

Every `import` in `openprogram/` and `tui/` is read from the source (module level and inside
functions alike; only `if TYPE_CHECKING:` blocks are left out, since they never run), so a cycle
hidden behind an in-function import fails here too. See docs/design-decisions.md for the layers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("openprogram", "tui")

BOUNDARY = (
    "openprogram.providers.types",
    "openprogram.providers.api_provider",
    "openprogram.providers.api_registry",
    "openprogram.providers.runtime",
    "openprogram.providers.wrapper",
    "openprogram.providers.stream",
    "openprogram.providers.accumulator",
    "openprogram.providers.scripted",
    "openprogram.providers.http",
)
"""The provider boundary: every model call passes through these, with or without record/replay."""
RECORD_REPLAY = ("openprogram.providers.recording", "openprogram.providers.replay")
LEAVES = (
    "openprogram.errors",
    "openprogram.text",
    "openprogram.visible_text",
    "openprogram.word_diff",
    "openprogram.lazy_names",
    "openprogram.recently_used",
)
"""Modules that import nothing from the project, so every layer may use them."""
ROOT_PACKAGE = "openprogram"
"""The package itself holds only `__version__` and may be imported by every layer."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from (n for orelse in node.orelse for n in _import_nodes(orelse))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _import_nodes(node)


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports (a `from package import submodule` counts the submodule)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        found.update(t for t in targets if t.split(".")[0] in (*PACKAGES, "textual"))
    found.discard(name)
    return found


GRAPH = {name: imports_of(name, path, set(all_modules())) for name, path in all_modules().items()}


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_no_import_cycle() -> None:
    """No module reaches itself again through the modules it imports."""
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(GRAPH.get(node, ())):
            if target not in GRAPH:
                continue
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(GRAPH):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def _violations(layer: tuple[str, ...], allowed: tuple[str, ...]) -> list[str]:
    return [
        f"{name} imports {target}"
        for name, targets in sorted(GRAPH.items())
        if within(name, layer)
        for target in sorted(targets)
        if target != ROOT_PACKAGE and not within(target, allowed)
    ]


def test_the_provider_boundary_imports_nothing_above_it() -> None:
    """Types, registry, streaming, runtime and vendors know nothing of record/replay or the rest."""
    assert _violations(BOUNDARY, BOUNDARY + LEAVES) == []


def test_record_replay_imports_only_the_boundary() -> None:
    """Recording and replay sit on the boundary and below management, the CLI, the plugin and the TUI."""
    assert _violations(RECORD_REPLAY, RECORD_REPLAY + BOUNDARY + LEAVES) == []


@pytest.mark.parametrize(
    ("layer", "allowed"),
    [
        (("openprogram.agent",), ("openprogram.agent", *BOUNDARY, *LEAVES)),
        (
            ("openprogram.recordings",),
            ("openprogram.recordings", *RECORD_REPLAY, *BOUNDARY, *LEAVES),
        ),
        (
            ("openprogram.html_report",),
            (
                "openprogram.html_report",
                "openprogram.recordings",
                *RECORD_REPLAY,
                *BOUNDARY,
                *LEAVES,
            ),
        ),
    ],
    ids=["agent", "recordings", "html_report"],
)
def test_upper_layers_import_only_downward(
    layer: tuple[str, ...], allowed: tuple[str, ...]
) -> None:
    """The agent loop uses only the boundary; management never reaches into the report, the CLI or
    the TUI; the HTML report draws on management, never on the surfaces that write it."""
    assert _violations(layer, allowed) == []


def test_the_library_never_imports_the_tui_or_textual() -> None:
    """`openprogram` is usable without Textual: only `tui/` may import it."""
    assert [
        f"{name} imports {target}"
        for name, targets in sorted(GRAPH.items())
        if within(name, ("openprogram",))
        for target in sorted(targets)
        if within(target, ("tui", "textual"))
    ] == []


def test_the_tui_takes_its_wording_from_the_library_not_from_the_replay_engine() -> None:
    """How a difference reads is `difference_text`'s (one module for every surface); from the
    replayer (the engine) the TUI takes only its types, never a display helper."""
    engine = "openprogram.providers.recording.replayer"
    taken = {
        (name, alias.name)
        for name, path in all_modules().items()
        if within(name, ("tui",))
        for node in _import_nodes(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module == engine
        for alias in node.names
    }
    assert {alias for _, alias in taken} <= {"ReplayProvider", "RecordedCallError"}, taken
    wording = "openprogram.providers.recording.difference_text"
    assert wording in GRAPH["tui.model.request_comparison"]
    assert wording in GRAPH["openprogram.cli.recordings_diff"]
    assert wording in GRAPH["openprogram.providers.recording.mismatch"]


def test_the_leaves_import_nothing_from_the_project() -> None:
    """What every layer may import must not lead back into any layer."""
    assert {name: GRAPH[name] for name in (ROOT_PACKAGE, *LEAVES) if GRAPH.get(name)} == {}


def test_the_contract_sees_real_imports() -> None:
    """The walk finds known edges, so an empty violation list means something."""
    assert "openprogram.providers.types" in GRAPH["openprogram.providers.stream"]
    assert "openprogram.providers.recording.activation" in GRAPH["openprogram.providers"]
    assert any(t.startswith("textual") for t in GRAPH["tui.app"])
