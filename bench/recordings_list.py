"""Target 5: `recordings list` over 200 recordings totalling 1 GB ≤ 3× reading those bytes once.

A managed recordings root (`$OPENPROGRAM_HOME/recordings`, in a temporary directory) is filled
with 200 valid recordings of ~5 MB each (calls with a ~1 KB request and 50 streamed events).

- baseline: read every file's bytes once (`Path.read_bytes()` of each, in list order);
- list: `list_recordings()`, what `openprogram recordings list` prints (one scan per file:
  ID, created, calls, events, size, validity and the first problem, the active marker).

Both in this process, files in the page cache (just written), medians of `--runs` (default 2:
one full listing of 1 GB takes ~45 s here).
The command itself (`python -m openprogram recordings list --json`, a fresh process with its
imports) is timed once for reference.

    python bench/recordings_list.py [--quick] [--runs N] [--files N] [--megabytes-each N]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from _common import (
    alternate,
    banner,
    ms,
    parse_args,
    recording_bytes,
    scratch_dir,
    verdict,
    write_private,
)


def main() -> None:
    def options(parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--files", type=int, default=None)
        parser.add_argument("--megabytes-each", type=float, default=5.0)

    args = parse_args(__doc__, options)
    files = args.files or (40 if args.quick else 200)
    runs = args.runs or 2
    banner(f"recordings_list: {files} recordings of ~{args.megabytes_each:g} MB, median of {runs}")
    with scratch_dir("list") as root:
        home = root / "home"
        managed = home / "recordings"
        managed.mkdir(parents=True, mode=0o700)
        os.environ["OPENPROGRAM_HOME"] = str(home)
        sample = recording_bytes(100, 46)
        calls = max(1, int(args.megabytes_each * 1e6 / len(sample) * 100))
        data = recording_bytes(calls, 46)
        paths = [write_private(managed / f"session-{n:03d}.jsonl", data) for n in range(files)]
        total = sum(path.stat().st_size for path in paths)
        print(f"   {files} files, {total / 1e9:.2f} GB, {calls} calls each")

        from openprogram.recordings import list_recordings

        def baseline() -> None:
            for path in paths:
                path.read_bytes()

        def listing() -> None:
            result = list_recordings()
            assert len(result.recordings) == files and all(r.valid for r in result.recordings)

        # The files were just written, so they are in the page cache: no warm-up round (a full
        # listing of 1 GB takes long enough as it is).
        times = alternate(runs, warmup=False, baseline=baseline, list=listing)
        print(
            f"   baseline: read every file once   {ms(times['baseline'])} "
            f"({total / times['baseline'] / 1e9:.2f} GB/s)"
        )
        print(
            f"   list_recordings()                {ms(times['list'])} "
            f"({total / times['list'] / 1e9:.2f} GB/s)"
        )
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "openprogram", "recordings", "list", "--json"],
            capture_output=True,
            env={**os.environ},
            stdin=subprocess.DEVNULL,
        )
        command = time.perf_counter() - start
        print(
            f"   `openprogram recordings list --json` (fresh process) {ms(command)}, "
            f"exit {done.returncode}"
        )
        print(f"   TARGET 5: list / read once {verdict(times['list'] / times['baseline'], 3.0)}")


if __name__ == "__main__":
    main()
