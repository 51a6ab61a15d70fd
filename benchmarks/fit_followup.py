"""Fit the follow-up detector (``rea_core/retrieval/followup.py``) and measure it on held-out families.

Positives are the follow-up turns of the development files (the turn carrying ``needed``); negatives
are every other user turn of the same conversations, which the benchmark builders chose to be
standalone (no word that points back, no reaction opener). The logistic weights and a threshold
chosen for recall on the development data are written to ``rea_core/data/followup_detector.json``.
Then the detector is measured on the test files (phrasing families never used for fitting),
beside the phrase rules it replaced (``OLD_RULES`` below, kept here only for that comparison).

Run:
    .venv/bin/python benchmarks/fit_followup.py \
        --dev benchmarks/data/followups/dev-short.jsonl benchmarks/data/backrefs.jsonl \
        --test benchmarks/data/followups/test-short.jsonl [--locomo ../shared/locomo-dev] [--write]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from rea_core.retrieval.followup import FEATURES, follow_up_features

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "rea_core" / "data" / "followup_detector.json"
TARGET_RECALL = 0.93

# The phrase rules the detector replaced (last release), for the comparison only.
_OLD_ANAPHORA = re.compile(
    r"\b(it|its|them|they|those|these|that one|this one|the (first|second"
    r"|third|fourth|fifth|last|other|same|previous|above|former|latter)\b"
    r"|the (one|ones|list|idea|ideas|names|options|answer|code|text|story|poem|recipe|email|example|version|plan)\b"
    r"|(first|second|third|last) (one|option|idea|name|point)|#\d|number \d"
    r"|option \d|same (for|with|but|thing)|as well|too|instead|again|more|less"
    r"|you (said|mentioned|gave|suggested|wrote|told)|earlier|before|above|previous)\b",
    re.IGNORECASE,
)
_OLD_EDIT = re.compile(
    r"^\s*(make|turn|rewrite|rephrase|shorten|expand|translate|change|add|remove|drop|double|halve|simplify|summari[sz]e|explain|continue|"
    r"elaborate|fix|redo|try|give me (another|more|a different)|can you (make|add|translate"
    r"|shorten|change|rewrite|do)|what about|how about|and\b|also\b|ok(ay)?,? (now|and)|now\b)",
    re.IGNORECASE,
)


def old_rules(text: str) -> bool:
    words = text.split()
    if not words:
        return False
    if _OLD_EDIT.search(text) or _OLD_ANAPHORA.search(text):
        return True
    return (
        len(words) <= 5
        and text.rstrip().endswith("?")
        and not re.match(r"^\s*(who|what|when|where|why|how|which|is|are|do|does|can)\b(?! about)", text, re.I)
    )


def messages(paths) -> tuple[list[str], list[str], list[str]]:
    """(follow-ups, standalone messages, the follow-ups' families) from conversation JSONL files with ``needed``."""
    follow, alone, families = [], [], []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for turn in row["turns"]:
                if "needed" in turn:
                    follow.append(turn["user"])
                    families.append(row.get("family") or row.get("kind") or "?")
                else:
                    alone.append(turn["user"])
    return follow, list(dict.fromkeys(alone)), families


def _shown(path: str) -> str:
    full = Path(path).resolve()
    return str(full.relative_to(ROOT)) if full.is_relative_to(ROOT) else path


def rates(predict, follow, alone) -> tuple[float, float]:
    return float(np.mean([predict(t) for t in follow])), float(np.mean([predict(t) for t in alone]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", nargs="+", required=True)
    parser.add_argument("--test", nargs="+", required=True)
    parser.add_argument(
        "--locomo", help="a LoCoMo folder: the share of its questions read as follow-ups (all standalone)"
    )
    parser.add_argument("--write", action="store_true", help=f"write the fitted detector to {OUT.relative_to(ROOT)}")
    args = parser.parse_args()

    follow, alone, _ = messages(args.dev)
    X = np.stack([follow_up_features(t) for t in follow + alone])
    y = np.array([1] * len(follow) + [0] * len(alone))
    model = LogisticRegression(C=1.0, class_weight="balanced", fit_intercept=False, max_iter=2000).fit(X, y)
    weights = model.coef_[0]
    prob = 1 / (1 + np.exp(-(X @ weights)))
    pos = np.sort(prob[: len(follow)])
    threshold = float(
        pos[int(np.floor((1 - TARGET_RECALL) * len(pos)))]
    )  # the highest keeping TARGET_RECALL of dev follow-ups
    detect = lambda t: 1 / (1 + np.exp(-(follow_up_features(t) @ weights))) >= threshold  # noqa: E731
    print(f"dev: {len(follow)} follow-ups, {len(alone)} standalone; threshold {threshold:.3f}")
    for name, w in zip(FEATURES, weights):
        print(f"  {name:24s} {w:+.3f}")
    for label, paths in (("dev", args.dev), ("test (held-out families)", args.test)):
        f, a, fam = messages(paths)
        new_r, new_fp = rates(detect, f, a)
        old_r, old_fp = rates(old_rules, f, a)
        print(
            f"{label}: detector recall {new_r:.3f}, false alarms {new_fp:.3f} "
            f"| old rules recall {old_r:.3f}, false alarms {old_fp:.3f}"
        )
        for family in sorted(set(fam)):
            texts = [t for t, g in zip(f, fam) if g == family]
            print(
                f"    {family:24s} n={len(texts):3d}  detector {np.mean([detect(t) for t in texts]):.2f}  "
                f"old {np.mean([old_rules(t) for t in texts]):.2f}"
            )
        missed_old = [t for t in f if detect(t) and not old_rules(t)]
        print(f"  caught by the detector, missed by the old rules ({len(missed_old)}): {missed_old[:8]}")
    if args.locomo:
        from rea_core.evals.retrieval import load_locomo

        questions = [q.text for case in load_locomo(args.locomo) for q in case.queries]
        print(
            f"LoCoMo questions read as follow-ups: detector {np.mean([detect(q) for q in questions]):.3f}, "
            f"old rules {np.mean([old_rules(q) for q in questions]):.3f} (n={len(questions)})"
        )
    if args.write:
        OUT.write_text(
            json.dumps(
                {
                    "features": list(FEATURES),
                    "weights": [round(float(w), 4) for w in weights],
                    "threshold": round(threshold, 4),
                    "target_recall": TARGET_RECALL,
                    "fitted_on": [_shown(p) for p in args.dev],
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
