"""Paths as people read them: short, and the same on every machine for the state directory."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: Path) -> str:
    """`$OPENPROGRAM_HOME/recordings` inside a state dir set by that variable, `~/…` under home."""
    target = Path(os.path.abspath(path))
    home_setting = os.environ.get("OPENPROGRAM_HOME")
    if home_setting:
        state = Path(os.path.abspath(Path(home_setting).expanduser()))
        if target == state or state in target.parents:
            rest = target.relative_to(state).as_posix()
            return "$OPENPROGRAM_HOME" + ("" if rest == "." else f"/{rest}")
    user_home = Path.home()
    if target == user_home or user_home in target.parents:
        return "~/" + target.relative_to(user_home).as_posix()
    try:
        relative = target.relative_to(Path.cwd())
    except ValueError:
        return str(target)
    return relative.as_posix()
