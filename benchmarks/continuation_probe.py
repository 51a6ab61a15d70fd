"""Does a trained "which exchange does this message continue" signal find the referents HCR's
scores miss? A measurement, not a shipped part.

The follow-ups REA misses ("If I only have 5?" after a training plan) score near noise under
MiniLM and BM25. This script trains a cross-encoder on ShareGPT continuations and lets it choose
referent slots, then measures the follow-up sets and LoCoMo with ``window_sweep``'s re-planning
(no generation):

1. **Pairs.** From every ShareGPT session the follow-up and back-reference sets never drew from
   (their ``origins``), each short English user message (1-30 words, no code) with the exchange
   just before it; negatives are an earlier exchange of the same session and an exchange of
   another session.
2. **Training.** all-MiniLM-L6-v2's encoder with a one-logit head, fine-tuned whole with a
   listwise loss (the continued exchange against the two negatives), 128 tokens per pair; with
   ``--lora R`` a rank-R LoRA adapter and the head instead (the size a package could ship).
3. **Policies.** The cross-encoder scores the last ``--depth`` exchanges against the message.
   ``shipped``: band 1 and two referents by score. ``A``: when the best score over those exchanges
   is at least ``theta``, no band, one referent by score and one by the cross-encoder, and none of
   the two when a window exchange outscores every candidate by ``margin`` (else the shipped slots).
   ``B(margin)``: no band, two referents by score, and a third by the cross-encoder unless a window
   exchange outscores it by ``margin``.

Run (about 25 minutes on 2 cores; ``--test`` only after choosing on the development sets):
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/continuation_probe.py \\
        --dev benchmarks/data/followups/dev-short.jsonl benchmarks/data/followups/dev-long.jsonl \\
        benchmarks/data/backrefs.jsonl --locomo ../shared/locomo-dev \\
        --test benchmarks/data/followups/test-short.jsonl benchmarks/data/followups/test-long.jsonl \\
        --out runs/continuation-probe
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_backrefs import is_english  # noqa: E402
from window_sweep import scored  # noqa: E402

from rea_core import REAConfig  # noqa: E402
from rea_core.corpora import sharegpt_sessions  # noqa: E402
from rea_core.evals.retrieval import CachedEmbedder, load_locomo, load_needed_jsonl  # noqa: E402
from rea_core.loading import load_models  # noqa: E402
from rea_core.methods.rea.strategy import REAStrategy  # noqa: E402
from rea_core.types import Reason, Resolution  # noqa: E402

MAX_TOKENS = 128
BENCHMARK_SETS = ("benchmarks/data/followups/*.jsonl", "benchmarks/data/backrefs.jsonl")


def exchange_text(user: str, reply: str) -> str:
    return " ".join(user.split()[:60]) + "\n" + " ".join(reply.split()[:120])


def encode(tokenizer, messages: list[str], texts: list[str]):
    """(message, exchange) pairs as the cross-encoder reads them, in training and in scoring alike."""
    return tokenizer(
        messages, texts, truncation="longest_first", max_length=MAX_TOKENS, padding=True, return_tensors="pt"
    )


def used_sessions(root: Path) -> set[int]:
    """ShareGPT sessions any benchmark conversation drew an exchange from: kept out of training."""
    used = set()
    for pattern in BENCHMARK_SETS:
        for path in root.glob(pattern):
            for line in path.read_text(encoding="utf-8").splitlines():
                for origin in json.loads(line).get("origins", []):
                    if origin.startswith("sharegpt:"):
                        used.add(int(origin.split(":")[1].split(".")[0]))
    return used


def build_pairs(exclude: set[int], seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    rows, pool = [], []
    for index, pairs in enumerate(sharegpt_sessions()):
        if index in exclude or len(pairs) < 2:
            continue
        texts = [exchange_text(u, r) for u, r in pairs]
        for t in range(1, len(pairs)):
            message, (user, reply) = pairs[t][0], pairs[t - 1]
            if "```" in message + user + reply or not is_english(message + user + reply):
                continue
            if not 1 <= len(message.split()) <= 30 or len(reply.split()) < 5:
                continue
            rows.append({"message": message, "continued": texts[t - 1], "earlier": texts[: max(0, t - 2)]})
        pool.extend(texts[:3])
    rng.shuffle(rows)
    for row in rows:
        earlier = row.pop("earlier")
        row["same_session"] = rng.choice(earlier) if earlier else rng.choice(pool)
        row["other_session"] = rng.choice([t for t in rng.sample(pool, 2) if t != row["continued"]] or pool)
    return rows


def train(rows: list[dict], steps: int, batch: int, out: Path, lora_rank: int = 0) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from rea_core.backends import packaged

    torch.manual_seed(0)
    source = str(packaged.packaged_embedder_dir())
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForSequenceClassification.from_pretrained(source, num_labels=1)
    if lora_rank:  # the size the package could ship: an adapter and the head, not a second encoder
        from peft import LoraConfig, get_peft_model

        targets = ["query", "key", "value", "dense"]
        config = LoraConfig(
            r=lora_rank, lora_alpha=2 * lora_rank, target_modules=targets, modules_to_save=["classifier"]
        )
        model = get_peft_model(model, config)
    held, rows = rows[-300:], rows[:-300]
    learning_rate = 4e-4 if lora_rank else 5e-5
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=learning_rate, weight_decay=0.01
    )
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 50) * max(0.0, 1 - s / steps))

    def logits(group: list[dict]):
        messages = [r["message"] for r in group for _ in range(3)]
        texts = [t for r in group for t in (r["continued"], r["same_session"], r["other_session"])]
        return model(**encode(tokenizer, messages, texts)).logits.view(-1, 3)

    start = time.time()
    model.train()
    for step in range(steps):
        group = [rows[(step * batch + k) % len(rows)] for k in range(batch)]
        loss = torch.nn.functional.cross_entropy(logits(group), torch.zeros(len(group), dtype=torch.long))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        if step % 25 == 0 or step == steps - 1:
            print(f"  step {step + 1}/{steps}  loss {loss.item():.3f}  {time.time() - start:.0f} s", flush=True)
    model.eval()
    with torch.no_grad():
        top1 = np.mean([int(logits(held[i : i + 50]).argmax(1).eq(0).sum()) for i in range(0, len(held), 50)]) / 50
    print(f"held-out pairs: the continued exchange ranked first of three in {top1:.3f}", flush=True)
    if lora_rank:
        model = model.merge_and_unload()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


class ContinuationScorer:
    def __init__(self, folder: Path):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForSequenceClassification.from_pretrained(folder).eval()

    def __call__(self, message: str, exchanges) -> np.ndarray:
        if not exchanges:
            return np.zeros(0)
        texts = [exchange_text(e.user, e.reply) for e in exchanges]
        with self.torch.no_grad():
            return self.model(**encode(self.tokenizer, [message] * len(texts), texts)).logits.squeeze(-1).numpy()


Picks = Callable[[list[int], list[int], np.ndarray, list[int]], list[int]]
Policy = Callable[[np.ndarray], tuple[int, Picks]]


def shipped(ces: np.ndarray) -> tuple[int, Picks]:
    return 1, lambda by_score, by_ce, ces, window: by_score[:2]


def policy_a(theta: float, margin: float) -> Policy:
    def choose(ces: np.ndarray) -> tuple[int, Picks]:
        finite = ces[np.isfinite(ces)]
        if not len(finite) or finite.max() < theta:
            return shipped(ces)

        def picks(by_score, by_ce, ces, window):
            best_window = max((ces[i] for i in window), default=-np.inf)
            if by_ce and best_window >= ces[by_ce[0]] + margin:
                return []
            first = by_score[:1]
            return first + [i for i in by_ce if i not in first][:1]

        return 0, picks

    return choose


def policy_b(margin: float) -> Policy:
    def choose(ces: np.ndarray) -> tuple[int, Picks]:
        def picks(by_score, by_ce, ces, window):
            first = by_score[:2]
            rest = [i for i in by_ce if i not in first]
            best_window = max((ces[i] for i in window), default=-np.inf)
            return first if not rest or best_window >= ces[rest[0]] + margin else first + rest[:1]

        return 0, picks

    return choose


POLICIES: dict[str, Policy] = {
    "shipped": shipped,
    "A (theta 0, margin 0.5)": policy_a(0.0, 0.5),
    **{f"B (margin {m})": policy_b(m) for m in (0.0, 0.5, 1.0, 2.0)},
}


def measure(strategies: dict[int, REAStrategy], items, ce_scores, policy: Policy) -> tuple[float, float]:
    kept_all, kept_share = [], []
    for (text, exchanges, scores, needed, _), ces in zip(items, ce_scores):
        band, picks = policy(ces)
        strategy = strategies[band]
        _, decisions = strategy.replan(text, exchanges, (), scores, strategy.config.thresholds)
        kept = [d.resolution is not Resolution.OMIT for d in decisions]
        omitted = [
            i for i, d in enumerate(decisions) if d.resolution is Resolution.OMIT and d.reason is not Reason.IN_IM
        ]
        score = [d.score if d.score is not None else -np.inf for d in decisions]
        by_score = sorted(omitted, key=lambda i: (-score[i], -i))
        by_ce = sorted((i for i in omitted if np.isfinite(ces[i])), key=lambda i: -ces[i])
        window = [i for i, d in enumerate(decisions) if d.reason is Reason.RECENT]
        for i in picks(by_score, by_ce, ces, window):
            kept[i] = True
        kept_all.append(all(kept[i] for i in needed))
        kept_share.append(sum(kept) / max(1, len(kept)))
    return float(np.mean(kept_all)), float(np.mean(kept_share))


def evaluate(base: REAStrategy, scorer: ContinuationScorer, sets: dict, depth: int) -> dict:
    strategies = {
        band: base.with_config(replace(base.config, recent_compressed=band, referent_top_k=0)) for band in (0, 1)
    }
    results = {}
    for name, cases in sets.items():
        items = scored(base, cases)
        ce_scores = []
        for text, exchanges, *_ in items:
            low = max(0, len(exchanges) - depth)
            ce_scores.append(np.concatenate([np.full(low, -np.inf), scorer(text, exchanges[low:])]))
        print(f"{name}: {len(items)} queries scored", flush=True)
        results[name] = {policy: measure(strategies, items, ce_scores, POLICIES[policy]) for policy in POLICIES}
    for policy in POLICIES:
        cells = (f"{name}: {r[policy][0]:.3f} at {r[policy][1]:.1%}" for name, r in results.items())
        print(f"{policy:24s} " + "  ".join(cells))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", nargs="*", default=[], help='conversation JSONL with "needed" (development)')
    parser.add_argument("--locomo", help="LoCoMo development folder")
    parser.add_argument("--test", nargs="*", default=[], help="test JSONL, measured once after choosing on --dev")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lora", type=int, default=0, help="train a LoRA adapter of this rank, not the whole encoder")
    parser.add_argument("--depth", type=int, default=12, help="the latest exchanges the cross-encoder reads")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    model_dir = args.out / "cross-encoder"
    if not (model_dir / "config.json").exists():
        exclude = used_sessions(Path(__file__).resolve().parent.parent)
        rows = build_pairs(exclude)
        print(f"{len(rows)} continuation pairs from ShareGPT ({len(exclude)} benchmark sessions left out)", flush=True)
        train(rows, args.steps, args.batch, model_dir, lora_rank=args.lora)
    scorer = ContinuationScorer(model_dir)
    models = load_models("packaged", "packaged", codec="none")
    models.generator.count_tokens = lru_cache(maxsize=None)(models.generator.count_tokens)
    base = REAStrategy(models.generator, CachedEmbedder(models.embedder), REAConfig(), recognizer=None, codec=None)
    report = {}
    for label, paths in (("dev", args.dev), ("test", args.test)):
        sets = {Path(p).name: load_needed_jsonl(p) for p in paths}
        if label == "dev" and args.locomo:
            sets["locomo-dev"] = load_locomo(args.locomo)
        if sets:
            print(f"--- {label}", flush=True)
            report[label] = evaluate(base, scorer, sets, args.depth)
    (args.out / "results.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(f"wrote {args.out / 'results.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
