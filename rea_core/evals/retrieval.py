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

from ..memory.episodic import exchange_text
from ..methods.rea.config import REAConfig
from ..settings import Settings
from ..types import Reason, Resolution
from . import charts as c
from .arms import ARMS, BASELINE_K, NO_FOLLOW_UP, RETRIEVAL, arms_for, plain_name  # noqa: F401  (re-exported)
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
from .task import EvalTask, Report, RunContext, register_eval, run_eval

# REA policies compared: name -> (description, config overrides), and the baselines: name -> description.
# Both from the one arm table; thresholds a policy does not give are its scorer's calibrated ones.
REA_POLICIES: dict[str, tuple[str, dict]] = {
    n: (a.describe_for(RETRIEVAL), dict(a.rea)) for n, a in arms_for(RETRIEVAL).items() if a.rea is not None
}
BASELINES = {n: a.describe_for(RETRIEVAL) for n, a in arms_for(RETRIEVAL).items() if a.rea is None}
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
# The data sets ``rea eval retrieval`` is run on, in plain words (the file name stays in the command).
DATASETS: dict[str, str] = {
    "test-long.jsonl": "held-out long chats",
    "test-short.jsonl": "held-out short chats",
    "dev-long.jsonl": "long tuning chats",
    "dev-short.jsonl": "short tuning chats",
    "backrefs.jsonl": "chats that refer back",
}


# -- running policies ------------------------------------------------------------------------------


def policy_config(name: str, base: REAConfig) -> REAConfig:
    """The config of an REA policy: the base config with the policy's overrides (thresholds re-calibrated
    for another scorer unless the policy names them)."""
    return ARMS[name].rea_config(base)


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
    return RETRIEVAL_TASK.check_arms(names)


def evaluate(
    models,
    settings: Settings,
    cases: list[RetrievalCase],
    policies: Sequence[str],
    out_dir: str | Path,
    *,
    dataset: str,
    calibrate_target: float | None = None,
) -> dict:
    """Run every policy on every case (resumable), then write results.json and report.html."""
    return run_eval(
        RETRIEVAL_TASK, models, settings, cases, policies, out_dir, dataset=dataset, calibrate_target=calibrate_target
    )


def _thresholds(policy: str, config: REAConfig) -> dict:
    cfg = policy_config(policy, config)
    return {"scorer": cfg.scorer, "tau_low": cfg.tau_low, "tau_high": cfg.tau_high}


class RetrievalTask(EvalTask):
    """``rea eval retrieval``: does HCR keep what each query needs, and at what cost?"""

    name, title = "retrieval", "retrieval"
    arm_kind, arm_word, arms_flag, default_arms = RETRIEVAL, "policy", "--policies", DEFAULT_POLICIES

    def load_cases(self, path, *, max_chars=None, limit=None, fmt: str = "jsonl", **options):
        return load_cases(path, fmt, max_chars=max_chars)[:limit]

    def prepare(self, ctx: RunContext) -> RunContext:
        return replace(ctx, models=replace(ctx.models, embedder=CachedEmbedder(ctx.models.embedder)))

    def run_settings(self, ctx: RunContext) -> dict:
        return {
            "task": "retrieval",
            "dataset": ctx.options["dataset"],
            "embedder": ctx.models.embedder.name,
            "config": ctx.settings.to_dict(),
        }

    def run_case(self, arm: str, case: RetrievalCase, ctx: RunContext) -> list[dict]:
        return run_case(arm, case, ctx.models, ctx.settings)

    def summarize(self, records, ctx: RunContext) -> dict:
        per = {p: summarize(recs) for p, recs in records.items()}
        rea = ctx.settings.rea
        results = {
            "task": "retrieval",
            "dataset": ctx.options["dataset"],
            "conversations": len(ctx.cases),
            "queries": sum(len(case.queries) for case in ctx.cases),
            "embedder": ctx.models.embedder.name,
            "config": ctx.settings.to_dict(),
            "policies": {
                p: {
                    "describe": ARMS[p].describe_for(RETRIEVAL),
                    **({"thresholds": _thresholds(p, rea)} if p in REA_POLICIES else {}),
                    **m,
                }
                for p, m in per.items()
            },
        }
        target = ctx.options.get("calibrate_target")
        if target is not None:
            results["calibration"] = {
                p: {"scorer": policy_config(p, rea).scorer, **calibrate(m["sweep"], target)}
                for p, m in per.items()
                if m.get("sweep")
            }
        return results

    def report(self, results: dict) -> Report:
        import plotly.graph_objects as go

        per = results["policies"]
        bars = go.Figure()
        for k in RECALL_KS:
            bars.add_bar(x=list(per), y=[m.get(f"recall@{k}", 0) for m in per.values()], name=f"recall@{k}")
        bars.update_layout(
            title="Ranking quality: needed exchanges among the top k", barmode="group", yaxis_range=[0, 1]
        )
        keys = ("queries", "all_kept", "recency_matched_all_kept", "recall", "kept", "kept_share", "prompt_tokens")
        keys += ("prompt_share", *(f"recall@{k}" for k in RECALL_KS))
        header = ["policy", "queries", "all kept", "recency at equal kept", "recall", "kept", "kept share"]
        header += ["prompt tokens", "prompt share"] + [f"recall@{k}" for k in RECALL_KS]
        tables = [("Policies", header, [[p, *(m.get(k) for k in keys)] for p, m in per.items()])]
        if "calibration" in results:
            keys = ("scorer", "tau_low", "tau_high", "all_kept", "kept_share", "reached")
            tables.append(
                (
                    "Calibrated thresholds",
                    ["policy", "scorer", "tau_low", "tau_high", "all kept", "kept share", "target reached"],
                    [[p, *(cal[k] for k in keys)] for p, cal in results["calibration"].items()],
                )
            )
        return Report(
            f"Retrieval ({results['dataset']})",
            tables,
            notes=f"{results['conversations']} conversations, {results['queries']} queries, "
            f"embedder {results['embedder']}. Scores are each scorer's own scale.",
            figures=[bars],
        )

    def console(self, results: dict, out_dir: Path) -> str:
        lines = []
        for p, m in results["policies"].items():
            matched = m.get("recency_matched_all_kept")
            lines.append(
                f"{p:20s} all kept {m.get('all_kept', 0):.3f}  "
                + (f"(recency at equal kept {matched:.3f})  " if matched is not None else "")
                + f"recall {m.get('recall', 0):.3f}  kept {m.get('kept_share', 0):6.1%}  "
                f"prompt {m.get('prompt_share', 0):6.1%}  "
                + "  ".join(f"r@{k} {m.get(f'recall@{k}', 0):.3f}" for k in RECALL_KS)
                + (f"  {m['seconds']:.3f} s/query" if "seconds" in m else "")
                + (f"  rewritten {m['rewritten']:.1%}" if "rewritten" in m else "")
            )
        for p, cal in results.get("calibration", {}).items():
            lines.append(
                f"calibrated {p} ({cal['scorer']}): tau_low {cal['tau_low']:.2f} "
                f"tau_high {cal['tau_high']:.2f} -> all kept {cal['all_kept']:.3f} "
                f"at {cal['kept_share']:.1%} kept{'' if cal['reached'] else ' (target not reached)'}"
            )
        return "\n".join([*lines, f"report: {Path(out_dir) / 'report.html'}"])

    def figures(self, results: dict) -> c.Figures:
        import plotly.graph_objects as go

        policies = c.series(results, "policies", "policies")
        queries, conversations = c.count(results, "queries"), c.count(results, "conversations")
        for name, m in policies.items():
            where = f'policy "{c.clip(name)}"'
            for key in ("all_kept", "recall", "kept_share", "prompt_share"):
                c.number(m.get(key), f"{where} {key}", lo=0, hi=1)
            if m.get("sweep") is not None:
                sweep, lengths = c.obj(m["sweep"], f"{where} sweep"), set()
                for key in ("tau_low", "all_kept", "kept_share"):
                    values = sweep.get(key)
                    if not isinstance(values, list) or not values:
                        raise c.ResultsFormatError(f"{where} sweep {key} must be a non-empty list of numbers")
                    for v in values:
                        c.number(v, f"{where} sweep {key}", lo=0, hi=1)
                    lengths.add(len(values))
                if len(lengths) > 1:
                    raise c.ResultsFormatError(f"{where} sweep lists differ in length")
        dataset = results.get("dataset")
        dataset = c.clip(dataset) if isinstance(dataset, str) else "?"
        data_file = dataset.removesuffix(" (jsonl)").removesuffix(" (locomo)")
        locomo = dataset.endswith(" (locomo)")
        scale = c.small_run(f"{c.n_of(conversations, 'chat')}, {c.n_of(queries, 'follow-up')}", queries, 100)
        fmt = " --format locomo" if locomo else ""

        bars = go.Figure()
        measures = (
            ("all_kept", "follow-ups with every needed turn kept", "#7c3aed"),
            ("kept_share", "share of earlier turns kept", "#f59e0b"),
            ("prompt_share", "share of the chat's text sent", "#9ca3af"),
        )
        shown = [c.plain(plain_name(n)) for n in policies]
        for key, label, color in measures:
            bars.add_bar(
                x=shown,
                y=[m[key] for m in policies.values()],
                name=label,
                marker_color=color,
                hovertemplate="%{x}: %{y:.1%}<extra>" + label + "</extra>",
            )
        bars.update_xaxes(tickvals=shown, ticktext=[c.wrapped(plain_name(n), 12) for n in policies], tickangle=0)
        bars_chart = c.chart(
            bars,
            "Kept the turn the follow-up needed? At what cost?",
            scale,
            legend_rows=len(measures),
            barmode="group",
            yaxis=dict(range=[0, 1.05], tickformat=".0%"),
        )
        c.empty_state(bars, "Three bars per memory policy appear here once the run holds a policy's results.")
        curve = go.Figure()
        swept = any(m.get("sweep") for m in policies.values())
        for i, (name, m) in enumerate(policies.items()):
            label, color = c.plain(plain_name(name)), c.color(name, i)
            if m.get("sweep"):
                s = m["sweep"]
                curve.add_scatter(
                    x=s["kept_share"],
                    y=s["all_kept"],
                    mode="lines",
                    name=label,
                    legendgroup=str(i),
                    line=dict(color=color, width=2),
                    customdata=s["tau_low"],
                    hovertemplate="omit threshold %{customdata:.2f}: kept %{x:.1%} of earlier turns, "
                    "every needed turn kept for %{y:.1%}" + c.hover(name),
                )
            curve.add_scatter(
                x=[m["kept_share"]],
                y=[m["all_kept"]],
                mode="markers",
                name=label,
                legendgroup=str(i),
                showlegend=not m.get("sweep"),  # one legend entry per policy: its line, or its point alone
                marker=dict(color=color, size=12, symbol="diamond", line=dict(color="#111", width=1)),
                hovertemplate="as run: kept %{x:.1%} of earlier turns, every needed turn kept for %{y:.1%}"
                + c.hover(name),
            )
        key = (
            "line: the omit threshold from 0 to 1 · ◆: as run" if swept else "◆: each as run (this file has no sweep)"
        )
        curve_chart = c.chart(
            curve,
            "What happens as the omit threshold moves",
            (scale, key),
            legend_rows=len(policies),
            xaxis=dict(title="share of earlier turns kept", range=[0, 1.02], tickformat=".0%"),
            yaxis=dict(title="needed turns all kept", range=[0, 1.05], tickformat=".0%"),
        )
        c.empty_state(
            curve, "A line per policy appears here once a run sweeps its omit threshold, and a ◆ for each as run."
        )
        where = "LoCoMo long conversations" if locomo else DATASETS.get(data_file, f"chats of {data_file}")
        return c.Figures(
            title=f"Finding the earlier turn a follow-up needs ({where})",
            summary="Each question needs something said many turns earlier (“what did you say about the plants?”). "
            "A good memory keeps the turn it needs and sends little else; keeping the whole chat finds it "
            "every time, at the cost of sending everything.",
            names=tuple(policies),
            scale=c.with_model(scale, results.get("embedder")),
            command=f"rea eval retrieval --data <{data_file}>{fmt} --policies {','.join(policies)} --out <folder>",
            charts=(bars_chart, curve_chart),
        )


RETRIEVAL_TASK = register_eval(RetrievalTask())
