"""Benchmark: HCR scoring plus decisions per query over 1k, 10k and 100k stored exchanges.

Embeddings are precomputed (random unit vectors of MiniLM's size, 384), laid out by
``EpisodicMemory`` exactly as in a session: one user-text unit plus 1-3 reply chunks per
exchange (3 units on average). Per query it times
    * score:  ``max_pairwise_cosine`` (one matrix-vector product + segmented max),
    * decide: the vectorized ``decide`` (codes for raw / compressed / omit),
    * decisions: ``plan_context`` building one ``Decision`` object per exchange (what a turn returns).
    * hybrid: the default scorer, whole-exchange cosine (one unit per exchange) fused with
      normalized BM25 over synthetic exchange texts (Zipf-distributed words, 60 per exchange,
      8-word queries), neighbour smoothing and decisions.
    * +memory rules: hybrid, plus what REA's default adds per query: the follow-up probability of
      the query, the referent prior (last 64 exchanges), the working-memory window and the two
      best omitted exchanges (``hcr.best_omitted``), all on the decision codes; three exchanges held
      in Instructional Memory left out (``hcr.hold_in_im``), and the kept exchanges sorted by score
      for the prompt's layout (``prompt_layout``: the best nearest the question).
Targets on the 2-core dev machine: score + decide under 5 ms at 10k and under 50 ms at 100k,
hybrid included.

Run: .venv/bin/python benchmarks/hcr_scoring.py [--sizes 1000 10000 100000] [--query-units 1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from rea_core.lexical import BM25Index
from rea_core.memory.episodic import EpisodicMemory, Exchange
from rea_core.retrieval.followup import PRIOR_SPAN, follow_up_probability, referent_prior
from rea_core.retrieval.hcr import best_omitted, decide, plan_context
from rea_core.retrieval.scoring import fuse, max_pairwise_cosine, smooth_neighbors
from rea_core.retrieval.thresholds import Thresholds

PAPER, HYBRID = Thresholds(0.5, 0.7), Thresholds(0.2, 0.36)  # the paper's pair and the hybrid scorer's


def build_memory(n_exchanges: int, dim: int, rng: np.random.Generator) -> EpisodicMemory:
    memory = EpisodicMemory()
    memory.exchanges = [None] * n_exchanges  # the index is what is timed; texts are not needed
    counts = (1 + rng.integers(1, 4, size=n_exchanges)).tolist()  # user unit + 1..3 reply chunks
    vectors = rng.standard_normal((sum(counts), dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    memory.add_embeddings(vectors, counts)
    return memory


def timed(fn, repeats: int) -> list[float]:
    fn()  # warm-up
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--query-units", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"query units: {args.query_units}, dim {args.dim}, {args.repeats} queries per size (median / p95, ms)")
    print(
        f"{'exchanges':>10} {'units':>9} {'index MB':>9} {'score':>15} {'score+decide':>15} "
        f"{'+Decision objs':>15} {'hybrid+decide':>15} {'+memory rules':>15}"
    )
    vocab = [f"w{i}" for i in range(20_000)]
    zipf = 1.0 / np.arange(1, len(vocab) + 1)
    zipf /= zipf.sum()
    for n in args.sizes:
        memory = build_memory(n, args.dim, rng)
        units, starts = memory.unit_index()
        turns = list(range(n))
        queries = rng.standard_normal((args.repeats + 1, args.query_units, args.dim), dtype=np.float32)
        queries /= np.linalg.norm(queries, axis=2, keepdims=True)
        it = iter(range(10**9))

        def score():
            return max_pairwise_cosine(queries[next(it) % len(queries)], units, starts)

        def score_decide():
            return decide(score(), PAPER)

        def score_plan():
            return plan_context(turns, score(), PAPER)

        exchange_vectors = rng.standard_normal((n, args.dim), dtype=np.float32)
        exchange_vectors /= np.linalg.norm(exchange_vectors, axis=1, keepdims=True)
        exchange_starts = np.arange(n, dtype=np.int64)
        words = rng.choice(len(vocab), size=(n, 60), p=zipf)
        lexical = BM25Index()
        lexical.add(" ".join(vocab[w] for w in row) for row in words)
        texts = [" ".join(vocab[w] for w in rng.choice(len(vocab), size=8, p=zipf)) for _ in range(len(queries))]

        def hybrid_decide():
            i = next(it) % len(queries)
            dense = max_pairwise_cosine(queries[i], exchange_vectors, exchange_starts)
            return decide(smooth_neighbors(fuse(dense, lexical.normalized(texts[i]), 0.3), 0.2), HYBRID)

        recent = [
            Exchange(t, " ".join(vocab[w] for w in words[t][:12]), " ".join(vocab[w] for w in words[t][12:]))
            for t in range(max(0, n - PRIOR_SPAN), n)
        ]

        is_held = np.zeros(n, dtype=bool)
        is_held[[n // 4, n // 2, n - 2]] = True  # three IM entries' own turns, one in the window

        def hybrid_rules():
            i = next(it) % len(queries)
            dense = max_pairwise_cosine(queries[i], exchange_vectors, exchange_starts)
            scores = smooth_neighbors(fuse(dense, lexical.normalized(texts[i]), 0.3), 0.2)
            prior = np.zeros(n)
            prior[n - len(recent) :] = referent_prior(recent)
            scores = np.minimum(scores + 0.2 * follow_up_probability(texts[i]) * prior, 1.0)
            codes = decide(scores, HYBRID)
            codes[-3:] = 2  # the raw window
            codes[-4] = max(codes[-4], 1)  # the compressed band
            codes[is_held] = 0  # bare instructions, read in IM (one lookup per IM entry finds their turns)
            codes[best_omitted((codes == 0) & ~is_held, scores, 2)] = 1
            kept = np.flatnonzero(codes)
            return kept[np.argsort(scores[kept], kind="stable")]  # the layout: the best last

        cols = []
        for fn in (score, score_decide, score_plan, hybrid_decide, hybrid_rules):
            ms = timed(fn, args.repeats)
            cols.append(f"{statistics.median(ms):7.2f} / {np.percentile(ms, 95):5.2f}")
        print(
            f"{n:>10,} {len(units):>9,} {units.nbytes / 2**20:>9.1f} "
            f"{cols[0]:>15} {cols[1]:>15} {cols[2]:>15} {cols[3]:>15} {cols[4]:>15}"
        )


if __name__ == "__main__":
    main()
