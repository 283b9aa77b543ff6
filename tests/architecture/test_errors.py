"""Every error the library raises shares one root, and keeps the builtin base callers rely on."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import openprogram
from openprogram.errors import OpenProgramError


def library_exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for module_info in pkgutil.walk_packages(openprogram.__path__, "openprogram."):
        if module_info.name == "openprogram.__main__":
            continue
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == module.__name__:
                found.append(value)
    return found


def test_every_library_error_is_an_openprogram_error() -> None:
    errors = library_exceptions()
    assert len(errors) >= 20  # the walk really found the library's errors
    assert [e.__qualname__ for e in errors if not issubclass(e, OpenProgramError)] == []


def test_the_tree_in_the_docstring_names_every_error() -> None:
    tree = openprogram.errors.__doc__ or ""
    assert [
        e.__name__ for e in library_exceptions() if not re.search(rf"\b{e.__name__}\b", tree)
    ] == []


def test_the_tree_names_the_module_that_defines_each_error() -> None:
    """Each line of the tree ends `... module: why`; the module is where the class lives."""
    tree = openprogram.errors.__doc__ or ""
    misplaced = []
    branches = [line for line in tree.splitlines() if "── " in line]
    for error in library_exceptions():
        if error is OpenProgramError:
            continue
        line = next(line for line in branches if re.search(rf"── {error.__name__}\b", line))
        named = re.search(r"([\w.]+): ", line.split(error.__name__, 1)[1])
        if named is None or not error.__module__.endswith(f".{named.group(1)}"):
            misplaced.append(f"{error.__name__} is in {error.__module__}: {line.strip()}")
    assert misplaced == []


def test_builtin_bases_are_kept_where_callers_rely_on_them() -> None:
    from openprogram.providers.api_registry import UnknownApiError
    from openprogram.providers.recording import RecordingWriteError
    from openprogram.providers.replay import RecordingFileError, ReplayMismatch

    assert issubclass(ReplayMismatch, AssertionError)  # a test runner reports a failure
    assert issubclass(RecordingWriteError, OSError)
    assert issubclass(RecordingFileError, ValueError)
    assert issubclass(UnknownApiError, LookupError)
