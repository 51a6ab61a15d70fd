"""Retrieval evaluation: does HCR keep the exchanges a query needs, and at what cost?

Inputs are ``cases.load_cases``'s (re-exported here): conversation JSONL whose query turns carry
``"needed"``, or the public LoCoMo JSON (``--format locomo``); ``retrieval_metrics`` holds the pure
scoring, this module runs the policies and baselines over them.

Per policy it reports the share of queries whose needed exchanges are all kept (raw or
compressed), per-exchange recall, kept exchanges and prompt tokens (absolute and as a share of
the history), recall@k of the policy's ranking, and, for every REA scorer, a threshold sweep
(recall against kept share). Baselines run in the same pass: BM25 (``bm25s``, the library SeCom
uses), dense top-k over whole-exchange vectors, recency (the last k) and keep-all.

``calibrate`` picks per scorer the highest tau_low whose kept set still reaches a recall target
(the smallest kept share that does), and a tau_high at half that target in the raw band.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from ..errors import DataFormatError
from ..memory.episodic import exchange_text
from ..methods.rea.config import REAConfig
from ..settings import Settings
from ..types import Reason, Resolution
from .cases import (  # noqa: F401  (re-exported: callers import the loaders and cases from here)
    RetrievalCase,
    RetrievalQuery,
    case_conversation,
    is_locomo,
    known_times,
    load_cases,
    load_locomo,
    load_needed_jsonl,
    parse_locomo,
    parse_needed_cases,
    parse_needed_rows,
)
from .retrieval_metrics import (  # noqa: F401  (re-exported, as the loaders)
    RECALL_KS,
    SWEEP,
    calibrate,
    query_record,
    recall_at,
    recency_hit,
    summarize,
    sweep_record,
)

BASELINE_K = 10

NO_FOLLOW_UP = {
    "context_turns": 0,
    "follow_up_decay": 0.0,
    "follow_up_prior": 0.0,
    "referent_top_k": 0,
    "recent_raw": 0,
    "recent_compressed": 0,
}
# REA policies compared: name -> (description, config overrides). Thresholds not given are the scorer's
# calibrated ones.
REA_POLICIES: dict[str, tuple[str, dict]] = {
    "rea": ("REA as configured (default: hybrid scorer, follow-up awareness, recency)", {}),
    "rea-first-release": (
        "the first release's HCR: user text + reply chunks (MiniLM), paper thresholds 0.5/0.7, no follow-up awareness",
        {
            "scorer": "minilm",
            "tau_low": 0.5,
            "tau_high": 0.7,
            "neighbor_weight": 0.0,
            **NO_FOLLOW_UP,
            "text_compression": "first_words",
        },
    ),
    "rea-minilm": ("user text + reply chunks (MiniLM), calibrated", {"scorer": "minilm"}),
    "rea-exchange": ("whole exchange (MiniLM), calibrated", {"scorer": "exchange"}),
    "rea-sentence": ("the paper's sentence-level max pairwise cosine, calibrated", {"scorer": "sentence"}),
    "rea-hybrid-plain": ("hybrid without follow-up awareness or recency", {"scorer": "hybrid", **NO_FOLLOW_UP}),
    # Not in DEFAULT_POLICIES: one generator call per query (retrieval.rewrite).
    "rea-rewrite": (
        "REA as configured, also scoring the generator's standalone rewrite of each query (query_rewrite)",
        {"query_rewrite": True},
    ),
}
BASELINES = {
    "bm25": f"BM25 (bm25s) top {BASELINE_K}",
    "dense": f"whole-exchange MiniLM cosine top {BASELINE_K}",
    "recency": f"the last {BASELINE_K} exchanges",
    "keep-all": "every exchange raw (vanilla)",
}
DEFAULT_POLICIES = (
    "rea",
    "rea-first-release",
    "rea-minilm",
    "rea-exchange",
    "rea-sentence",
    "rea-hybrid-plain",
    "bm25",
    "dense",
    "recency",
    "keep-all",
)


# -- running policies ------------------------------------------------------------------------------


def policy_config(name: str, base: REAConfig) -> REAConfig:
    """The config of an REA policy: the base config with the policy's overrides (thresholds re-calibrated
    for another scorer unless the policy names them)."""
    overrides = dict(REA_POLICIES[name][1])
    if "scorer" in overrides and overrides["scorer"] != base.scorer:
        overrides.setdefault("tau_low", None)
        overrides.setdefault("tau_high", None)
    return replace(base, **overrides)


class CachedEmbedder:
    """An Embedder that remembers every text it encoded: policies of one run share exchange texts,
    so each is embedded once. Only for evaluation runs (memory grows with the data)."""

    def __init__(self, embedder):
        self.inner, self.name, self.dim = embedder, embedder.name, embedder.dim
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            self._cache.update(zip(missing, self.inner.encode(missing)))
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)


def exchange_tokens(case: RetrievalCase, count) -> np.ndarray:
    """(n_exchanges,) tokens of each exchange, user text plus reply: what keeping it raw costs."""
    return np.array([count(u) + count(r) for u, r in case.exchanges], dtype=np.int64)


def rea_records(strategy, case: RetrievalCase) -> list[dict]:
    """Every query of ``case`` through ``strategy``'s own scoring and planning (no generation): the
    session grows exchange by exchange, so each query sees only what came before it."""
    return list(iter_rea_records(strategy, case))


EMBED_STEP = 8  # exchanges embedded in one gated step: well under a second of MiniLM on a CPU


def gated_steps(case: RetrievalCase) -> int:
    """The steps ``iter_rea_records`` enters ``step`` for on ``case``: exchange batches and queries."""
    steps, stored = 0, 0
    for q in sorted(case.queries, key=lambda q: q.position):
        if q.position > stored:
            steps += -(-(q.position - stored) // EMBED_STEP)  # ceil
            stored = q.position
        steps += 1
    return steps


def store_exchanges(strategy, case: RetrievalCase, session, position: int, *, step=None, embed: bool = True) -> None:
    """Store ``case``'s exchanges in ``session`` up to ``position`` (with times), embedding them when
    ``embed``: in batches of ``EMBED_STEP``, each inside ``step()``, where a step is given (a server
    can end the work between batches, and what was stored stays), else in one batch."""
    memory = session.episodes
    while len(memory) < position or (embed and memory.n_embedded < position):
        with step() if step is not None else nullcontext():
            start = len(memory)
            for i in range(start, min(position, start + EMBED_STEP) if step is not None else position):
                memory.append(*case.exchanges[i], time=case.time_of(i))
            if embed:
                memory.ensure_embedded(strategy.embedder)


def iter_rea_records(
    strategy, case: RetrievalCase, *, step: Callable[[], AbstractContextManager] | None = None
) -> Iterator[dict]:
    """``rea_records``, each query's record yielded as soon as it is scored.

    ``step()`` is entered around each unit of work (storing and embedding up to ``EMBED_STEP``
    exchanges, scoring one query; ``gated_steps`` counts them): a server passes its chats-first gate
    (``limits.ModelGate.background``) so a long history is embedded in short steps a chat can come
    between, and can stop between them (an exception raised by ``step`` ends the iteration). Without
    it the history is embedded at the first query, in one batch, as an evaluation run wants.
    """
    gate = step or nullcontext
    embed = step is not None and not getattr(strategy, "latent_scoring", False)
    count = strategy.generator.count_tokens
    cum = np.concatenate([[0], np.cumsum(exchange_tokens(case, count))])  # history tokens before each position
    session = strategy.new_session()
    if embed:
        session.episodes.use_unit_mode(strategy.config.scoring.unit_mode)  # as scoring will (no re-embedding)
    for q in sorted(case.queries, key=lambda q: q.position):
        store_exchanges(strategy, case, session, q.position, step=step, embed=embed)
        with gate():
            t0 = time.perf_counter()
            scores = strategy.score(session, q.text)
            seconds = time.perf_counter() - t0
            plan, decisions = strategy.replan(
                q.text, session.episodes.exchanges, (), scores, strategy.config.thresholds
            )
        kept = np.array([d.resolution is not Resolution.OMIT for d in decisions], dtype=bool)
        raw = np.array([d.resolution is Resolution.RAW for d in decisions], dtype=bool)
        floor = np.array(
            [d.reason in (Reason.RECENT, Reason.RECENT_BAND) for d in decisions], dtype=bool
        )  # kept at any tau_low
        rec = query_record(kept, raw, scores, q.needed, plan.total_tokens, int(cum[q.position]) + count(q.text))
        rec["sweep"] = sweep_record(scores, floor, q.needed)
        rec["recency_matched"] = recency_hit(len(kept), int(kept.sum()), q.needed)
        rec["seconds"] = seconds  # scoring wall time, a query rewrite's model call included
        if strategy.config.query_rewrite and session.last_rewrite is not None:
            rec["rewrite"] = session.last_rewrite.to_dict()
        yield rec


def run_case(policy: str, case: RetrievalCase, models, settings: Settings) -> list[dict]:
    """Every query of ``case`` under ``policy``: REA's real strategy code, or a baseline."""
    from ..methods.rea.strategy import REAStrategy
    from ..methods.secom.retriever import bm25_scores

    if policy in REA_POLICIES:
        strategy = REAStrategy(
            models.generator,
            models.embedder,
            policy_config(policy, settings.rea),
            runtime=settings.runtime,
            recognizer=None,
            codec=None,
        )
        return rea_records(strategy, case)
    count = models.generator.count_tokens
    ex_tokens = exchange_tokens(case, count)
    records = []
    texts = [exchange_text(u, r) for u, r in case.exchanges]
    vectors = models.embedder.encode(texts) if policy == "dense" else None
    for q in case.queries:
        n = q.position
        if policy == "keep-all":
            scores = np.linspace(0.0, 1.0, n)  # ranking by recency; everything is kept
            kept = np.ones(n, dtype=bool)
        else:
            if policy == "bm25":
                scores = bm25_scores(q.text, texts[:n])
            elif policy == "dense":
                scores = vectors[:n] @ models.embedder.encode([q.text])[0]
            elif policy == "recency":
                scores = np.arange(n, dtype=float)
            else:
                raise ValueError(f"unknown policy {policy!r}")
            kept = np.zeros(n, dtype=bool)
            kept[np.argsort(-scores, kind="stable")[:BASELINE_K]] = True
        tokens = int(ex_tokens[:n][kept].sum()) + count(q.text)
        records.append(query_record(kept, kept, scores, q.needed, tokens, int(ex_tokens[:n].sum()) + count(q.text)))
    return records


def check_policies(names: Sequence[str]) -> list[str]:
    unknown = [n for n in names if n not in REA_POLICIES and n not in BASELINES]
    if unknown:
        raise DataFormatError(
            f"unknown retrieval policy {', '.join(unknown)}; "
            f"choose from {', '.join(list(REA_POLICIES) + list(BASELINES))}"
        )
    return list(names)


def evaluate(
    models,
    config: Settings,
    cases: list[RetrievalCase],
    policies: Sequence[str],
    out_dir: str | Path,
    *,
    dataset: str,
    calibrate_target: float | None = None,
) -> dict:
    """Run every policy on every case (resumable), then write results.json and report.html."""
    import plotly.graph_objects as go

    from .report import write_report, write_results
    from .runner import RecordStore, run_arms

    policies = check_policies(policies)
    models = replace(models, embedder=CachedEmbedder(models.embedder))
    store = RecordStore(
        out_dir,
        {"task": "retrieval", "dataset": dataset, "embedder": models.embedder.name, "config": config.to_dict()},
    )
    run_arms(store, policies, cases, lambda p, case: run_case(p, case, models, config), label="retrieval")
    ids = [c.id for c in cases]
    per = {p: summarize(store.records(p, ids)) for p in policies}
    describe = {**{k: v[0] for k, v in REA_POLICIES.items()}, **BASELINES}
    results = {
        "task": "retrieval",
        "dataset": dataset,
        "conversations": len(cases),
        "queries": sum(len(c.queries) for c in cases),
        "embedder": models.embedder.name,
        "config": config.to_dict(),
        "policies": {
            p: {
                "describe": describe[p],
                **({"thresholds": _thresholds(p, config.rea)} if p in REA_POLICIES else {}),
                **m,
            }
            for p, m in per.items()
        },
    }
    if calibrate_target is not None:
        results["calibration"] = {
            p: {"scorer": policy_config(p, config.rea).scorer, **calibrate(m["sweep"], calibrate_target)}
            for p, m in per.items()
            if m.get("sweep")
        }
    write_results(out_dir, results)

    curve = go.Figure()
    for p, m in per.items():
        if m.get("sweep"):
            curve.add_scatter(
                x=m["sweep"]["kept_share"],
                y=m["sweep"]["all_kept"],
                mode="lines+markers",
                name=p,
                text=[f"tau_low {t:.2f}" for t in m["sweep"]["tau_low"]],
                hovertemplate="%{text}<br>kept %{x:.1%}<br>all needed kept %{y:.1%}",
            )
        else:
            curve.add_scatter(
                x=[m.get("kept_share", 0)],
                y=[m.get("all_kept", 0)],
                mode="markers",
                marker_symbol="diamond",
                marker_size=11,
                name=p,
            )
    curve.update_layout(
        title="All needed exchanges kept vs share of history kept (threshold sweep per REA scorer)",
        xaxis_title="mean share of earlier exchanges kept",
        yaxis_title="queries with every needed exchange kept",
        xaxis_range=[0, 1],
        yaxis_range=[0, 1],
    )
    bars = go.Figure()
    for k in RECALL_KS:
        bars.add_bar(x=list(per), y=[m.get(f"recall@{k}", 0) for m in per.values()], name=f"recall@{k}")
    bars.update_layout(title="Ranking quality: needed exchanges among the top k", barmode="group", yaxis_range=[0, 1])
    header = [
        "policy",
        "queries",
        "all kept",
        "recency at equal kept",
        "recall",
        "kept",
        "kept share",
        "prompt tokens",
        "prompt share",
    ] + [f"recall@{k}" for k in RECALL_KS]
    rows = [
        [
            p,
            m.get("queries"),
            m.get("all_kept"),
            m.get("recency_matched_all_kept"),
            m.get("recall"),
            m.get("kept"),
            m.get("kept_share"),
            m.get("prompt_tokens"),
            m.get("prompt_share"),
        ]
        + [m.get(f"recall@{k}") for k in RECALL_KS]
        for p, m in per.items()
    ]
    tables = [("Policies", header, rows)]
    if calibrate_target is not None:
        tables.append(
            (
                "Calibrated thresholds",
                ["policy", "scorer", "tau_low", "tau_high", "all kept", "kept share", "target reached"],
                [
                    [p, c["scorer"], c["tau_low"], c["tau_high"], c["all_kept"], c["kept_share"], c["reached"]]
                    for p, c in results["calibration"].items()
                ],
            )
        )
    write_report(
        out_dir,
        f"Retrieval ({dataset})",
        [curve, bars],
        tables,
        notes=f"{len(cases)} conversations, {results['queries']} queries, "
        f"embedder {models.embedder.name}. Scores are each scorer's own scale.",
    )
    return results


def _thresholds(policy: str, config: REAConfig) -> dict:
    cfg = policy_config(policy, config)
    return {"scorer": cfg.scorer, "tau_low": cfg.tau_low, "tau_high": cfg.tau_high}
