"""Sweep the working-memory window (``REAConfig.recent_raw`` / ``recent_raw_tokens`` /
``recent_compressed``) on the retrieval development sets together, with no generation.

Scores do not depend on the window, so every query is scored once by REA's own ``score`` and each
window setting re-plans it with ``replan`` (the slider path). Per set and setting it prints: the
share of queries whose needed exchanges are all kept, plain recency at the same kept count per
query, the mean kept share and the prompt's share of the history's tokens. The adherence side
of the choice (IAR needs generation) is measured with ``rea eval adherence --recent-*`` on the
development suite (BENCHMARKS.md, "Working memory").

Run:
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/window_sweep.py \
        --jsonl benchmarks/data/followups/dev-short.jsonl benchmarks/data/followups/dev-long.jsonl \
        --locomo ../shared/locomo-dev --out runs/window-sweep.json
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from rea_core import REAConfig
from rea_core.evals.retrieval import CachedEmbedder, exchange_tokens, load_locomo, load_needed_jsonl, recency_hit
from rea_core.loading import load_models
from rea_core.methods.rea.strategy import REAStrategy
from rea_core.types import Resolution

GRID = {  # the window's sizes, and how a follow-up picks its referent beyond the window
    "recent_raw": (0, 1, 2, 3, 4),
    "recent_raw_tokens": (256, 512, 768),
    "recent_compressed": (0, 1, 2, 3),
    "referent_top_k": (1, 2),
}


def scored(strategy: REAStrategy, cases) -> list[tuple]:
    """(query text, exchanges before it, scores, needed, history tokens) for every query: scored once."""
    count = strategy.generator.count_tokens
    items = []
    for case in cases:
        cum = np.concatenate([[0], np.cumsum(exchange_tokens(case, count))])
        session = strategy.new_session()
        for q in sorted(case.queries, key=lambda q: q.position):
            for user, reply in case.exchanges[len(session.episodes) : q.position]:
                session.episodes.append(user, reply)
            items.append(
                (
                    q.text,
                    list(session.episodes.exchanges),
                    strategy.score(session, q.text),
                    q.needed,
                    int(cum[q.position]) + count(q.text),
                )
            )
    return items


def measure(strategy: REAStrategy, items) -> dict:
    kept_all, recency, kept_share, prompt_share = [], [], [], []
    for text, exchanges, scores, needed, history in items:
        plan, decisions = strategy.replan(text, exchanges, (), scores, strategy.config.thresholds)
        kept = [d.resolution is not Resolution.OMIT for d in decisions]
        kept_all.append(all(kept[i] for i in needed))
        recency.append(recency_hit(len(kept), sum(kept), needed))
        kept_share.append(sum(kept) / max(1, len(kept)))
        prompt_share.append(plan.total_tokens / history)
    return {
        "all_kept": float(np.mean(kept_all)),
        "recency_matched": float(np.mean(recency)),
        "kept_share": float(np.mean(kept_share)),
        "prompt_share": float(np.mean(prompt_share)),
        "queries": len(items),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--jsonl", nargs="*", default=[], help='conversation JSONL files with "needed" (development halves only)'
    )
    parser.add_argument("--locomo", help="LoCoMo development folder")
    parser.add_argument("--out", type=Path, required=True)
    for name, values in GRID.items():
        parser.add_argument(f"--{name.replace('_', '-')}", nargs="+", type=type(values[0]), default=list(values))
    args = parser.parse_args()
    grid = {name: getattr(args, name) for name in GRID}

    models = load_models("packaged", "packaged", codec="none")
    models.generator.count_tokens = lru_cache(maxsize=None)(
        models.generator.count_tokens
    )  # every setting counts the same texts
    base = REAStrategy(models.generator, CachedEmbedder(models.embedder), REAConfig(), recognizer=None, codec=None)
    sets = {Path(p).name: load_needed_jsonl(p) for p in args.jsonl}
    if args.locomo:
        sets["locomo-dev"] = load_locomo(args.locomo)
    items = {name: scored(base, cases) for name, cases in sets.items()}
    rows = []
    for values in itertools.product(*grid.values()):
        setting = dict(zip(grid, values))
        if setting["recent_raw"] == 0 and setting["recent_raw_tokens"] != grid["recent_raw_tokens"][0]:
            continue  # no raw window: its budget does not matter
        strategy = base.with_config(replace(base.config, **setting))
        row = {**setting, **{name: measure(strategy, its) for name, its in items.items()}}
        rows.append(row)
        print(
            " ".join(f"{k}={v}" for k, v in setting.items())
            + ": "
            + "  ".join(
                f"{name}: all {m['all_kept']:.3f} (recency {m['recency_matched']:.3f}) "
                f"kept {m['kept_share']:.1%} prompt {m['prompt_share']:.1%}"
                for name, m in row.items()
                if isinstance(m, dict)
            ),
            flush=True,
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
