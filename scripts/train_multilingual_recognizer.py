#!/usr/bin/env python
"""Fit the recognizer's multilingual stage 2 on the hard set's dev half (issue 26).

Reads rea_core/data/recognizer_hard.jsonl (dev rows in fr/de/es/it/pt only; the test half is never
read), chooses the regularization and threshold by cross-validation grouped by template family,
prints each step, and writes rea_core/data/recognizer_multilingual.json with its provenance.

Usage:
    .venv/bin/python scripts/train_multilingual_recognizer.py [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rea_core.recognizer.hard_set import load_hard_set  # noqa: E402
from rea_core.recognizer.multilingual import MULTILINGUAL_MODEL  # noqa: E402
from rea_core.training.multilingual import train_multilingual  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "rea_core" / "data" / MULTILINGUAL_MODEL))
    args = parser.parse_args()
    model, report = train_multilingual(load_hard_set())
    model.save(args.out)
    print(f"wrote {args.out}: {report['rows']} rows ({report['units']} units, {report['families']} families)")
    for lang, m in report["cv"]["by_language"].items():
        print(f"  {lang}: out-of-fold P {m['precision']:.3f} R {m['recall']:.3f} on {m['n']} rows")


if __name__ == "__main__":
    main()
