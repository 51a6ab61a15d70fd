"""Plotly figures: the latest query's score for every stored exchange (REA's HCR scores, or
another strategy's own retrieval ranking), and the query x exchange score heatmap."""

from __future__ import annotations

from html import escape

import numpy as np
import plotly.graph_objects as go

from rea_core import Decision, Reason, Resolution, prompt_time
from rea_core.evals import add_note, wrap
from rea_core.memory import Exchange

from .reasons import reason_label

COLORS = {Resolution.RAW: "#2e7d32", Resolution.COMPRESSED: "#f9a825", Resolution.OMIT: "#9e9e9e"}
WINDOW_COLOR = "#00838f"
SCALE = "from 0 (unrelated) to 1 (on the same point)"  # the words of the thresholds panel


def _short(text: str, n: int = 120) -> str:
    """One line of ``text``, cut to ``n`` characters, escaped once (plotly renders hover text as HTML)."""
    text = " ".join(text.split())
    return escape(text if len(text) <= n else text[: n - 1] + "…", quote=False)


def _hover(d: Decision, exchanges: list[Exchange], thresholded: bool) -> str:
    ex = exchanges[d.turn]
    why = escape(reason_label(d.resolution, d.reason, thresholded=thresholded), quote=False)
    when = f" · {escape(prompt_time(ex.time), quote=False)}" if ex.time else ""
    return (
        f"turn {d.turn}{when} · score {d.score:.3f}<br>{d.resolution.value} · {why}<br>User: "
        f"{_short(ex.user)}<br>Reply: {_short(ex.reply)}"
    )


def _group(d: Decision) -> str:
    """Which legend entry a bar belongs to: decided by its score, by a rule, or by a fixed policy."""
    if d.reason is Reason.IN_IM:
        return "im"
    return "rule" if d.reason.is_rule else ("fixed" if d.reason is Reason.FIXED else "score")


def _legend_name(resolution: Resolution, group: str, thresholded: bool) -> str:
    if group == "rule":
        return f"{resolution.value} · kept by rule"
    if group == "fixed":
        return f"{resolution.value} · fixed policy"
    if group == "im":
        return "held in Instructional Memory"
    by = "score" if thresholded else "retrieval rank"
    return f"omitted by {by}" if resolution is Resolution.OMIT else f"{resolution.value} · kept by {by}"


def retrieval_chart(
    decisions: tuple[Decision, ...],
    exchanges: list[Exchange],
    *,
    tau_low: float,
    tau_high: float,
    query: str = "",
    score_label: str | None = None,
) -> go.Figure:
    """One bar per scored exchange, colored by decision; with ``score_label`` (the strategy's
    thresholded score, REA's HCR) tau_low and tau_high are drawn as lines, else the scores are the
    strategy's own ranking (SeCom's BM25 or dense scores) with no thresholds. Strategies that do not
    score (vanilla, COMEDY) get a title that says so and counts their decisions. The score's formula
    (``score_label``) is for researchers, in the Details panel; the chart says what it means in plain words.

    The legend tells exchanges kept by their score from those a rule keeps whatever their score
    (hatched), and every bar's hover says its reason."""
    fig = go.Figure()
    thresholded = bool(score_label)
    scored = [d for d in decisions if d.score is not None]
    for resolution in Resolution:
        for group in ("score", "rule", "fixed", "im"):
            picked = [d for d in scored if d.resolution is resolution and _group(d) == group]
            if group != "score" and not picked:
                continue
            fig.add_bar(
                x=[d.turn for d in picked],
                y=[d.score for d in picked],
                name=_legend_name(resolution, group, thresholded),
                marker_color=COLORS[resolution],
                marker_pattern_shape={"rule": "/", "im": "."}.get(group, ""),
                hovertext=[_hover(d, exchanges, thresholded) for d in picked],
                hoverinfo="text",
            )
    window = [d.turn for d in decisions if d.reason is Reason.RECENT]
    if window:  # the working-memory window: raw whatever the thresholds, the sliders never move it
        fig.add_vrect(
            x0=min(window) - 0.5,
            x1=max(window) + 0.5,
            fillcolor=WINDOW_COLOR,
            opacity=0.08,
            line_width=0,
            annotation_text="latest",
            annotation_position="top right",
        )
    for value, name, where in _threshold_labels(tau_low, tau_high) if score_label else ():
        label = f"{name} {value:.2f}"
        fig.add_hline(
            y=value,
            line_dash="dash",
            line_color="#555",
            annotation=dict(text=label, bgcolor="rgba(255,255,255,0.85)", font=dict(size=11)),
            annotation_position=where,
        )
    if not scored:
        return empty_chart(_empty_reason(decisions, exchanges, thresholded))
    title = "How REA scored each past turn" if score_label else "Its own ranking of past turns"
    # At most 36 characters a line (48 for the small one): a 390 px phone's chart is about 300 px wide.
    lines = [title] + (wrap(f"for: {' '.join(query.split())}", 36)[:2] if query else [])
    # In plain words: the scorer's formula (``score_label``) is for researchers, in the Details panel.
    scale = "<br>".join(wrap(SCALE if score_label else "its own ranking: no thresholds", 48))
    fig.update_layout(
        title=dict(
            text="<br>".join(escape(line, quote=False) for line in lines) + f"<br><sup>{scale}</sup>",  # escaped
            x=0.02,
            xanchor="left",
            xref="container",  # from the chart's left edge, not the plot's: the y axis' margin is not lost
            y=1,
            yanchor="top",
            yref="container",  # from the chart's top down, so the margin below holds every line
            pad=dict(t=18),  # the first line's top sits this far down: 18 px clears the chart's edge
            font=dict(size=14),
        ),
        xaxis_title="past turn",
        yaxis_title="score",
        yaxis_range=[min(0.0, *(d.score for d in scored)), 1.05],
        barmode="overlay",
        height=400,
        margin=dict(l=50, r=20, t=title_height(len(lines), scale.count("<br>") + 1), b=90),
        modebar_orientation="v",  # down the right edge, clear of the title
        showlegend=True,
        legend=dict(orientation="h", y=-0.22, yanchor="top"),
    )
    shown = len(decisions) or len(exchanges)  # the exchanges scored for the query, not the one it then made
    fig.update_xaxes(tickmode="linear", dtick=max(1, shown // 12), range=[-0.5, max(shown, 1) - 0.5])
    return fig


def title_height(lines: int, small_lines: int) -> int:
    """Pixels above the plot for a title of ``lines`` lines at 14 px and ``small_lines`` in <sup> below it
    (measured in Chromium), with the 18 px pad above and a gap below, so its last line clears the top tick."""
    return 18 + 18 * lines + 12 * small_lines + 12


def _threshold_labels(tau_low: float, tau_high: float) -> tuple[tuple[float, str, str], ...]:
    """Where each threshold line is labelled: the lower one on the left, the upper one on the right, each
    above its line unless the line is near the top (then below), so no label meets the axis' ticks."""
    return (
        (tau_low, "leave out below", "bottom left" if tau_low > 0.9 else "top left"),
        (tau_high, "whole from", "bottom right" if tau_high > 0.9 else "top right"),
    )


def _empty_reason(decisions: tuple[Decision, ...], exchanges: list[Exchange], thresholded: bool) -> str:
    """What the empty chart says: when bars will appear, or why this strategy draws none."""
    if not decisions and not exchanges:
        return "After your first message, each past turn's score for the newest one appears here as a bar."
    if not decisions:
        return "Bars appear from the second message on: the first has no past turn to score."
    n = {r: sum(d.resolution is r for d in decisions) for r in Resolution}
    return (
        f"This strategy scores nothing: it sent {n[Resolution.RAW]} past turn(s) whole"
        + (f", {n[Resolution.COMPRESSED]} shortened" if n[Resolution.COMPRESSED] else "")
        + (f", left out {n[Resolution.OMIT]}" if n[Resolution.OMIT] else "")
        + ", by its fixed rule."
    )


def empty_chart(text: str, *, height: int = 120) -> go.Figure:
    """A chart with nothing to draw yet: no axes, ``text`` (plain, escaped here) wrapped in its middle."""
    fig = add_note(go.Figure(), text)
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


HEATMAP_TITLE_CHARS = 42  # a title line at 13 px fits a 390 px phone's chart (measured in Chromium)


def heatmap_window(n_turns: int, selected: int, rows: int) -> tuple[int, int]:
    """Query turns [first, last) drawn around the selected one: at most ``rows`` of them."""
    first = max(0, min(selected - rows // 2, n_turns - rows))
    return first, min(n_turns, first + rows)


def trace_heatmap(trace, selected: int, rows: int) -> go.Figure:
    """The Inspect heatmap of a ``RetrievalTrace`` at the selected query turn: at most ``rows``
    query turns around it, as plain numbers (bounded work on every slider move)."""
    first, last = heatmap_window(len(trace.turns), selected, rows)
    return score_heatmap(
        trace.score_matrix(first, last), [t.user for t in trace.turns], selected_turn=selected, first_row=first
    )


def score_heatmap(
    matrix: np.ndarray, users: list[str], *, selected_turn: int | None = None, first_row: int = 0
) -> go.Figure:
    """Query turn (rows) x earlier exchange (columns) HCR scores; the selected query row is outlined.

    ``matrix`` holds the query turns from ``first_row`` on (a window: ``heatmap_window``). Cells
    are plain numbers; the hover reads turn numbers and the score, and only the drawn rows get a
    text label, so an 800-turn trace is not 640,000 hover strings (138 MB of JSON before).
    """
    n_rows, n_cols = matrix.shape  # (query turns drawn, exchanges)
    rows = list(range(first_row, first_row + n_rows))
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            x=list(range(n_cols)),
            y=rows,
            colorscale="Viridis",
            zmin=0,
            zmax=1,
            hovertemplate="query %{y} · exchange %{x}<br>score %{z:.3f}<extra></extra>",
            colorbar_title="score",
        )
    )
    if selected_turn is not None:
        fig.add_shape(
            type="rect",
            x0=-0.5,
            x1=n_cols - 0.5,
            y0=selected_turn - 0.5,
            y1=selected_turn + 0.5,
            line=dict(color="red", width=2),
        )
    window = f" (query turns {first_row}-{first_row + n_rows - 1} of {len(users)})" if n_rows < len(users) else ""
    title = wrap(f"HCR scores: query turn x earlier exchange{window}", HEATMAP_TITLE_CHARS)
    fig.update_layout(
        title="<br>".join(title),  # whole at 390 px: plotly cuts a long title instead of wrapping it
        xaxis_title="exchange turn",
        yaxis_title="query turn",
        yaxis_autorange="reversed",
        height=360,
        margin=dict(l=40, r=10, t=24 + 16 * len(title), b=40),
    )
    fig.update_yaxes(tickvals=rows, ticktext=[f"{i}: {_short(users[i], 40)}" for i in rows])
    return fig
