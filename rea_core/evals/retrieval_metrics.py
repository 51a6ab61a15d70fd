"""Retrieval metrics (pure): recall@k, one query's kept/raw record, recency at equal budget, the
threshold sweep, the per-policy summary and the calibration of tau_low / tau_high to a recall target."""

from __future__ import annotations

from typing import Sequence

import numpy as np

RECALL_KS = (5, 10, 25)
SWEEP = tuple(round(0.02 * i, 2) for i in range(51))  # tau_low grid for the recall-vs-kept curves


def recall_at(scores: np.ndarray, needed: Sequence[int], k: int) -> float:
    """Share of the needed exchanges among the ``k`` best scores (ties: earlier first)."""
    top = set(np.argsort(-np.asarray(scores), kind="stable")[:k].tolist())
    return sum(n in top for n in needed) / len(needed)


def query_record(
    kept: np.ndarray,
    raw: np.ndarray,
    scores: np.ndarray,
    needed: Sequence[int],
    prompt_tokens: int,
    history_tokens: int,
) -> dict:
    """One query's measures; ``kept`` and ``raw`` are boolean masks over the exchanges it saw."""
    n = len(kept)
    hit = [bool(kept[i]) for i in needed]
    return {
        "all_kept": all(hit),
        "recall": sum(hit) / len(needed),
        "raw_recall": sum(bool(raw[i]) for i in needed) / len(needed),
        "kept": int(kept.sum()),
        "kept_share": float(kept.sum()) / n if n else 0.0,
        "history": n,
        "prompt_tokens": prompt_tokens,
        "prompt_share": prompt_tokens / history_tokens if history_tokens else 1.0,
        **{f"recall@{k}": recall_at(scores, needed, k) for k in RECALL_KS},
    }


def recency_hit(n: int, k: int, needed: Sequence[int]) -> bool:
    """Whether keeping the last ``k`` of ``n`` exchanges keeps every needed one: plain recency at a
    policy's own kept count, the baseline REA must never fall below."""
    return all(i >= n - k for i in needed)


def sweep_record(scores: np.ndarray, floor: np.ndarray, needed: Sequence[int]) -> dict:
    """Kept count and all-needed-kept at each tau_low of ``SWEEP`` (``floor``: exchanges kept regardless)."""
    s = np.asarray(scores)
    kept = [(s >= t) | floor for t in SWEEP]
    return {
        "kept": [int(k.sum()) for k in kept],
        "all": [bool(all(k[i] for i in needed)) for k in kept],
        "raw_hits": [sum(bool(s[i] >= t) for i in needed) / len(needed) for t in SWEEP],
    }


def summarize(records: list[dict]) -> dict:
    if not records:
        return {"queries": 0}
    mean = lambda key: float(np.mean([r[key] for r in records]))  # noqa: E731
    out = {
        "queries": len(records),
        "all_kept": mean("all_kept"),
        "recall": mean("recall"),
        "raw_recall": mean("raw_recall"),
        "kept": mean("kept"),
        "kept_share": mean("kept_share"),
        "prompt_tokens": mean("prompt_tokens"),
        "prompt_share": mean("prompt_share"),
    }
    out.update({f"recall@{k}": mean(f"recall@{k}") for k in RECALL_KS})
    if all("recency_matched" in r for r in records):
        out["recency_matched_all_kept"] = mean(
            "recency_matched"
        )  # the last k exchanges, k = this policy's kept count per query
    if all("seconds" in r for r in records):
        out["seconds"] = mean("seconds")
    rewrites = [r["rewrite"] for r in records if "rewrite" in r]
    if rewrites:
        out["rewritten"] = float(np.mean([w["rewritten"] for w in rewrites]))
        out["rewrite_errors"] = float(np.mean([w["error"] is not None for w in rewrites]))
    sweeps = [r["sweep"] for r in records if "sweep" in r]
    if sweeps:
        history = np.array([r["history"] for r in records if "sweep" in r], dtype=float)
        kept = np.array([s["kept"] for s in sweeps], dtype=float)
        out["sweep"] = {
            "tau_low": list(SWEEP),
            "all_kept": np.mean([s["all"] for s in sweeps], axis=0).tolist(),
            "kept_share": (kept / np.maximum(history, 1)[:, None]).mean(axis=0).tolist(),
            "raw_recall": np.mean([s["raw_hits"] for s in sweeps], axis=0).tolist(),
        }
    return out


def calibrate(sweep: dict, target: float) -> dict:
    """Thresholds from a summary's sweep: tau_low is the highest grid value whose kept set still has
    every needed exchange for ``target`` of the queries (the smallest kept share reaching it);
    tau_high the highest whose raw band alone reaches ``target / 2`` of the needed exchanges."""
    taus, all_kept, raw = sweep["tau_low"], sweep["all_kept"], sweep["raw_recall"]
    ok = [t for t, a in zip(taus, all_kept) if a >= target]
    tau_low = max(ok) if ok else min(taus)
    high_ok = [t for t, r in zip(taus, raw) if r >= target / 2 and t >= tau_low]
    tau_high = max(high_ok) if high_ok else tau_low
    i = taus.index(tau_low)
    return {
        "tau_low": tau_low,
        "tau_high": tau_high,
        "target": target,
        "reached": all_kept[i] >= target,
        "all_kept": all_kept[i],
        "kept_share": sweep["kept_share"][i],
    }
