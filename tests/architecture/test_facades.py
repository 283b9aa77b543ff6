"""Each package's public names are written once, and its namespace is exactly that list.

httpx's `test_exported_members` idea: `__all__` is the one list of a facade's names, every name in
it imports, and nothing else public stands in the package. The lazy facades write the list as the
imports of their `if TYPE_CHECKING:` block (`openprogram.lazy_names`); the eager ones as their
imports with `__all__` beside them, which ruff keeps in step.
"""

from __future__ import annotations

import ast
import importlib
import types
from pathlib import Path

import pytest

from openprogram.lazy_names import public_names
from tests.recording_files import REPO_ROOT

PACKAGES = sorted(
    ".".join(path.parent.relative_to(REPO_ROOT).parts)
    for top in ("openprogram", "tui")
    for path in (REPO_ROOT / top).rglob("__init__.py")
)
FACADES = [*PACKAGES, "openprogram.providers.replay"]
LAZY = [
    "openprogram.providers",
    "openprogram.providers.recording",
    "openprogram.providers.replay",
    "openprogram.recordings",
]
COMPILE_TIME = {"annotations", "TYPE_CHECKING"}
"""Names a module needs to be read (`from __future__ import annotations`), not names it offers."""


def _source(name: str) -> Path:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    return Path(module.__file__)


def _type_checking_imports(path: Path) -> dict[str, str]:
    """What a type checker reads: each name the `if TYPE_CHECKING:` block imports, and from where."""
    names: dict[str, str] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                for alias in statement.names:
                    names[alias.asname or alias.name] = statement.module
    return names


@pytest.mark.parametrize("name", FACADES)
def test_the_facade_is_the_one_list_of_its_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(getattr(module, "__all__", []))
    assert len(exported) == len(set(exported)), "each name once"
    for public in exported:
        assert getattr(module, public) is not None  # every name imports
    namespace = {
        key
        for key, value in vars(module).items()
        if not key.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert namespace - COMPILE_TIME == set(exported)
    star: dict[str, object] = {}
    exec(f"from {name} import *", star)
    # (pytest's assertion rewriting leaves `@py_builtins` in the modules it rewrites)
    offered = {
        k for k, v in star.items() if k[0] not in "_@" and not isinstance(v, types.ModuleType)
    }
    assert offered == set(exported)


@pytest.mark.parametrize("name", LAZY)
def test_a_lazy_facade_reads_its_names_as_a_type_checker_does(name: str) -> None:
    expected = _type_checking_imports(_source(name))
    assert public_names(name) == expected
    assert set(importlib.import_module(name).__all__) == set(expected)
    for public, source in expected.items():
        assert getattr(importlib.import_module(name), public) is getattr(
            importlib.import_module(source), public
        )


@pytest.mark.parametrize("name", LAZY)
def test_a_lazy_facade_refuses_a_name_it_does_not_list(name: str) -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = importlib.import_module(name).nope


def test_the_seed_constants_import_from_where_the_seed_put_them() -> None:
    from openprogram.providers import NON_DETERMINISTIC_FIELD_NAMES as boundary_fields
    from openprogram.providers import SECRET_FIELD_NAMES as boundary_secrets
    from openprogram.providers.recording import NON_DETERMINISTIC_FIELD_NAMES, SECRET_FIELD_NAMES
    from openprogram.providers.recording.differences import find_first_difference
    from openprogram.providers.recording.redaction import remove_secret_values

    assert (
        boundary_secrets is SECRET_FIELD_NAMES and boundary_fields is NON_DETERMINISTIC_FIELD_NAMES
    )
    assert "api_key" in SECRET_FIELD_NAMES
    assert remove_secret_values({"api_key": "sk-1"}) != {"api_key": "sk-1"}
    assert "timestamp" in NON_DETERMINISTIC_FIELD_NAMES
    assert find_first_difference({"timestamp": 1}, {"timestamp": 2}) is None
