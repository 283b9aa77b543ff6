"""Target 5: `recordings list` over 200 recordings totalling 1 GB ≤ 3× reading those bytes once.

A managed recordings root (`$OPENPROGRAM_HOME/recordings`, in a temporary directory) is filled
with 200 valid recordings of ~5 MB each (calls with a ~1 KB request and 50 streamed events), then
left alone until their timestamps are past the summary cache's racy window (~2 s).

- baseline: read every file's bytes once (`Path.read_bytes()` of each, in list order);
- cold list: `list_recordings()` with an empty summary cache, once: one strict scan per file
  (ID, created, calls, events, size, validity and the first problem), and the cache written;
- warm list: `list_recordings()` again, what users run repeatedly: every file unchanged, so its
  facts come from the cache (one `lstat` per file); the active marker is still read fresh.

The target judges the warm listing; the cold ratio is printed beside it. Both in this process,
files in the page cache (just written), medians of `--runs` (default 5) for the baseline and the
warm listing. The command itself (`python -m openprogram recordings list --json`, a fresh process
with its imports) is timed warm, median of 3, beside `openprogram --version` (the same
start and imports, no listing).

    python bench/recordings_list.py [--quick] [--runs N] [--files N] [--megabytes-each N]
"""

from __future__ import annotations

import os
import statistics
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
    timed,
    verdict,
    write_private,
)

RACY_WINDOW_WAIT = 2.5
"""Seconds to wait after writing: the cache never keeps a file changed within ~2 s of a listing."""


def main() -> None:
    def options(parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--files", type=int, default=None)
        parser.add_argument("--megabytes-each", type=float, default=5.0)

    args = parse_args(__doc__, options)
    files = args.files or (40 if args.quick else 200)
    runs = args.runs or (3 if args.quick else 5)
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
        time.sleep(RACY_WINDOW_WAIT)

        from openprogram.recordings import list_recordings

        def baseline() -> None:
            for path in paths:
                path.read_bytes()

        listings = []

        def listing() -> None:
            result = list_recordings()
            assert len(result.recordings) == files and all(r.facts.valid for r in result.recordings)
            listings.append(result)

        # The files were just written, so they are in the page cache: the cold listing needs no
        # warm-up (and gets exactly one run: after it the cache is filled).
        cold = timed(listing)
        times = alternate(runs, warmup=True, baseline=baseline, warm=listing)
        assert all(result == listings[0] for result in listings), "warm listing differs from cold"
        read_once = times["baseline"]
        print(
            f"   baseline: read every file once   {ms(read_once)} ({total / read_once / 1e9:.2f} GB/s)"
        )
        print(f"   cold list_recordings() (1 run)   {ms(cold)} ({total / cold / 1e9:.2f} GB/s)")
        print(f"   warm list_recordings()           {ms(times['warm'])}")
        command, exit_codes = time_command("recordings", "list", "--json")
        start_only, _ = time_command("--version")
        print(
            f"   `openprogram recordings list --json` (fresh process, warm cache) {ms(command)}, "
            f"exit {'/'.join(sorted(set(exit_codes)))}"
        )
        print(
            f"   `openprogram --version` (the same start and imports, no listing) {ms(start_only)}"
        )
        print(
            f"   cold (empty cache, strict scan of every file) / read once: ratio {cold / read_once:.2f}"
        )
        print(f"   TARGET 5: warm list / read once {verdict(times['warm'] / read_once, 3.0)}")


def time_command(*words: str, runs: int = 3) -> tuple[float, list[str]]:
    """Median seconds of `python -m openprogram WORDS…` in fresh processes, and the exit codes."""
    samples, exit_codes = [], []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "openprogram", *words],
            capture_output=True,
            env={**os.environ},
            stdin=subprocess.DEVNULL,
        )
        samples.append(time.perf_counter() - start)
        exit_codes.append(str(done.returncode))
    return statistics.median(samples), exit_codes


if __name__ == "__main__":
    main()
