"""Turn Textual SVG snapshots into PNGs to look at, spaced as the terminal shows them.

    python scripts/snapshot_pngs.py OUT_DIR SVG...        # e.g. tests/tui/__snapshots__/**/*.svg

Rich writes each run of same-styled text as one `<text>` whose spaces are `&#160;`. `rsvg-convert`
drops the leading ones of a run unless the document says `xml:space="preserve"`, so a row read
`thinking_deltaonce` or `contentthe only difference` in a PNG while the terminal (and a browser)
showed the gap. This adds the attribute to a copy and converts it; the snapshot is not changed.
Needs `rsvg-convert` (Debian: librsvg2-bin).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def spaced(svg: str) -> str:
    """`svg` with `xml:space="preserve"` on its root element, so no renderer collapses spaces."""
    if 'xml:space="preserve"' in svg:
        return svg
    return svg.replace("<svg ", '<svg xml:space="preserve" ', 1)


def convert(svg: Path, out_dir: Path) -> Path:
    """Write `out_dir/NAME.png` for the snapshot `svg`; returns its path."""
    target = out_dir / f"{svg.stem}.png"
    with tempfile.NamedTemporaryFile("w", suffix=".svg", dir=out_dir, delete=False) as copy:
        copy.write(spaced(svg.read_text(encoding="utf-8")))
    try:
        subprocess.run(["rsvg-convert", copy.name, "-o", str(target)], check=True)
    finally:
        Path(copy.name).unlink()
    return target


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    if shutil.which("rsvg-convert") is None:
        print("rsvg-convert not found (Debian: apt install librsvg2-bin)", file=sys.stderr)
        return 2
    out_dir = Path(argv[0])
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in argv[1:]:
        print(convert(Path(name), out_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
