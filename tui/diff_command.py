"""`openprogram-tui diff A B`: two recordings compared in the diff view (also a `git difftool`).

A and B are paths or managed recording IDs. As a difftool, git gives two paths (`$LOCAL $REMOTE`);
the view opens on the first call that differs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from tui.arguments import RecordingArgumentError, recording_path

EPILOG = """\
examples:
  openprogram-tui diff yesterday today            two managed recordings
  openprogram-tui diff old.jsonl new.jsonl        two files
  git difftool -x 'openprogram-tui diff' -- tests/recordings/
                                                  every recording a change rewrote

The same comparison as `openprogram recordings diff A B`, with the matching rules of the
pyproject.toml found from the working directory.
"""


def parse_diff_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="openprogram-tui diff",
        description="Compare two recordings call by call: requests side by side, answers as answers.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("a", metavar="A", help="the first recording (path or managed ID)")
    parser.add_argument("b", metavar="B", help="the second recording (path or managed ID)")
    themes = parser.add_mutually_exclusive_group()
    themes.add_argument("--light", action="store_true", help="start with the light theme")
    themes.add_argument("--dark", action="store_true", help="start with the dark theme")
    return parser.parse_args(list(argv))


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
