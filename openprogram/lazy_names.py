"""A package's public names read from their modules on first use (PEP 562 `__getattr__`).

One mechanism for the packages that keep their import cheap: `openprogram.providers` (a viewer
shows the first rows of a file before the pydantic types are built) and `openprogram.recordings`
(importing one of its modules does not import the others).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_getattr(package: str, modules: Mapping[str, str]) -> Callable[[str], object]:
    """The `__getattr__` of `package`: `modules` maps each public name to the (absolute) module
    that defines it; a name is imported once, then kept in the package's namespace."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> object:
        source = modules.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        namespace[name] = value
        return value

    return __getattr__
