"""`openprogram-tui diff A B`: two recordings compared in the diff view (also a `git difftool`).

A and B are paths or managed recording IDs. As a difftool, git gives two paths (`$LOCAL $REMOTE`);
the view opens on the first call that differs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from tui.arguments import RecordingArgumentError, recording_path
from tui.command_line import parse_diff_arguments


def diff_main(argv: Sequence[str], app_class: Callable[..., Any]) -> int:
    """Open the diff view of the two recordings in `argv`; exit 2 on a usage error."""
    args = parse_diff_arguments(argv)
    try:
        a, b = recording_path(args.a), recording_path(args.b)
    except RecordingArgumentError as exc:
        print(f"openprogram-tui diff: {exc}", file=sys.stderr)
        return 2
    from tui.theme import start_theme

    app = app_class(diff=(a, b), theme=start_theme(args.light, args.dark))
    app.run()
    return int(app.return_code or 0)
