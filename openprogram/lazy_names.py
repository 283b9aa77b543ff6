"""A package's public names, written once and read from their modules on first use (PEP 562).

A facade lists its public names once, as the imports of its `if TYPE_CHECKING:` block: a type
checker reads them as they stand, and `lazy_facade` reads the same block from the package's
source to build `__all__` and a `__getattr__` that imports a name from its module the first time
it is asked for. The packages that keep their import cheap use it: `openprogram.providers` (a
viewer shows the first rows of a file before the pydantic types are built),
`openprogram.providers.recording` (`row_encoding` and `errors` load without the models) and
`openprogram.recordings` (importing one of its modules does not import the others).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path


def lazy_facade(
    package: str,
) -> tuple[list[str], Callable[[str], object], Callable[[], list[str]]]:
    """`__all__`, `__getattr__` and `__dir__` for `package`, from the imports of its
    `if TYPE_CHECKING:` block (`from module import name` lines: the one list of its names)."""
    namespace = sys.modules[package].__dict__
    modules = public_names(package)

    def __getattr__(name: str) -> object:
        source = modules.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *modules})

    return sorted(modules), __getattr__, __dir__


def public_names(package: str) -> dict[str, str]:
    """Each name the `if TYPE_CHECKING:` block of `package` imports, and the module it is from.

    Read with two regular expressions, not `ast` (importing and running it cost ~4 ms at every
    start); `tests/architecture/test_facades.py` checks the result against `ast`'s reading."""
    module = sys.modules[package]
    text = Path(module.__file__ or "").read_text(encoding="utf-8")
    block = _TYPE_CHECKING_BLOCK.search(text)
    if block is None:
        raise ImportError(f"{package}: no `if TYPE_CHECKING:` block lists its public names")
    names: dict[str, str] = {}
    for source, listed in _FROM_IMPORT.findall(_COMMENT.sub("", block.group(1))):
        for item in listed.strip("()").split(","):
            name, _, alias = item.strip().partition(" as ")
            if name:
                names[alias.strip() or name] = source
    return names


_TYPE_CHECKING_BLOCK = re.compile(r"^if TYPE_CHECKING:\n((?:[ \t]+\S.*\n|[ \t]*\n)+)", re.MULTILINE)
_FROM_IMPORT = re.compile(
    r"^[ \t]+from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|.*)$", re.MULTILINE
)
_COMMENT = re.compile(r"#.*")
