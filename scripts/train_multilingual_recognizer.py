#!/usr/bin/env python
"""Fit the recognizer's word-class models on the hard set's dev half (issue 26): multilingual, or English.

Reads rea_core/data/recognizer_hard.jsonl (dev rows in fr/de/es/it/pt only; the test half is never
read), chooses the regularization and threshold by cross-validation grouped by template family,
prints each step, and writes rea_core/data/recognizer_multilingual.json with its provenance. With
--english: the English second opinion from the English dev rows and the label set's train split
(rea_core/data/recognizer_train.jsonl): a LoRA adapter fine-tuned on the packaged MiniLM (about 15
minutes on two CPU cores, progress printed), then the word-class model on its vectors, thresholds set on
the newest authoring round held out (--calibration-round); written to
rea_core/data/recognizer_english_word_classes.json and rea_core/adapters/recognizer-english-minilm/ (with
--out, the adapter goes next to that file).

Usage:
    .venv/bin/python scripts/train_multilingual_recognizer.py [--english [--calibration-round t9]] [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rea_core.recognizer.hard_set import load_hard_set  # noqa: E402
from rea_core.recognizer.multilingual import ENGLISH_MODEL, MULTILINGUAL_MODEL  # noqa: E402
from rea_core.training.english_adapter import ADAPTER_DIR, train_english_adapter  # noqa: E402
from rea_core.training.multilingual import train_multilingual  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="where to write the model (default: the shipped file in rea_core/data/)")
    parser.add_argument(
        "--english",
        action="store_true",
        help="fit the English word-class model instead (the hard set's English dev rows and the label set's train "
        "split; loads the packaged embedder to see what the recognizer decides without it)",
    )
    parser.add_argument(
        "--calibration-round",
        default="t9",
        help="with --english: id prefix of the hard set's authoring round held out to set the thresholds (the newest)",
    )
    args = parser.parse_args()
    if args.english:
        from rea_core.backends import load_embedder
        from rea_core.recognizer import InstructionRecognizer
        from rea_core.recognizer.default import data_path, load_default_recognizer, load_label_set

        embedder = load_embedder("packaged")
        without = InstructionRecognizer(
            None, trained=load_default_recognizer(), embedder=embedder, use_english_words=False
        )
        label_rows = load_label_set(data_path("recognizer_train.jsonl"))
        out = args.out or str(ROOT / "rea_core" / "data" / ENGLISH_MODEL)
        model, report = train_english_adapter(
            load_hard_set(),
            label_rows,
            without,
            "packaged",
            Path(out).parent / ADAPTER_DIR if args.out else ROOT / "rea_core" / "adapters" / ADAPTER_DIR,
            calibration_round=args.calibration_round,
        )
    else:
        model, report = train_multilingual(load_hard_set())
        out = args.out or str(ROOT / "rea_core" / "data" / MULTILINGUAL_MODEL)
    model.save(out)
    print(f"wrote {out}: {report['rows']} rows ({report['units']} units, {report['families']} families)")
    for lang, m in report.get("cv", {}).get("by_language", {}).items():
        print(f"  {lang}: out-of-fold P {m['precision']:.3f} R {m['recall']:.3f} on {m['n']} rows")


if __name__ == "__main__":
    main()
