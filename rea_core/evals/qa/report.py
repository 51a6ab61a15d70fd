"""``rea eval qa``'s report: the Mem0 paper's table layout and report.html (gap share, F1, tokens)."""

from __future__ import annotations

from pathlib import Path

from .arms import ARMS

MEM0_ORDER = ("single-hop", "multi-hop", "open-domain", "temporal")  # the Mem0 paper's column order


def mem0_table(results: dict) -> tuple[list[str], list[list]]:
    """The Mem0 paper's layout: F1 and judge (J) per category, overall, prompt tokens, seconds."""
    cats = [c for c in MEM0_ORDER if any(c in a for a in results["arms"].values())]
    header = ["arm"] + [f"{c} {m}" for c in cats for m in ("F1", "J")] + ["overall F1", "overall J", "tokens", "s/q"]
    rows = []
    for arm, m in results["arms"].items():
        row = [arm]
        for c in cats:
            row += [m.get(c, {}).get("f1"), m.get(c, {}).get("judge")]
        row += [m["all"].get("f1"), m["all"].get("judge"), m["all"].get("prompt_tokens"), m["all"].get("seconds")]
        rows.append(row)
    return header, rows


def write_qa_report(out_dir: str | Path, results: dict) -> Path:
    import plotly.graph_objects as go

    from ..report import write_report

    arms = results["arms"]
    groups = ["all"] + [c for c in MEM0_ORDER if any(c in a for a in arms.values())]
    gap = go.Figure()
    f1 = go.Figure()
    for grp in groups:
        gap.add_bar(x=list(arms), y=[a.get(grp, {}).get("gap_share") for a in arms.values()], name=grp)
        f1.add_bar(x=list(arms), y=[a.get(grp, {}).get("f1") for a in arms.values()], name=grp)
    gap.update_layout(
        title="NLL gap share per arm and category: (none - arm) / (none - oracle) on mean NLLs", barmode="group"
    )
    f1.update_layout(title="Token F1 of the generated short answer", barmode="group", yaxis_range=[0, 1])
    scatter = go.Figure()
    for arm, m in arms.items():
        scatter.add_scatter(
            x=[m["all"].get("prompt_tokens")],
            y=[m["all"].get("gap_share")],
            mode="markers+text",
            text=[arm],
            textposition="top center",
            name=arm,
            marker_size=11,
        )
    scatter.update_layout(
        title="Prompt tokens vs NLL gap share", xaxis_title="mean prompt tokens", yaxis_title="NLL gap share"
    )
    header = ["arm", "questions", "NLL scored", "mean NLL", "gap share", "F1", "EM", "judge", "prompt tokens"]
    header += ["prompt share", "evidence shown", "s/question", "memory s/question"]
    rows = [
        [
            arm,
            m["all"].get("questions"),
            m["all"].get("nll_scored"),
            m["all"].get("nll"),
            m["all"].get("gap_share"),
            m["all"].get("f1"),
            m["all"].get("em"),
            m["all"].get("judge"),
            m["all"].get("prompt_tokens"),
            m["all"].get("prompt_share"),
            m["all"].get("evidence_shown"),
            m["all"].get("seconds"),
            m["all"].get("memory_s_per_question"),
        ]
        for arm, m in arms.items()
    ]
    cat_rows = [
        [arm, grp, m[grp].get("questions"), m[grp].get("nll"), m[grp].get("gap_share"), m[grp].get("f1")]
        for arm, m in arms.items()
        for grp in groups[1:]
        if grp in m
    ]
    tables = [
        ("Arms", header, rows),
        ("Mem0 layout (F1, judge J, prompt tokens, seconds per question)", *mem0_table(results)),
    ]
    if cat_rows:
        tables.append(("Per category", ["arm", "category", "questions", "mean NLL", "gap share", "F1"], cat_rows))
    notes = (
        f"{results['conversations']} conversations, {results['questions']} questions; "
        f"generator {results['generator']}; "
        f"NLL: {results['nll']}; judge: {results['judge'] or 'none'}. "
        + " ".join(f"{arm}: {ARMS[arm]}." for arm in arms)
    )
    return write_report(out_dir, f"QA ({results['dataset']})", [gap, f1, scatter], tables, notes=notes)
