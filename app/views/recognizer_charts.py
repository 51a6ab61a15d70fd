"""Plotly figures of recognizer metrics (REA paper, D.2, Table 9): a version beside the previous one."""

from __future__ import annotations

import plotly.graph_objects as go

from rea_core.recognizer.metrics import defined

COLORS = ("#7c3aed", "#9ca3af")


def metrics_bars(current: dict | None, previous: dict | None, names: tuple[str, str]) -> go.Figure:
    """Precision, recall and F1 on the class global, the two versions side by side; an undefined one
    (0/0) has no bar and reads "n/a"."""
    fig = go.Figure()
    for m, name, color in ((current, names[0], COLORS[0]), (previous, names[1], COLORS[1])):
        if m:
            values = [defined(m, key) for key in ("precision", "recall", "f1")]
            fig.add_bar(
                x=["precision", "recall", "F1"],
                y=[0 if v is None else v for v in values],
                name=name,
                marker_color=color,
                text=["n/a" if v is None else f"{v:.3f}" for v in values],
                textposition="outside",
            )
    fig.update_layout(
        barmode="group", yaxis_range=[0, 1.1], height=320, margin=dict(t=30, b=30, l=40, r=10), title="global vs rest"
    )
    return fig


def pr_curves(current: dict | None, previous: dict | None, names: tuple[str, str]) -> go.Figure:
    fig = go.Figure()
    for m, name, color in ((current, names[0], COLORS[0]), (previous, names[1], COLORS[1])):
        if m and m.get("pr_curve"):
            ap = m.get("average_precision")
            fig.add_scatter(
                x=m["pr_curve"]["recall"],
                y=m["pr_curve"]["precision"],
                mode="lines",
                line_color=color,
                name=f"{name} (AP {ap:.3f})" if ap is not None else name,
            )
    fig.update_layout(
        xaxis_title="recall",
        yaxis_title="precision",
        xaxis_range=[0, 1.02],
        yaxis_range=[0, 1.05],
        height=320,
        margin=dict(t=30, b=40, l=50, r=10),
        title="precision-recall curve",
    )
    return fig


def confusion(m: dict | None, name: str) -> go.Figure:
    fig = go.Figure()
    if m:
        z = m["confusion"]  # [[TN, FP], [FN, TP]]
        fig.add_heatmap(
            z=z,
            x=["predicted not global", "predicted global"],
            y=["gold not global", "gold global"],
            text=[[str(v) for v in row] for row in z],
            texttemplate="%{text}",
            colorscale="Purples",
            showscale=False,
        )
    fig.update_layout(
        height=280, margin=dict(t=30, b=30, l=110, r=10), title=f"confusion: {name}", yaxis_autorange="reversed"
    )
    return fig
