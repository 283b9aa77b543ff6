"""How rows are encoded and decoded: the stdlib encoder and pydantic-core (today) beside orjson and
msgspec, per row of a typical recording (issue #33: "measure, choose, say why").

orjson and msgspec are not dependencies: install them into the environment to compare
(`pip install orjson msgspec`); a missing one is skipped. Both write NaN as `null` without a word,
which the recording refuses (docs/recording-format.md#numbers), so they would need a walk of every
value before encoding.

    python bench/row_codecs.py
"""

from __future__ import annotations

import importlib
import json
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import banner, recording_bytes

from openprogram.providers.recording.row_encoding import encode_row
from openprogram.providers.recording.row_models import ROW_ADAPTER, parse_row


def per_row(fn: Callable[[], Any], rows: int) -> float:
    return min(timeit.repeat(fn, number=5, repeat=5)) / 5 / rows * 1e6


def main() -> None:
    banner("row codecs: µs per row, encode and decode")
    lines = recording_bytes(20, 50).splitlines()[1:]
    rows = [json.loads(line) for line in lines]
    count = len(lines)
    print(f"   {count} rows of {sum(map(len, lines)) / count:.0f} bytes on average")
    figures = {
        "encode  stdlib json (encode_row, today)": lambda: [encode_row(r) for r in rows],
        "decode  pydantic-core validate_json strict (parse_row, today)": lambda: [
            parse_row(line) for line in lines
        ],
        "decode  json.loads (no validation)": lambda: [json.loads(line) for line in lines],
    }
    try:
        orjson: Any = importlib.import_module("orjson")
        option = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
        figures["encode  orjson OPT_SORT_KEYS"] = lambda: [
            orjson.dumps(r, option=option) for r in rows
        ]
        figures["decode  orjson.loads + validate_python strict"] = lambda: [
            ROW_ADAPTER.validate_python(orjson.loads(line), strict=True) for line in lines
        ]
    except ImportError:
        print("   orjson not installed: skipped")
    try:
        msgspec: Any = importlib.import_module("msgspec")
        encoder = msgspec.json.Encoder(order="sorted")
        figures["encode  msgspec order=sorted"] = lambda: [encoder.encode(r) for r in rows]
        figures["decode  msgspec.json.decode (no validation)"] = lambda: [
            msgspec.json.decode(line) for line in lines
        ]
    except ImportError:
        print("   msgspec not installed: skipped")
    for name, fn in figures.items():
        print(f"   {name:64s} {per_row(fn, count):6.2f} µs/row")


if __name__ == "__main__":
    main()
