"""`recordings import` of a 100 MB OTLP/JSON trace (issue #44): memory bounded, time against json.

The trace is an agent session of the shape users have (`tests/otlp_traces.py`): 220 inference
spans, each carrying the whole conversation so far, 4 KB tool results, 105 MB. Each figure is one
fresh process, its peak RSS from `wait4`:

- `json.load` of the whole trace (the baseline: what reading it at once costs, nothing converted);
- a stream of its spans with ijson (`ijson.items`, the import's parser, nothing converted);
- `openprogram recordings import TRACE --name big --quiet` (parse, rebuild every request and answer,
  redact, write the recording).

Targets: the import's peak RSS ≤ 0.5× `json.load`'s (bounded: the largest span, not the file);
its time ≤ 20× `json.load`'s (every span rebuilds the whole conversation it carries).

    python bench/otlp_import.py [--quick] [--runs N]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from _common import REPO_ROOT, banner, median, parse_args, scratch_dir, verdict

from tests.otlp_traces import write_agent_trace
from tests.peak_memory import peak_rss


def run(argv: list[str], home: Path) -> tuple[float, int]:
    """Seconds and peak RSS (bytes) of one fresh process."""
    path = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(REPO_ROOT)]))
    env = {**os.environ, "OPENPROGRAM_HOME": str(home), "PYTHONPATH": path}
    started = time.perf_counter()
    peak, code = peak_rss(argv, env=env, cwd=REPO_ROOT)  # measured from a small process
    seconds = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return seconds, peak


def main() -> None:
    args = parse_args(__doc__)
    runs = args.runs or (1 if args.quick else 3)
    calls = 100 if args.quick else 220
    banner("recordings import of an OTLP/JSON trace")
    with scratch_dir("otlp") as scratch:
        trace = write_agent_trace(scratch / "trace.json", calls=calls, result_bytes=4096)
        size = trace.stat().st_size
        print(f"   trace: {calls} spans, {size / 1e6:.1f} MB")
        load = f"import json; json.load(open({str(trace)!r}, 'rb'))"
        stream = (
            "import ijson\n"
            f"for _ in ijson.items(open({str(trace)!r}, 'rb'), "
            "'resourceSpans.item.scopeSpans.item.spans.item', use_float=True): pass"
        )
        figures: dict[str, list[tuple[float, int]]] = {"json": [], "ijson": [], "import": []}
        for number in range(runs):
            home = scratch / f"home-{number}"
            figures["json"].append(run([sys.executable, "-c", load], home))
            figures["ijson"].append(run([sys.executable, "-c", stream], home))
            command = ["-m", "openprogram", "recordings", "import", str(trace)]
            figures["import"].append(
                run([sys.executable, *command, "--name", "big", "--quiet"], home)
            )
            written = (home / "recordings" / "big.jsonl").stat().st_size
        seconds = {name: median([s for s, _ in values]) for name, values in figures.items()}
        peaks = {name: max(p for _, p in values) for name, values in figures.items()}
        for name in figures:
            print(f"   {name:7} {seconds[name]:7.2f} s   peak RSS {peaks[name] / 1e6:7.1f} MB")
        print(f"   recording written: {written / 1e6:.1f} MB")
        print(
            f"TARGET memory: import peak / json.load peak: {verdict(peaks['import'] / peaks['json'], 0.5)}"
        )
        print(
            f"TARGET time: import / json.load: {verdict(seconds['import'] / seconds['json'], 20)}"
        )


if __name__ == "__main__":
    main()
