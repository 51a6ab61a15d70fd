"""Plotly figures: HCR scores of the latest query, and the query x exchange score heatmap."""

from __future__ import annotations

from html import escape

import numpy as np
import plotly.graph_objects as go

from rea_core import Decision, Exchange, Resolution

COLORS = {Resolution.RAW: "#2e7d32", Resolution.COMPRESSED: "#f9a825", Resolution.OMIT: "#9e9e9e"}


def _short(text: str, n: int = 120) -> str:
    text = " ".join(text.split())
    return escape(text if len(text) <= n else text[: n - 1] + "…")


def retrieval_chart(
    decisions: tuple[Decision, ...], exchanges: list[Exchange], *, tau_low: float, tau_high: float, query: str = "", score_label: str | None = None
) -> go.Figure:
    """One bar per stored exchange, colored by decision; with ``score_label`` (the strategy's
    thresholded score) tau_low and tau_high are drawn as lines, else the scores are the strategy's own ranking."""
    fig = go.Figure()
    scored = [d for d in decisions if d.score is not None]
    for resolution in Resolution:
        picked = [d for d in scored if d.resolution is resolution]
        fig.add_bar(
            x=[d.turn for d in picked],
            y=[d.score for d in picked],
            name=resolution.value,
            marker_color=COLORS[resolution],
            hovertext=[f"turn {d.turn} · {d.score:.3f}<br>User: {_short(exchanges[d.turn].user)}<br>Reply: {_short(exchanges[d.turn].reply)}" for d in picked],
            hoverinfo="text",
        )
    for value, name in ((tau_low, "tau_low"), (tau_high, "tau_high")) if score_label else ():
        fig.add_hline(y=value, line_dash="dash", line_color="#555", annotation_text=f"{name} {value:.2f}", annotation_position="top left")
    title = f"HCR scores for: {_short(query, 60)}" if query else "HCR scores"
    if decisions and not scored:
        title = "No retrieval scores: this strategy keeps every exchange"
    fig.update_layout(
        title=title, xaxis_title="exchange (turn)", yaxis_title=score_label or "retrieval score (no thresholds)", yaxis_range=[min(0.0, *(d.score for d in scored)) if scored else 0, 1.05],
        barmode="overlay", height=300, margin=dict(l=40, r=10, t=40, b=40), legend_orientation="h", legend_y=-0.25,
    )
    fig.update_xaxes(tickmode="linear", dtick=max(1, len(exchanges) // 20), range=[-0.5, max(len(exchanges), 1) - 0.5])
    return fig


def score_heatmap(matrix: np.ndarray, users: list[str], *, selected_turn: int | None = None) -> go.Figure:
    """Query turn (rows) x earlier exchange (columns) HCR scores; the selected query row is outlined."""
    n = len(users)
    labels = [f"{i}: {_short(u, 40)}" for i, u in enumerate(users)]
    hover = [[f"query {i}: {_short(users[i], 80)}<br>exchange {j}: {_short(users[j], 80)}" for j in range(n)] for i in range(n)]
    fig = go.Figure(go.Heatmap(z=matrix, x=list(range(n)), y=list(range(n)), colorscale="Viridis", zmin=0, zmax=1, hovertext=hover,
                               hovertemplate="%{hovertext}<br>score %{z:.3f}<extra></extra>", colorbar_title="score"))
    if selected_turn is not None:
        fig.add_shape(type="rect", x0=-0.5, x1=n - 0.5, y0=selected_turn - 0.5, y1=selected_turn + 0.5, line=dict(color="red", width=2))
    fig.update_layout(title="HCR scores: query turn x earlier exchange", xaxis_title="exchange turn", yaxis_title="query turn",
                      yaxis_autorange="reversed", height=360, margin=dict(l=40, r=10, t=40, b=40))
    fig.update_yaxes(tickvals=list(range(n)), ticktext=labels)
    return fig
