"""Plotly figures of recognizer metrics (REA paper, D.2, Table 9): a version beside the previous one.

Each figure has an empty state that says what will appear and when, and short titles and a legend
under the plot, so nothing is cut off on a phone (the Review tab gives each chart 300 px or more).
"""

from __future__ import annotations

import plotly.graph_objects as go

from rea_core.recognizer import defined

COLORS = ("#7c3aed", "#9ca3af")
NOT_TRAINED = "after an adjudicator<br>trains the first candidate."
EMPTY_BARS = "Precision, recall and F1 of each version<br>appear here " + NOT_TRAINED
EMPTY_PR = "Precision-recall curves of each version<br>appear here " + NOT_TRAINED
EMPTY_CONFUSION = "Counts of right and wrong verdicts<br>appear here " + NOT_TRAINED
INSIDE_FROM = 0.2  # a bar at least this tall carries its label inside, so labels of neighbouring bars never meet
TITLE = dict(x=0.01, xanchor="left", font_size=14)
LEGEND = dict(orientation="h", x=0, xanchor="left", y=-0.18, yanchor="top")


def empty_figure(message: str, title: str, height: int = 220) -> go.Figure:
    """No axes, only ``message`` (lines split with <br>): what the chart will show, and when."""
    fig = go.Figure()
    fig.add_annotation(
        text=message, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False, font=dict(size=13, color="#555")
    )
    fig.update_layout(
        xaxis_visible=False,
        yaxis_visible=False,
        height=height,
        margin=dict(t=40, b=10, l=10, r=10),
        title=dict(text=title, **TITLE),
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


def metrics_bars(
    current: dict | None, previous: dict | None, names: tuple[str, str], empty: str = EMPTY_BARS
) -> go.Figure:
    """Precision, recall and F1 on the class global, the two versions side by side; an undefined one
    (0/0) has no bar and reads "n/a". Bars show two decimals (the hover text has three)."""
    title = "global vs rest: precision, recall, F1"
    if not current and not previous:
        return empty_figure(empty, title)
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
                texttemplate=["n/a" if v is None else "%{y:.2f}" for v in values],
                textposition=["inside" if v is not None and v >= INSIDE_FROM else "outside" for v in values],
                insidetextanchor="end",
                textangle=0,
                textfont_size=12,
                cliponaxis=False,
                hovertemplate=f"{name}<br>%{{x}} %{{text}}<extra></extra>",
            )
    fig.update_layout(
        barmode="group",
        yaxis_range=[0, 1.08],
        height=340,
        margin=dict(t=40, b=20, l=40, r=10),
        title=dict(text=title, **TITLE),
        legend=LEGEND,
        uniformtext=dict(minsize=9, mode="show"),
    )
    return fig


def pr_curves(current: dict | None, previous: dict | None, names: tuple[str, str], empty: str = EMPTY_PR) -> go.Figure:
    title = "precision-recall curve"
    if not any(m and m.get("pr_curve") for m in (current, previous)):
        return empty_figure(empty, title)
    fig = go.Figure()
    for m, name, color in ((current, names[0], COLORS[0]), (previous, names[1], COLORS[1])):
        if m and m.get("pr_curve"):
            ap = m.get("average_precision")
            fig.add_scatter(
                x=m["pr_curve"]["recall"],
                y=m["pr_curve"]["precision"],
                mode="lines",
                line_color=color,
                name=f"{name} (AP {ap:.2f})" if ap is not None else name,
            )
    fig.update_layout(
        xaxis_title="recall",
        yaxis_title="precision",
        xaxis_range=[0, 1.02],
        yaxis_range=[0, 1.05],
        height=340,
        margin=dict(t=40, b=40, l=50, r=10),
        title=dict(text=title, **TITLE),
        legend={**LEGEND, "y": -0.25},
    )
    return fig


def confusion(m: dict | None, name: str, empty: str = EMPTY_CONFUSION) -> go.Figure:
    title = f"confusion: {name}" if name else "confusion"
    if not m:
        return empty_figure(empty, title)
    fig = go.Figure()
    z = m["confusion"]  # [[TN, FP], [FN, TP]]
    fig.add_heatmap(
        z=z,
        x=["predicted<br>not global", "predicted<br>global"],
        y=["gold not global", "gold global"],
        text=[[str(v) for v in row] for row in z],
        texttemplate="%{text}",
        colorscale="Purples",
        showscale=False,
    )
    fig.update_layout(
        height=300, margin=dict(t=40, b=40, l=110, r=10), title=dict(text=title, **TITLE), yaxis_autorange="reversed"
    )
    return fig
