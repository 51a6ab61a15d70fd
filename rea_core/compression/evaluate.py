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
from pathlib import Path
from typing import Sequence

import numpy as np

from ..evals.report import write_report, write_results
from ..memory.episodic import EpisodicMemory
from ..retrieval.scoring import latent_units, max_pairwise_cosine, unit_rows
from ..text import extract_relevant, text_compress
from .codec import LATENT_CLOSE, LATENT_OPEN, DualLoRACodec, latent_message
from .data import Session

log = logging.getLogger(__name__)

FORMS = ("raw", "latent", "text", "extractive", "user", "omit")  # "user": the user text with an empty reply (a control)


def rouge_l_f1(prediction: str, reference: str) -> float:
    """ROUGE-L F1 over lowercase whitespace tokens (longest common subsequence)."""
    p, r = prediction.lower().split(), reference.lower().split()
    if not p or not r:
        return 0.0
    prev = [0] * (len(r) + 1)
    for a in p:
        cur = [0]
        for j, b in enumerate(r, 1):
            cur.append(prev[j - 1] + 1 if a == b else max(prev[j], cur[-1]))
        prev = cur
    lcs = prev[-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(p), lcs / len(r)
    return 2 * precision * recall / (precision + recall)


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
    else:
        reply = {"raw": prev["reply"], "latent": latent_message(), "text": text_compress(prev["reply"], words), "user": ""}[form]
    return [{"role": "user", "content": prev["user"]}, {"role": "assistant", "content": reply}], reply


def evaluate_compression(
    codec: DualLoRACodec,
    embedder,
    sessions: Sequence[Session],
    out: str | Path,
    *,
    probes_per_session: int = 2,
    reconstructions: int = 20,
    retrieval_candidates: int = 4,
    system_prompt: str = "You are a helpful assistant.",
    text_compress_words: int = 24,
    max_target_tokens: int = 64,
    progress: bool = True,
) -> dict:
    from tqdm.auto import tqdm

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    count = codec.generator.count_tokens
    system = [{"role": "system", "content": system_prompt}]
    marker_tokens = count(LATENT_OPEN + LATENT_CLOSE)
    rows, recon, retrieval = [], [], []
    latent_cache: dict[tuple[str, int, str], np.ndarray] = {}
    compress_s: list[float] = []

    def latents_of(session: Session, turn: int, field: str = "reply") -> np.ndarray:
        key = (session.id, turn, field)
        if key not in latent_cache:
            start = time.perf_counter()
            latent_cache[key] = codec.compress(session.turns[turn][field])
            compress_s.append(time.perf_counter() - start)
        return latent_cache[key]

    for session in tqdm(sessions, desc="compression eval", unit="session", disable=not progress):
        turns = session.turns
        for i in probe_turns(len(turns), probes_per_session):
            prev, cur = turns[i - 1], turns[i]
            row = {"session": session.id, "turn": i}
            for form in FORMS:
                hist, stand_in = exchange_messages(prev, form, text_compress_words, cur["user"])
                blocks = [latents_of(session, i - 1)] if form == "latent" else []
                messages = system + hist + [{"role": "user", "content": cur["user"]}]
                row[f"nll_{form}"], row["target_tokens"], _ = codec.target_nll(messages, blocks, cur["reply"], max_target_tokens=max_target_tokens)
                if form in ("raw", "omit"):
                    row[f"nll_{form}_base"], _, _ = codec.target_nll(messages, [], cur["reply"], max_target_tokens=max_target_tokens, adapter=None)
                row[f"tokens_{form}"] = {
                    "omit": 0,
                    "latent": count(prev["user"]) + marker_tokens + len(blocks[0]) if blocks else 0,
                }.get(form, count(prev["user"]) + count(stand_in))
            rows.append(row)
            if len(recon) < reconstructions:
                windows, _ = codec.reply_windows(prev["reply"])
                reference = codec.generator.tokenizer.decode(windows[0])
                decoded = codec.reconstruct(latents_of(session, i - 1), max_new_tokens=len(windows[0]) + 8)
                recon.append({"session": session.id, "turn": i - 1, "reference": reference, "decoded": decoded, "rouge_l": rouge_l_f1(decoded, reference)})
        if len(turns) >= 3:
            retrieval.append(_retrieval_probe(codec, embedder, session, system, retrieval_candidates, max_target_tokens, latents_of))

    results = summarize(rows, recon, retrieval)
    if compress_s:
        results["compress_ms"] = {"median": 1000 * float(np.median(compress_s)), "p95": 1000 * float(np.percentile(compress_s, 95)), "n": len(compress_s)}
    results["settings"] = {
        "sessions": len(sessions), "probes_per_session": probes_per_session, "max_target_tokens": max_target_tokens,
        "text_compress_words": text_compress_words, "codec": codec.spec.to_dict(), "codec_provenance": getattr(codec, "provenance", {}),
    }
    results["per_probe"], results["reconstructions"], results["retrieval_probes"] = rows, recon, retrieval
    write_results(out, results)
    write_report(out, "Latent compression: NLL by reply form, reconstruction, scorers", figures(results), tables(results))
    return results


def _retrieval_probe(codec, embedder, session: Session, system: list[dict], candidates: int, max_target_tokens: int, latents_of) -> dict:
    """Oracle: the earlier exchange whose raw inclusion (alone) lowers the last reply's NLL most."""
    last = len(session.turns) - 1
    earlier = list(range(max(0, last - candidates), last))
    query, target = session.turns[last]["user"], session.turns[last]["reply"]
    base, _, _ = codec.target_nll(system + [{"role": "user", "content": query}], [], target, max_target_tokens=max_target_tokens)
    gains = []
    for j in earlier:
        t = session.turns[j]
        msgs = system + [{"role": "user", "content": t["user"]}, {"role": "assistant", "content": t["reply"]}, {"role": "user", "content": query}]
        gains.append(base - codec.target_nll(msgs, [], target, max_target_tokens=max_target_tokens)[0])
    memory = EpisodicMemory()
    for j in earlier:
        memory.append(session.turns[j]["user"], session.turns[j]["reply"])
    memory.ensure_embedded(embedder)
    units, starts = memory.unit_index()
    minilm = max_pairwise_cosine(embedder.encode([query]), units, starts)
    lat_units, lat_starts = latent_units([[latents_of(session, j, "user"), latents_of(session, j)] for j in earlier])
    latent = max_pairwise_cosine(unit_rows(codec.compress(query)), lat_units, lat_starts)
    return {"session": session.id, "candidates": earlier, "nll_gain": gains, "minilm": minilm.tolist(), "latent": latent.tolist()}


def summarize(rows: list[dict], recon: list[dict], retrieval: list[dict]) -> dict:
    from scipy.stats import spearmanr

    mean = {f: float(np.mean([r[f"nll_{f}"] for r in rows])) for f in FORMS} if rows else {}
    base = {f: float(np.mean([r[f"nll_{f}_base"] for r in rows])) for f in ("raw", "omit")} if rows else {}
    tokens = {f: float(np.mean([r[f"tokens_{f}"] for r in rows])) for f in FORMS} if rows else {}
    results: dict = {"probes": len(rows), "mean_nll": mean, "mean_nll_base": base, "mean_tokens": tokens}
    if rows:
        results["gap_nats"] = mean["omit"] - mean["raw"]
        results["gap_recovered"] = {f: gap_recovered(mean["omit"], mean[f], mean["raw"]) for f in ("latent", "text", "extractive", "user")}
        # What the reply's stand-in adds beyond its user text: the user-only-to-raw gap recovered.
        results["reply_gap_recovered"] = {f: gap_recovered(mean["user"], mean[f], mean["raw"]) for f in ("latent", "text", "extractive")}
        results["target_met"] = (results["gap_recovered"]["latent"] or 0) >= 0.5
    if recon:
        results["reconstruction_rouge_l"] = float(np.mean([r["rouge_l"] for r in recon]))
    scorer = {}
    for name in ("minilm", "latent"):
        usable = [p for p in retrieval if len(p["candidates"]) >= 2 and max(p["nll_gain"]) > 0]
        if usable:
            top1 = np.mean([int(np.argmax(p[name]) == int(np.argmax(p["nll_gain"]))) for p in usable])
            rho = [spearmanr(p[name], p["nll_gain"]).statistic for p in usable if len(set(p[name])) > 1 and len(set(p["nll_gain"])) > 1]
            scorer[name] = {"top1_agreement": float(top1), "mean_spearman": float(np.nanmean(rho)) if rho else None, "probes": len(usable)}
    if scorer:
        chance = float(np.mean([1 / len(p["candidates"]) for p in retrieval if len(p["candidates"]) >= 2]))
        scorer["chance_top1"] = chance
        results["scorers"] = scorer
    return results


def figures(results: dict) -> list:
    import plotly.graph_objects as go

    figs = []
    if results.get("mean_nll"):
        labels = {"raw": "raw reply", "latent": "latent (8 vectors)", "text": "text-compressed (first words)", "extractive": "text-compressed (extractive)", "user": "user text only", "omit": "omitted"}
        nll = go.Figure(go.Bar(x=[labels[f] for f in FORMS], y=[results["mean_nll"][f] for f in FORMS],
                               text=[f"{results['mean_nll'][f]:.3f}" for f in FORMS], textposition="outside"))
        nll.update_layout(title="NLL of the next reply by form of the previous reply (generation adapter)", yaxis_title="mean NLL (nats/token)")
        figs.append(nll)
        tok = go.Figure(go.Bar(x=[labels[f] for f in FORMS], y=[results["mean_tokens"][f] for f in FORMS]))
        tok.update_layout(title="Prompt positions the previous exchange takes", yaxis_title="mean positions (tokens + latent vectors)")
        figs.append(tok)
    if results.get("scorers"):
        names = [n for n in ("minilm", "latent") if n in results["scorers"]]
        sc = go.Figure(go.Bar(x=names, y=[results["scorers"][n]["top1_agreement"] for n in names], name="top-1 agreement with the NLL oracle"))
        sc.add_hline(y=results["scorers"]["chance_top1"], line_dash="dot", annotation_text="chance")
        sc.update_layout(title="HCR scorers: which earlier exchange helps the reply most", yaxis_title="top-1 agreement")
        figs.append(sc)
    return figs


def tables(results: dict) -> list:
    if not results.get("mean_nll"):
        return []
    rec = results.get("gap_recovered", {})
    rows = [[f, results["mean_nll"][f], results["mean_tokens"][f], rec.get(f, 1.0 if f == "raw" else 0.0 if f == "omit" else None)] for f in FORMS]
    return [("Per form (generation adapter)", ["form", "mean NLL", "mean positions", "share of gap recovered"], rows)]
