"""How many times `check ID -- CMD` opens the recording, in the parent and in the child.

An audit hook on `open` (`sys.addaudithook`) counts the opens of the recording file: in this
process around `run_check`, and in the child through a `sitecustomize` that installs the same hook
and appends each open to a log. Run: `python bench/check_reads.py`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(os.environ.get("CHECK_READS_REPO") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(REPO))

CHILD_HOOK = """
import os, sys
_target, _log = os.environ["COUNT_READS_OF"], os.environ["COUNT_READS_LOG"]
def _hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        if os.fsdecode(args[0]).endswith(_target):
            with open(_log, "a") as log:
                log.write("open\\n")
sys.addaudithook(_hook)
"""


def main() -> None:
    """Print the parent's and the child's opens of the recording during one check."""
    from openprogram.recordings.check import run_check
    from tests.recording_files import write_recording

    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        os.environ["OPENPROGRAM_HOME"] = str(root / "home")
        recording = write_recording(root / "counted.jsonl", said=("hi", "there"))
        site = root / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(CHILD_HOOK)
        log = root / "child.log"
        os.environ.update(
            COUNT_READS_OF="counted.jsonl",
            COUNT_READS_LOG=str(log),
            # the tree PYTHONPATH names (before/after) before this one
            PYTHONPATH=os.pathsep.join(
                filter(None, [str(site), os.environ.get("PYTHONPATH"), str(REPO)])
            ),
        )
        parent = 0

        def hook(event: str, args: tuple[Any, ...]) -> None:
            nonlocal parent
            if event == "open" and isinstance(args[0], str | bytes | os.PathLike):
                parent += os.fsdecode(args[0]).endswith("counted.jsonl")

        sys.addaudithook(hook)
        program = "from openprogram.providers import stream; import openprogram.providers as p; p.get_api_provider('scripted')"
        run_check(str(recording), [sys.executable, "-c", program])
        child = len(log.read_text().splitlines()) if log.exists() else 0
        print(f"check ID -- CMD: parent opened the recording {parent}x, child {child}x")


if __name__ == "__main__":
    main()
