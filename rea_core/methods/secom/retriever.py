"""Top-N memory-unit retrieval for SeCom (SeCom paper: ``{m_n} <- f_R(u*, f_Comp(M), N)``).

Two retrievers over the (compressed) memory units, selected by ``SeComConfig.retriever``:
BM25 through ``bm25s`` (Lucene variant, English stopwords) and dense cosine on the sentence
embedder (all-MiniLM-L6-v2 here; the paper's dense retriever is MPNet). Scoring is pure given the
texts or the vectors; ties keep the earlier unit first.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def bm25_scores(query: str, docs: Sequence[str]) -> np.ndarray:
    """BM25 score of every doc for ``query`` (0 for a doc sharing no term with it)."""
    if not docs:
        return np.zeros(0)
    import bm25s

    corpus = bm25s.tokenize(list(docs), stopwords="en", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    terms = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
    known = [t for t in terms if t in corpus.vocab]
    if not known:
        return np.zeros(len(docs))
    return np.asarray(retriever.get_scores(known), dtype=np.float64)


def dense_scores(query_vec: np.ndarray, doc_vecs: np.ndarray) -> np.ndarray:
    """Cosine of unit-norm doc rows (N, dim) with a unit-norm query (dim,) or (1, dim)."""
    if len(doc_vecs) == 0:
        return np.zeros(0)
    return (doc_vecs @ np.asarray(query_vec).reshape(-1)).astype(np.float64)  # (N,)


def select_top_k(scores: Sequence[float], k: int) -> list[int]:
    """Indices of the ``k`` best scores, best first; ties keep the earlier index first."""
    order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
    return order[: max(0, k)]
