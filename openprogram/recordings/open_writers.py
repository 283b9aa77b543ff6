"""Which other processes have a recording open for writing: a rewrite (accept, rerecord, restore,
a rule edit in the header) replaces the file, so a program still recording into it would write its
next calls into the replaced one and lose them. Rewrites refuse while any is found.

Read from Linux's `/proc/PID/fd` (which file each descriptor is) and `/proc/PID/fdinfo` (its open
flags): only our own user's processes can be read, which are the only ones that can open a 0600
recording. Elsewhere nothing is found (no refusal).
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _opened_for_writing(pid: str, fd: str) -> bool:
    for line in (PROC / pid / "fdinfo" / fd).read_text().splitlines():
        if line.startswith("flags:"):
            return int(line.split()[1], 8) & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR)
    return False


def writing_processes(path: Path) -> list[int]:
    """The other processes holding `path` (its inode) open for writing, by pid."""
    try:
        target = os.stat(path)
    except OSError:
        return []
    if not PROC.is_dir():
        return []
    found = []
    own = str(os.getpid())
    for pid in os.listdir(PROC):
        if not pid.isdigit() or pid == own:
            continue
        try:
            for fd in os.listdir(PROC / pid / "fd"):
                info = os.stat(PROC / pid / "fd" / fd)
                same = (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino)
                if same and _opened_for_writing(pid, fd):
                    found.append(int(pid))
                    break
        except OSError:
            continue  # ended meanwhile, or not ours to read
    return found


def being_written(path: Path) -> str | None:
    """Why `path` must not be replaced now (a process records into it), or None."""
    pids = writing_processes(path)
    if not pids:
        return None
    names = ", ".join(str(pid) for pid in pids)
    return (
        f"it is being written by process {names}; a rewrite now would lose that program's next "
        "calls: try again once it ends"
    )
