"""HCR relevance scores (REA paper, section 3.4): maximum pairwise cosine, vectorized over all exchanges.

score(exchange) = max over (query unit q, exchange unit u) of cos(q, u). With unit-norm rows the
cosine is a dot product, so all exchanges are scored by one (N_units, dim) x (dim, m) product and a
segmented max over each exchange's rows. Pure numpy, no model.
"""

from __future__ import annotations

import numpy as np


def max_pairwise_cosine(query_units: np.ndarray, units: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Score every exchange against the query.

    Args:
        query_units: (m, dim) unit-norm query vectors (m >= 1), or (dim,) for one.
        units: (N_units, dim) unit-norm vectors of every stored exchange, exchange by exchange.
        starts: (N_exchanges,) first row of each exchange in ``units``; strictly increasing.

    Returns:
        (N_exchanges,) float64 scores in [-1, 1].
    """
    if len(starts) == 0:
        return np.zeros(0, dtype=np.float64)
    q = np.atleast_2d(query_units).astype(units.dtype, copy=False)  # (m, dim)
    if q.shape[0] == 1:
        best = units @ q[0]  # (N_units,) one matrix-vector product
    else:
        best = (units @ q.T).max(axis=1)  # (N_units, m) -> (N_units,)
    return np.maximum.reduceat(best, starts).astype(np.float64)  # (N_exchanges,)


def latent_units(blocks: list[list[np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """(unit-norm rows, start row of each exchange) from each exchange's latent blocks (A.1 latent scorer).

    ``blocks[i]`` holds exchange i's latent arrays (user text, reply), each (n, hidden).
    """
    if not blocks:
        return np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64)
    rows = [np.concatenate(b, axis=0).astype(np.float32) for b in blocks]
    starts = np.cumsum([0] + [len(r) for r in rows[:-1]]).astype(np.int64)
    return unit_rows(np.concatenate(rows, axis=0)), starts


def unit_rows(a: np.ndarray) -> np.ndarray:
    return a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)


def fuse(dense: np.ndarray, lexical: np.ndarray, dense_weight: float) -> np.ndarray:
    """Hybrid score: ``dense_weight`` x cosine (clipped at 0) + the rest x normalized BM25, in [0, 1].

    Both parts are absolute (not ranks), so a threshold keeps its meaning from one query to the next.
    """
    return dense_weight * np.clip(dense, 0.0, 1.0) + (1.0 - dense_weight) * lexical


def smooth_neighbors(scores: np.ndarray, weight: float) -> np.ndarray:
    """Add ``weight`` x the better neighbour's score: an exchange next to a relevant one is context for it.

    Clipped to 1 so the raw band stays reachable only by strong scores of the exchange's own.
    """
    if weight <= 0 or len(scores) < 2:
        return scores
    padded = np.pad(scores, 1, constant_values=0.0)
    return np.minimum(scores + weight * np.maximum(padded[:-2], padded[2:]), 1.0)
