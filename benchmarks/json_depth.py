"""Benchmark: time and peak extra memory of ``validation.json_depth``, the nesting check every JSON
file passes before it is decoded (``parse_json``).

Why: the check runs on every upload and CLI file before ``json.loads``, so its own memory must not
be a multiple of the file's. Peak memory is what tracemalloc sees allocated during the call (numpy
reports its buffers to it), over the input text itself, which is built before tracing starts.

Inputs (each about ``--mb`` MB of text): a LoCoMo-like file of many short strings and objects,
one huge string (a single 120-million-character turn, scaled), strings full of escaped quotes and
backslashes, brackets inside strings, and non-ASCII text.

Run: .venv/bin/python benchmarks/json_depth.py [--mb 20] [--chunk-chars 262144]
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc

from rea_core.validation import json_depth


def inputs(mb: float) -> dict[str, str]:
    size = int(mb * 2**20)
    turn = {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Miso [photo] {ok}."}
    many = json.dumps({"session_1": [turn] * (size // len(json.dumps(turn)))})
    return {
        "many small strings": many,
        "one huge string": json.dumps({"id": "c", "turns": [{"user": "x" * size}]}),
        "escapes": json.dumps(['a\\"[{' * 8] * (size // 60)),
        "brackets in strings": json.dumps(["[[[{{{" * 10] * (size // 64)),
        "non-ASCII": json.dumps({"t": ["Ça coûte 5 €, 猫の名前は[ミソ]。"] * (size // 30)}, ensure_ascii=False),
        "deep nesting": "[" * (size // 2) + "]" * (size // 2),
    }


def measure(text: str, **kwargs) -> tuple[int, float, float]:
    """(depth, seconds, peak extra MB) of one call."""
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        depth = json_depth(text, **kwargs)
        seconds = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return depth, seconds, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0, help="size of each input, in MB of text")
    parser.add_argument("--chunk-chars", type=int, default=None, help="json_depth's window (default: its own)")
    args = parser.parse_args()
    kwargs = {} if args.chunk_chars is None else {"chunk_chars": args.chunk_chars}
    print(f"{'input':22s} {'MB':>6s} {'depth':>9s} {'seconds':>8s} {'peak MB':>8s}")
    for name, text in inputs(args.mb).items():
        depth, seconds, peak = measure(text, **kwargs)
        print(f"{name:22s} {len(text) / 2**20:6.1f} {depth:9,d} {seconds:8.3f} {peak:8.1f}")
        del text


if __name__ == "__main__":
    main()
