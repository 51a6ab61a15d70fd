"""Instruction Recognizer benchmark: gate recall, precision/recall of the default, per-input time.

    .venv/bin/python benchmarks/recognizer.py              # gate + shipped trained default + rules only + timing
    .venv/bin/python benchmarks/recognizer.py --llm        # also the few-shot SmolLM2-135M stage 2 (slow)

Sets: the held-out split of rea_core/data/recognizer_train.jsonl (never used for fitting or the
threshold), its validation-set part (the held-out half of rea_core/data/recognizer_validation.jsonl),
the 90 fresh hand-written inputs (rea_core/data/recognizer_fresh_test.jsonl), and, for the gate,
every labeled set in the repository. Metrics are for the class global on the whole recognizer as
REA runs it (``rea_core.recognizer.metrics.evaluate_recognizer``: stage 1, then stage 2 where stage 1 defers).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rea_core.recognizer import OTHER, REVOKE, InstructionRecognizer, build_recognizer, rule_stage  # noqa: E402
from rea_core.recognizer.default import LabeledInput, load_label_set  # noqa: E402
from rea_core.recognizer.metrics import evaluate_recognizer  # noqa: E402

LABELED = {
    "validation (387)": "rea_core/data/recognizer_validation.jsonl",
    "examples (90)": "examples/annotations/recognizer_train_labels.jsonl",
    "fresh hand-written (90)": "rea_core/data/recognizer_fresh_test.jsonl",
    "training label set (all)": "rea_core/data/recognizer_train.jsonl",
}


def gate_report() -> None:
    print("## Gate (stage 1 alone): share of true globals it does not stop")
    print("| set | globals | passed | pass rate | non-globals sent to stage 2 |\n| --- | ---: | ---: | ---: | ---: |")
    for name, path in LABELED.items():
        rows = load_label_set(ROOT / path)
        globals_ = [r.text for r in rows if r.label == "global"]
        passed = sum(rule_stage(t)[0] not in (OTHER, REVOKE) for t in globals_)
        others = [r.text for r in rows if r.label != "global"]
        deferred = sum(rule_stage(t)[0] is None for t in others)
        print(f"| {name} | {len(globals_)} | {passed} | {passed / len(globals_):.3f} | {deferred / len(others):.3f} |")


def _row(name: str, set_name: str, rows: list[LabeledInput], recognizer: InstructionRecognizer) -> str:
    m = evaluate_recognizer(recognizer, [r.text for r in rows], [r.label for r in rows])
    (tn, fp), (fn, tp) = m["confusion"]
    return (
        f"| {name} | {set_name} | {m['n']} ({m['positives']}) | {m['precision']:.3f} "
        f"| {m['recall']:.3f} | {m['f1']:.3f} | {tp} / {fp} / {fn} / {tn} |"
    )


def metrics_report(embedder, with_llm: bool) -> None:
    from rea_core.recognizer.default import load_default_recognizer

    model = load_default_recognizer()
    label_set = load_label_set(ROOT / "rea_core/data/recognizer_train.jsonl")
    sets = {
        "label set, held-out split": [r for r in label_set if r.split == "heldout"],
        "validation, held-out half": [r for r in label_set if r.split == "heldout" and r.source == "validation"],
        "fresh hand-written": load_label_set(ROOT / "rea_core/data/recognizer_fresh_test.jsonl"),
    }
    print(f"\n## Precision / recall of the class global (threshold {model.threshold:.3f})")
    print(
        "| recognizer | set | n (global) | precision | recall | F1 | TP "
        "/ FP / FN / TN |\n| --- | --- | ---: | ---: | ---: | ---: | --- |"
    )
    rules_only, default = InstructionRecognizer(None), InstructionRecognizer(None, trained=model, embedder=embedder)
    for set_name, rows in sets.items():
        print(_row("rules only", set_name, rows, rules_only))
        print(_row("**gate + shipped trained (default)**", set_name, rows, default))
    if with_llm:
        from rea_core.backends import load_generator

        llm = InstructionRecognizer(load_generator("packaged"))
        for set_name, rows in list(sets.items())[1:]:  # the 660-row split would take ~10 minutes of LLM calls
            print(_row("gate + few-shot SmolLM2-135M", set_name, rows, llm))


def timing_report(embedder, repeats: int) -> None:
    recognizer = build_recognizer(None, embedder)
    texts = [r.text for r in load_label_set(ROOT / "rea_core/data/recognizer_fresh_test.jsonl")]
    for t in texts[:5]:
        recognizer.recognize(t)  # warm-up: first calls import scikit-learn and fill caches
    all_ms, deferred_ms = [], []
    for _ in range(repeats):
        for t in texts:
            start = time.perf_counter()
            verdict = recognizer.recognize(t)
            ms = (time.perf_counter() - start) * 1000
            all_ms.append(ms)
            if verdict.stage == "trained":
                deferred_ms.append(ms)
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
    print(
        f"\n## Per-input time of the default recognizer ({repeats} x "
        f"{len(texts)} fresh inputs, one at a time, CPU threads {os.cpu_count()})"
    )
    print("| inputs | calls | median ms | p95 ms |\n| --- | ---: | ---: | ---: |")
    print(f"| all | {len(all_ms)} | {statistics.median(all_ms):.2f} | {q(all_ms, 0.95):.2f} |")
    print(
        f"| decided by the trained stage 2 | {len(deferred_ms)} | "
        f"{statistics.median(deferred_ms):.2f} | {q(deferred_ms, 0.95):.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--llm",
        action="store_true",
        help="also measure the few-shot SmolLM2-135M stage 2 on the validation half and the fresh set (slow)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timing passes over the fresh set")
    args = parser.parse_args()
    from rea_core.backends import load_embedder

    gate_report()
    embedder = load_embedder("packaged")
    metrics_report(embedder, args.llm)
    timing_report(embedder, args.repeats)


if __name__ == "__main__":
    main()
