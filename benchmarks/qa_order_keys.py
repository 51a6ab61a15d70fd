"""Benchmark: which score should order REA's kept exchanges, measured without generation.

On the shipped model an answer's NLL depends most on how near the question its evidence stands
(``qa_evidence_position.py``: gap share 0.815 when it is the last exchange before the question, 0.249
when more than ten kept exchanges stand between). REA lays out its kept exchanges by score, the best
nearest the question (``prompt_layout.anchored_order``). This script re-lays out the same kept
exchanges by other keys (what is kept does not change) and prints, over the questions whose evidence
is all kept, how many kept exchanges stand between the question and its nearest evidence:

* ``shipped``: the hybrid score HCR decides with;
* ``sentence``: the best sentence-pair cosine (``scorer="sentence"``);
* ``rrf_hybrid_bm25``, ``rrf_hybrid_sentence``, ``rrf_all``: reciprocal-rank fusion (k=60) of those
  and BM25 over the kept exchanges.

Run on tune conversations only (BENCHMARKS, "Answers": 30, 41 and 42):
    .venv/bin/python benchmarks/qa_order_keys.py --data ../shared/locomo-dev --cases 30,41,42
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rea_core import REAConfig, RuntimeConfig  # noqa: E402
from rea_core.evals.qa.prompts import question_session  # noqa: E402
from rea_core.evals.retrieval import CachedEmbedder, load_locomo  # noqa: E402
from rea_core.loading import load_models  # noqa: E402
from rea_core.methods.rea.strategy import REAStrategy  # noqa: E402
from rea_core.methods.secom.retriever import bm25_scores  # noqa: E402
from rea_core.prompt_layout import anchored_order, is_kept_exchange  # noqa: E402

KEYS = ("shipped", "sentence", "rrf_hybrid_bm25", "rrf_hybrid_sentence", "rrf_all")


def ranks(values) -> np.ndarray:
    order = np.argsort(-np.asarray(values, dtype=np.float64), kind="stable")
    out = np.empty(len(order), dtype=np.int64)
    out[order] = np.arange(len(order))
    return out


def fused(*score_lists) -> np.ndarray:
    return sum(1.0 / (60 + ranks(s)) for s in score_lists)


def evidence_distance(segments, key: dict[int, float], needed) -> int:
    """Kept exchanges between the question and the nearest of ``needed`` when ordered by ``key``."""
    rekeyed = [replace(s, score=float(key[s.turn])) if is_kept_exchange(s) else s for s in segments]
    order = [s.turn for s in anchored_order(rekeyed, ()) if is_kept_exchange(s)]
    return len(order) - 1 - max(order.index(n) for n in needed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="LoCoMo folder")
    parser.add_argument("--cases", required=True, help="conversation ids, comma-separated (tune ones only)")
    args = parser.parse_args()
    wanted = set(args.cases.split(","))

    models = load_models("packaged", "packaged", codec="none")
    embedder = CachedEmbedder(models.embedder)

    def planner(**config) -> REAStrategy:
        return REAStrategy(
            models.generator, embedder, REAConfig(**config), runtime=RuntimeConfig(), recognizer=None, codec=None
        )

    hybrid, sentence = planner(), planner(scorer="sentence")
    distances: dict[str, list[int]] = {k: [] for k in KEYS}
    for case in (c for c in load_locomo(args.data) if c.id in wanted):
        texts = [f"{user}\n{reply}" for user, reply in case.exchanges]
        hybrid_session = sentence_session = None
        for q in sorted(case.queries, key=lambda q: q.position):
            if not q.needed or q.position == 0:
                continue
            hybrid_session = question_session(hybrid, case, q.position, hybrid_session)
            sentence_session = question_session(sentence, case, q.position, sentence_session)
            h = hybrid.score(hybrid_session, q.text)
            plan, _ = hybrid.replan(q.text, hybrid_session.episodes.exchanges, (), h, hybrid.config.thresholds)
            kept = [s.turn for s in plan.segments if is_kept_exchange(s)]
            if not kept or not set(q.needed) <= set(kept):
                continue  # the order matters only where all the evidence is in the prompt
            s = sentence.score(sentence_session, q.text)
            b = bm25_scores(q.text, texts[: q.position])
            hk, sk, bk = ([v[t] for t in kept] for v in (h, s, b))
            keys = {
                "shipped": hk,
                "sentence": sk,
                "rrf_hybrid_bm25": fused(hk, bk),
                "rrf_hybrid_sentence": fused(hk, sk),
                "rrf_all": fused(hk, sk, bk),
            }
            for name, values in keys.items():
                distances[name].append(evidence_distance(plan.segments, dict(zip(kept, values)), q.needed))
    print(f"{len(distances['shipped'])} questions with all their evidence kept ({args.cases})")
    for name, values in distances.items():
        d = np.asarray(values)
        print(
            f"{name:20s} mean {d.mean():.2f}  nearest: {np.mean(d == 0):.3f}  within 2: {np.mean(d <= 2):.3f}  "
            f"4 or more: {np.mean(d >= 4):.3f}  more than 10: {np.mean(d > 10):.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
