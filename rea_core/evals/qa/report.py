"""``rea eval qa``'s report: the Mem0 paper's table layout, report.html's tables, and the charts report.html
and the Results tab share (gap share, F1, prompt tokens)."""

from __future__ import annotations

from .. import charts as c
from ..arms import plain_name
from ..task import Report
from .prompts import ARMS

MEM0_ORDER = ("single-hop", "multi-hop", "open-domain", "temporal")  # the Mem0 paper's column order


def mem0_table(results: dict) -> tuple[list[str], list[list]]:
    """The Mem0 paper's layout: F1 and judge (J) per category, overall, prompt tokens, seconds."""
    cats = [cat for cat in MEM0_ORDER if any(cat in a for a in results["arms"].values())]
    header = ["arm"] + [f"{cat} {m}" for cat in cats for m in ("F1", "J")]
    header += ["overall F1", "overall J", "tokens", "s/q"]
    rows = []
    for arm, m in results["arms"].items():
        row = [arm]
        for cat in cats:
            row += [m.get(cat, {}).get("f1"), m.get(cat, {}).get("judge")]
        row += [m["all"].get("f1"), m["all"].get("judge"), m["all"].get("prompt_tokens"), m["all"].get("seconds")]
        rows.append(row)
    return header, rows


def qa_report(results: dict) -> Report:
    """report.html's title, tables and notes."""
    arms = results["arms"]
    groups = [g for g in MEM0_ORDER if any(g in a for a in arms.values())]
    keys = ("questions", "nll_scored", "nll", "gap_share", "f1", "em", "judge", "prompt_tokens", "prompt_share")
    keys += ("evidence_shown", "seconds", "memory_s_per_question")
    header = ["arm", "questions", "NLL scored", "mean NLL", "gap share", "F1", "EM", "judge", "prompt tokens"]
    header += ["prompt share", "evidence shown", "s/question", "memory s/question"]
    rows = [[arm, *(m["all"].get(k) for k in keys)] for arm, m in arms.items()]
    cat_rows = [
        [arm, grp, m[grp].get("questions"), m[grp].get("nll"), m[grp].get("gap_share"), m[grp].get("f1")]
        for arm, m in arms.items()
        for grp in groups
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
    return Report(f"QA ({results['dataset']})", tables, notes=notes)


def qa_figures(results: dict) -> c.Figures:
    """Gap share and F1 per arm and category, and prompt tokens against gap share, from a checked file."""
    import plotly.graph_objects as go

    arms = c.series(results, "arms", "arms")
    questions, conversations = c.count(results, "questions"), c.count(results, "conversations")
    groups = ["all"] + [g for g in MEM0_ORDER if any(g in a for a in arms.values())]
    for arm, m in arms.items():
        for grp in groups:
            if grp in m or grp == "all":
                where = f'arm "{c.clip(arm)}" {grp}'
                found = c.obj(m.get(grp), where)
                c.optional_number(found.get("gap_share"), f"{where} gap_share")
                c.optional_number(found.get("f1"), f"{where} f1", lo=0, hi=1)
                c.optional_number(found.get("prompt_tokens"), f"{where} prompt_tokens", lo=0)
    scale = c.small_run(f"{c.n_of(conversations, 'chat')}, {c.n_of(questions, 'question')}", questions, 100)
    shown = [c.plain(plain_name(a)) for a in arms]
    gap, f1 = go.Figure(), go.Figure()
    for grp in groups:
        gap.add_bar(x=shown, y=[a.get(grp, {}).get("gap_share") for a in arms.values()], name=c.plain(grp))
        f1.add_bar(x=shown, y=[a.get(grp, {}).get("f1") for a in arms.values()], name=c.plain(grp))
    for fig in (gap, f1):
        fig.update_xaxes(tickvals=shown, ticktext=[c.wrapped(plain_name(a), 12) for a in arms], tickangle=0)
    gap_chart = c.chart(
        gap,
        "How much of the evidence's help each prompt keeps",
        (scale, "0: no better than no history · 1: as good as the needed turns alone"),
        legend_rows=len(groups),
        barmode="group",
        yaxis=dict(title="share of the gain kept"),
    )
    c.empty_state(gap, "Bars appear here once a run scores answers with and without the needed turns.")
    f1_chart = c.chart(
        f1,
        "Answers that match the gold answer",
        (scale, "word overlap with the gold answer (F1)"),
        legend_rows=len(groups),
        barmode="group",
        yaxis=dict(title="word overlap", range=[0, 1.05], tickformat=".0%"),
    )
    c.empty_state(f1, "Bars appear here once a run generates answers.")
    scatter = go.Figure()
    for i, (arm, m) in enumerate(arms.items()):
        scatter.add_scatter(
            x=[m["all"].get("prompt_tokens")],
            y=[m["all"].get("gap_share")],
            mode="markers",
            name=c.plain(plain_name(arm)),
            marker=dict(color=c.color(arm, i), size=12),
            hovertemplate="%{x:.0f} tokens read, %{y:.2f} of the gain kept" + c.hover(arm),
        )
    scatter_chart = c.chart(
        scatter,
        "What each prompt costs and keeps",
        scale,
        legend_rows=len(arms),
        xaxis=dict(title="mean prompt length (tokens)", rangemode="tozero"),
        yaxis=dict(title="share of the gain kept"),
    )
    c.empty_state(scatter, "A point per arm appears here once a run scores answers with and without the needed turns.")
    dataset = results.get("dataset")
    dataset = c.clip(dataset) if isinstance(dataset, str) else "?"
    data_file = dataset.removesuffix(" (jsonl)").removesuffix(" (locomo)")
    fmt = " --format locomo" if dataset.endswith(" (locomo)") else ""
    return c.Figures(
        title="Answering a question from what each memory sends",
        summary="Each question is answered from the prompt each memory builds. The gain is how much likelier the "
        "model finds the gold answer than with no history, as a share of the gain from the needed turns alone.",
        names=tuple(arms),
        scale=c.with_model(scale, results.get("generator")),
        command=f"rea eval qa --data <{data_file}>{fmt} --arms {','.join(arms)} --out <folder>",
        charts=(gap_chart, f1_chart, scatter_chart),
    )
