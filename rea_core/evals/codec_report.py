"""``rea eval compression``'s report: per form of a compressed exchange, the next reply's NLL, the share of
the omitted-to-raw gap it recovers, the prompt positions it takes, and the HCR scorers' agreement."""

from __future__ import annotations

LABELS = {  # every form of ``codec.FORMS``, in that order
    "raw": "raw reply",
    "omit": "omitted",
    "user": "user text only",
    "text": "text-compressed (first words)",
    "extractive": "text-compressed (extractive)",
    "latent": "shipped latent (8 vectors)",
    "optimized": "optimized latent (generation adapter)",
    "optimized_plain": "optimized latent (plain backbone)",
    "retrained": "retrained latent (retention objective)",
}


def figures(results: dict) -> list:
    import plotly.graph_objects as go

    figs = []
    forms = results.get("forms") or [f for f in LABELS if f in results.get("mean_nll", {})]
    if results.get("mean_nll"):
        nll = go.Figure(
            go.Bar(
                x=[LABELS[f] for f in forms],
                y=[results["mean_nll"][f] for f in forms],
                text=[f"{results['mean_nll'][f]:.3f}" for f in forms],
                textposition="outside",
            )
        )
        nll.update_layout(
            title="NLL of the next reply by form of the previous reply (each latent form under its own reader)",
            yaxis_title="mean NLL (nats/token)",
        )
        figs.append(nll)
        shares = [f for f in forms if f in results.get("gap_recovered", {})]
        gap = go.Figure(
            [
                go.Bar(
                    x=[LABELS[f] for f in shares],
                    y=[results["gap_recovered"][f] for f in shares],
                    name="gap share (omitted -> raw)",
                ),
                go.Bar(
                    x=[LABELS[f] for f in shares],
                    y=[results["reply_gap_recovered"].get(f) for f in shares],
                    name="beyond user-only",
                ),
            ]
        )
        gap.update_layout(
            title="Share of the NLL gap each form recovers", yaxis_title="share (1 = as good as raw)", barmode="group"
        )
        figs.append(gap)
        tok = go.Figure(go.Bar(x=[LABELS[f] for f in forms], y=[results["mean_tokens"][f] for f in forms]))
        tok.update_layout(
            title="Prompt positions the previous exchange takes",
            yaxis_title="mean positions (tokens + latent vectors)",
        )
        figs.append(tok)
    if results.get("scorers"):
        names = [n for n in ("minilm", "latent") if n in results["scorers"]]
        sc = go.Figure(
            go.Bar(
                x=names,
                y=[results["scorers"][n]["top1_agreement"] for n in names],
                name="top-1 agreement with the NLL oracle",
            )
        )
        sc.add_hline(y=results["scorers"]["chance_top1"], line_dash="dot", annotation_text="chance")
        sc.update_layout(
            title="HCR scorers: which earlier exchange helps the reply most", yaxis_title="top-1 agreement"
        )
        figs.append(sc)
    return figs


def form_table(results: dict) -> list[list]:
    """One row per form: NLL, gap share, beyond user-only, positions, ROUGE-L, seconds per reply (median)."""
    rows = []
    gap, beyond, rouge, secs = (
        results.get(k, {}) for k in ("gap_recovered", "reply_gap_recovered", "rouge_l", "seconds_per_reply")
    )
    for f in results.get("forms") or []:
        share = 1.0 if f == "raw" else 0.0 if f == "omit" else gap.get(f)
        rows.append(
            [
                LABELS[f],
                results["mean_nll"][f],
                share,
                beyond.get(f),
                results["mean_tokens"][f],
                rouge.get(f),
                (secs.get(f) or {}).get("median"),
            ]
        )
    return rows


def tables(results: dict) -> list:
    if not results.get("mean_nll"):
        return []
    head = [
        "form",
        "mean NLL",
        "gap share",
        "beyond user-only",
        "positions",
        "reconstruction ROUGE-L",
        "seconds per reply (median)",
    ]
    return [
        (
            "Per form (each latent form against raw / omitted / user-only under its own reader)",
            head,
            form_table(results),
        )
    ]
