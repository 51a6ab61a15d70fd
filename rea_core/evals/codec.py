"""``rea eval compression``: what latent replies keep and cost, on held-out sessions.

For each probe (turn i of a held-out session), the NLL of the reference reply i when the previous
exchange enters the prompt with its reply raw, latent, text-compressed, or not at all (omitted, as
HCR omits it). The share of the omitted-to-raw NLL gap that a form recovers is
``(NLL_omit - NLL_form) / (NLL_omit - NLL_raw)`` over the probe means. A control form keeps the
user text with an empty reply, so what the reply's stand-in adds beyond its user text is reported
too (``reply_gap_recovered``, the user-only-to-raw gap). All four run under the
generation adapter (REA's generator); raw and omitted are also measured on the plain backbone.

Also: reconstruction ROUGE-L of replies decoded back from their latents, and the two HCR scorers
(MiniLM sentence embeddings vs latent vectors) against an NLL oracle: for a query with several
earlier exchanges, the exchange whose raw inclusion lowers the reply's NLL most.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..compression.codec import GENERATE, DualLoRACodec, latent_message
from ..compression.optimize import OptimizeConfig, decode_optimized, optimize_latents
from ..memory.episodic import EpisodicMemory
from ..reconstruction import LATENT_CLOSE, LATENT_OPEN
from ..retrieval.scoring import latent_units, max_pairwise_cosine, unit_rows
from ..text import extract_relevant, text_compress
from ..training.codec_data import Session
from .codec_report import figures, tables
from .report import write_report, write_results

log = logging.getLogger(__name__)

# Forms of the previous exchange. "user": the user text with an empty reply (a control). Latent forms:
# "latent" (the codec's encoder), "optimized" (fitted per reply under the generation adapter),
# "optimized_plain" (fitted on the plain backbone), "retrained" (a second codec, e.g. the retention one).
TEXT_FORMS = ("raw", "omit", "user", "text", "extractive")
LATENT_FORMS = ("latent", "optimized", "optimized_plain", "retrained")
FORMS = TEXT_FORMS + LATENT_FORMS
# Which model reads each latent form: its gap shares are taken against raw / omit / user under the same reader.
READER = {"latent": "generate", "optimized": "generate", "optimized_plain": "plain", "retrained": "retrained"}
BASELINES = ("raw", "omit", "user")


def rouge_l_f1(prediction: str, reference: str) -> float:
    """ROUGE-L F1 (Google's ``rouge-score`` package: lowercased alphanumeric tokens, no stemming)."""
    from rouge_score import rouge_scorer

    return float(rouge_scorer.RougeScorer(["rougeL"]).score(reference, prediction)["rougeL"].fmeasure)


def gap_recovered(nll_omit: float, nll_form: float, nll_raw: float) -> float | None:
    """Share of the omitted-to-raw NLL gap a form recovers (1 = as good as raw, 0 = as bad as omitting)."""
    gap = nll_omit - nll_raw
    return None if abs(gap) < 1e-9 else (nll_omit - nll_form) / gap


def probe_turns(n_turns: int, per_session: int) -> list[int]:
    """Target turns of a session's probes: evenly spread over turns 1..n-1, always including the last."""
    candidates = list(range(1, n_turns))
    if len(candidates) <= per_session:
        return candidates
    picks = np.linspace(len(candidates) - 1, 0, per_session).round().astype(int)
    return sorted({candidates[i] for i in picks})


def exchange_messages(prev: dict, form: str, words: int, query: str = "") -> tuple[list[dict], str]:
    """Messages for the previous exchange in ``form`` and the reply text standing in (for token counts).

    ``text`` is the reply's first ``words`` words; ``extractive`` its sentences nearest ``query`` within them."""
    if form == "omit":
        return [], ""
    if form == "extractive":
        reply = extract_relevant(prev["reply"], query, words)
    elif form in LATENT_FORMS:
        reply = latent_message()
    else:
        reply = {"raw": prev["reply"], "text": text_compress(prev["reply"], words), "user": ""}[form]
    return [{"role": "user", "content": prev["user"]}, {"role": "assistant", "content": reply}], reply


@dataclass
class _LatentSource:
    """How one latent form is made, read and decoded back."""

    codec: DualLoRACodec  # whose adapters read it
    adapter: str | None  # reader: the codec's generation adapter, or None (plain backbone)
    make: Callable[[dict], tuple[np.ndarray, dict]]  # turn -> (latents, record)
    decode: Callable[[dict, np.ndarray, int], str]  # (turn, latents, max tokens) -> text


def evaluate_compression(
    codec: DualLoRACodec,
    embedder,
    sessions: Sequence[Session],
    out: str | Path,
    *,
    forms: Sequence[str] = ("raw", "omit", "user", "text", "extractive", "latent"),
    optimize: OptimizeConfig | None = None,
    retrained: DualLoRACodec | None = None,
    probes_per_session: int = 2,
    reconstructions: int = 20,
    retrieval_probes: bool = True,
    retrieval_candidates: int = 4,
    system_prompt: str = "You are a helpful assistant.",
    text_compress_words: int = 24,
    max_target_tokens: int = 64,
    progress: bool = True,
) -> dict:
    """Every form of the previous exchange in one table: NLL, gap shares, positions, ROUGE-L, time.

    Args:
        codec: the shipped (or given) codec; its generation adapter reads the text forms and "latent".
        forms: which of ``FORMS`` to measure (raw, omit and user are always measured: the baselines).
        optimize: settings of the "optimized" and "optimized_plain" forms (their ``adapter`` is set per form).
        retrained: a second codec, on its own copy of the backbone, for the "retrained" form.
    """
    from tqdm.auto import tqdm

    unknown = set(forms) - set(FORMS)
    if unknown:
        raise ValueError(f"unknown forms {sorted(unknown)}; choose from {', '.join(FORMS)}")
    if "retrained" in forms and retrained is None:
        raise ValueError("the 'retrained' form needs a retrained codec (--retrained)")
    forms = [f for f in FORMS if f in set(forms) | set(BASELINES)]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    count = codec.generator.count_tokens
    system = [{"role": "system", "content": system_prompt}]
    marker_tokens = count(LATENT_OPEN + LATENT_CLOSE)
    optimize = optimize or OptimizeConfig(system_prompt=system_prompt)
    sources: dict[str, _LatentSource] = {}

    def fitter(adapter: str) -> _LatentSource:
        cfg = replace(optimize, adapter=adapter, system_prompt=system_prompt)

        def make(turn):
            fit = optimize_latents(codec, turn["user"], turn["reply"], cfg)
            return fit.latents, fit.record(cfg.key)

        return _LatentSource(
            codec,
            cfg.adapter_name,
            make,
            lambda turn, lat, n: decode_optimized(codec, turn["user"], lat, cfg, max_new_tokens=n),
        )

    def encoder(c: DualLoRACodec) -> _LatentSource:
        return _LatentSource(
            c,
            GENERATE,
            lambda turn: (c.compress(turn["reply"]), {}),
            lambda turn, lat, n: c.reconstruct(lat, max_new_tokens=n),
        )

    for form in forms:
        if form == "latent":
            sources[form] = encoder(codec)
        elif form == "optimized":
            sources[form] = fitter("generate")
        elif form == "optimized_plain":
            sources[form] = fitter("none")
        elif form == "retrained":
            sources[form] = encoder(retrained)
    readers = {"generate": (codec, GENERATE)}
    if "optimized_plain" in sources:
        readers["plain"] = (codec, None)
    if retrained is not None and "retrained" in sources:
        readers["retrained"] = (retrained, GENERATE)

    rows, recon, retrieval = [], [], []
    cache: dict[tuple[str, str, int], np.ndarray] = {}
    fits: list[dict] = []  # optimization records (steps, accuracy, stop reason)
    seconds: dict[str, list[float]] = {f: [] for f in forms}

    def latents_of(form: str, session: Session, turn: int) -> np.ndarray:
        key = (form, session.id, turn)
        if key not in cache:
            start = time.perf_counter()
            cache[key], record = sources[form].make(session.turns[turn])
            seconds[form].append(time.perf_counter() - start)
            if record.get("steps") is not None:
                fits.append({"form": form, **record})
        return cache[key]

    def encoded(
        session: Session, turn: int, field: str = "reply"
    ) -> np.ndarray:  # the shipped encoder, for the scorer probe
        key = ("encode-" + field, session.id, turn)
        if key not in cache:
            cache[key] = codec.compress(session.turns[turn][field])
        return cache[key]

    for session in tqdm(sessions, desc="compression eval", unit="session", disable=not progress):
        turns = session.turns
        for i in probe_turns(len(turns), probes_per_session):
            prev, cur = turns[i - 1], turns[i]
            row = {"session": session.id, "turn": i}
            for form in forms:
                start = time.perf_counter()
                hist, stand_in = exchange_messages(prev, form, text_compress_words, cur["user"])
                if form in TEXT_FORMS:
                    seconds[form].append(time.perf_counter() - start)
                blocks = [latents_of(form, session, i - 1)] if form in sources else []
                messages = system + hist + [{"role": "user", "content": cur["user"]}]
                target = cur["reply"]
                if form in sources:
                    src = sources[form]
                    row[f"nll_{form}"], row["target_tokens"], _ = src.codec.target_nll(
                        messages, blocks, target, max_target_tokens=max_target_tokens, adapter=src.adapter
                    )
                else:
                    row[f"nll_{form}"], row["target_tokens"], _ = codec.target_nll(
                        messages, [], target, max_target_tokens=max_target_tokens
                    )
                if form in BASELINES:  # the same baseline under every other reader
                    for reader, (c, adapter) in readers.items():
                        if reader != "generate":
                            row[f"nll_{form}@{reader}"], _, _ = c.target_nll(
                                messages, [], target, max_target_tokens=max_target_tokens, adapter=adapter
                            )
                row[f"tokens_{form}"] = (
                    0
                    if form == "omit"
                    else count(prev["user"]) + (marker_tokens + len(blocks[0]) if blocks else count(stand_in))
                )
            rows.append(row)
            if len(recon) < reconstructions:
                windows, _ = codec.reply_windows(prev["reply"])
                reference = codec.generator.tokenizer.decode(windows[0])
                item = {"session": session.id, "turn": i - 1, "reference": reference, "decoded": {}, "rouge_l": {}}
                for form in forms:
                    if form in sources:
                        text = sources[form].decode(prev, latents_of(form, session, i - 1), len(windows[0]) + 8)
                    else:
                        text = exchange_messages(prev, form, text_compress_words, cur["user"])[1]
                    item["decoded"][form] = text
                    item["rouge_l"][form] = rouge_l_f1(text, reference)
                recon.append(item)
        if retrieval_probes and len(turns) >= 3:
            retrieval.append(
                _retrieval_probe(codec, embedder, session, system, retrieval_candidates, max_target_tokens, encoded)
            )

    results = summarize(rows, recon, retrieval, forms=forms, readers=[r for r in readers if r != "generate"])
    results["seconds_per_reply"] = {
        f: {"median": float(np.median(v)), "p95": float(np.percentile(v, 95)), "n": len(v)}
        for f, v in seconds.items()
        if v
    }
    if "latent" in results["seconds_per_reply"]:
        lat = results["seconds_per_reply"]["latent"]
        results["compress_ms"] = {"median": 1000 * lat["median"], "p95": 1000 * lat["p95"], "n": lat["n"]}
    if fits:
        results["optimize"] = optimize_summary(fits)
    results["settings"] = {
        "sessions": len(sessions),
        "probes_per_session": probes_per_session,
        "max_target_tokens": max_target_tokens,
        "text_compress_words": text_compress_words,
        "codec": codec.spec.to_dict(),
        "codec_provenance": codec.provenance,
        "optimize": asdict(optimize),
        "retrained": None
        if retrained is None
        else {"spec": retrained.spec.to_dict(), "provenance": retrained.provenance},
    }
    results["per_probe"], results["reconstructions"], results["retrieval_probes"], results["fits"] = (
        rows,
        recon,
        retrieval,
        fits,
    )
    write_results(out, results)
    write_report(out, "Latent compression: every form of a compressed exchange", figures(results), tables(results))
    return results


def optimize_summary(fits: list[dict]) -> dict:
    """Cost and outcome of the per-reply fits, per form: steps, seconds (median, p95), accuracy, stop reasons."""
    out = {}
    for form in sorted({f["form"] for f in fits}):
        mine = [f for f in fits if f["form"] == form]
        steps, secs = [f["steps"] for f in mine], [f["seconds"] for f in mine]
        out[form] = {
            "replies": len(mine),
            "steps_median": float(np.median(steps)),
            "steps_p95": float(np.percentile(steps, 95)),
            "seconds_median": float(np.median(secs)),
            "seconds_p95": float(np.percentile(secs, 95)),
            "seconds_per_step": float(np.sum(secs) / max(1, np.sum(steps))),
            "accuracy_mean": float(np.mean([f["accuracy"] for f in mine])),
            "stopped_by": {k: sum(f["stopped_by"] == k for f in mine) for k in ("accuracy", "budget", "interrupted")},
        }
    return out


def _retrieval_probe(
    codec, embedder, session: Session, system: list[dict], candidates: int, max_target_tokens: int, latents_of
) -> dict:
    """Oracle: the earlier exchange whose raw inclusion (alone) lowers the last reply's NLL most."""
    last = len(session.turns) - 1
    earlier = list(range(max(0, last - candidates), last))
    query, target = session.turns[last]["user"], session.turns[last]["reply"]
    base, _, _ = codec.target_nll(
        system + [{"role": "user", "content": query}], [], target, max_target_tokens=max_target_tokens
    )
    gains = []
    for j in earlier:
        t = session.turns[j]
        msgs = system + [
            {"role": "user", "content": t["user"]},
            {"role": "assistant", "content": t["reply"]},
            {"role": "user", "content": query},
        ]
        gains.append(base - codec.target_nll(msgs, [], target, max_target_tokens=max_target_tokens)[0])
    memory = EpisodicMemory()
    for j in earlier:
        memory.append(session.turns[j]["user"], session.turns[j]["reply"])
    memory.ensure_embedded(embedder)
    units, starts = memory.unit_index()
    minilm = max_pairwise_cosine(embedder.encode([query]), units, starts)
    lat_units, lat_starts = latent_units(
        [[latents_of(session, j, "user"), latents_of(session, j)] for j in earlier]
    )  # the shipped encoder
    latent = max_pairwise_cosine(unit_rows(codec.compress(query)), lat_units, lat_starts)
    return {
        "session": session.id,
        "candidates": earlier,
        "nll_gain": gains,
        "minilm": minilm.tolist(),
        "latent": latent.tolist(),
    }


def summarize(
    rows: list[dict],
    recon: list[dict],
    retrieval: list[dict],
    *,
    forms: Sequence[str] = TEXT_FORMS + ("latent",),
    readers: Sequence[str] = (),
) -> dict:
    """Per form: mean NLL, gap share (omitted -> raw) and beyond user-only (user-only -> raw), each
    against the baselines under the form's own reader; positions; reconstruction ROUGE-L."""
    from scipy.stats import spearmanr

    forms = [f for f in forms if rows and f"nll_{f}" in rows[0]]
    mean = {f: float(np.mean([r[f"nll_{f}"] for r in rows])) for f in forms} if rows else {}
    base = {
        f: float(np.mean([r[f"nll_{f}_base"] for r in rows]))
        for f in ("raw", "omit")
        if rows and f"nll_{f}_base" in rows[0]
    }
    tokens = {f: float(np.mean([r[f"tokens_{f}"] for r in rows])) for f in forms} if rows else {}
    results: dict = {
        "probes": len(rows),
        "forms": forms,
        "mean_nll": mean,
        "mean_nll_base": base,
        "mean_tokens": tokens,
    }
    if rows:
        under = {"generate": {b: mean[b] for b in BASELINES}}
        for reader in readers:
            under[reader] = {b: float(np.mean([r[f"nll_{b}@{reader}"] for r in rows])) for b in BASELINES}
        results["baselines"] = under
        results["gap_nats"] = mean["omit"] - mean["raw"]
        gap, beyond = {}, {}
        for f in forms:
            if f in ("raw", "omit"):
                continue
            b = under[READER.get(f, "generate")]
            gap[f] = gap_recovered(b["omit"], mean[f], b["raw"])
            if f != "user":  # what the reply's stand-in adds beyond its user text: the user-only-to-raw gap recovered
                beyond[f] = gap_recovered(b["user"], mean[f], b["raw"])
        results["gap_recovered"], results["reply_gap_recovered"] = gap, beyond
        results["target_met"] = (gap.get("latent") or 0) >= 0.5
    if recon:
        per_form = recon[0]["rouge_l"]
        if isinstance(per_form, dict):
            results["rouge_l"] = {f: float(np.mean([r["rouge_l"][f] for r in recon])) for f in per_form}
            if "latent" in results["rouge_l"]:
                results["reconstruction_rouge_l"] = results["rouge_l"]["latent"]
        else:
            results["reconstruction_rouge_l"] = float(np.mean([r["rouge_l"] for r in recon]))
    scorer = {}
    for name in ("minilm", "latent"):
        usable = [p for p in retrieval if len(p["candidates"]) >= 2 and max(p["nll_gain"]) > 0]
        if usable:
            top1 = np.mean([int(np.argmax(p[name]) == int(np.argmax(p["nll_gain"]))) for p in usable])
            rho = [
                spearmanr(p[name], p["nll_gain"]).statistic
                for p in usable
                if len(set(p[name])) > 1 and len(set(p["nll_gain"])) > 1
            ]
            scorer[name] = {
                "top1_agreement": float(top1),
                "mean_spearman": float(np.nanmean(rho)) if rho else None,
                "probes": len(usable),
            }
    if scorer:
        chance = float(np.mean([1 / len(p["candidates"]) for p in retrieval if len(p["candidates"]) >= 2]))
        scorer["chance_top1"] = chance
        results["scorers"] = scorer
    return results
