"""What the Inspect tab shows of a picked file and a trace, as plain functions: the file picker's
entry for an upload, and the heatmap fitted to any width from a phone's up."""

from __future__ import annotations

from html import escape, unescape

import plotly.graph_objects as go

UPLOAD_PREFIX = "your upload: "  # the example picker's entry while an uploaded file is shown
MAX_TICKS = 12  # turn ticks along the heatmap; more are spaced out by a whole step (a phone has room for 12)
ROW_LABEL_CHARS = 18  # a query turn's label beside its row ("12: Kofi: I booke…"); the table has the text


def upload_entry(name: str) -> str:
    """The example picker's entry for an uploaded file, so it never reads as a stale example's name."""
    return f"{UPLOAD_PREFIX}{name}"


def is_upload_entry(value: object) -> bool:
    return isinstance(value, str) and value.startswith(UPLOAD_PREFIX)


def turn_step(count: int, most: int = MAX_TICKS) -> int:
    """The whole step between turn ticks for ``count`` turns: 1, 2, 5, 10, 20, 50, ... the smallest
    that shows at most ``most`` ticks."""
    step, factors = 1, (2, 2.5, 2)  # 1 -> 2 -> 5 -> 10 -> ...
    i = 0
    while count > most * step:
        step = int(step * factors[i % 3])
        i += 1
    return step


def short_label(label: str, n: int = ROW_LABEL_CHARS) -> str:
    """A row label (escaped once for plotly) cut to ``n`` characters as shown, never inside an entity."""
    text = unescape(label)
    return escape(text if len(text) <= n else text[: n - 1] + "…", quote=False)


def whole_turn_ticks(fig: go.Figure) -> go.Figure:
    """Ticks on whole turns only along the heatmap's exchange axis (its cells sit on whole turns; the
    automatic ticks fell between them, at -0.5, 0.5, ...), numbered as the decisions table numbers them."""
    columns = max((len(t.x) for t in fig.data if getattr(t, "x", None) is not None), default=0)
    fig.update_xaxes(tickmode="linear", tick0=0, dtick=turn_step(columns), tickformat="d")
    return fig


def fit_heatmap(fig: go.Figure) -> go.Figure:
    """The trace heatmap as Inspect shows it: whole-turn ticks, row labels short enough to leave the
    cells room on a 390 px phone, the title from the figure's left edge in type that fits there."""
    whole_turn_ticks(fig)
    labels = fig.layout.yaxis.ticktext
    if labels:
        fig.update_yaxes(ticktext=[short_label(t) for t in labels])
    fig.update_layout(title=dict(x=0, xref="container", xanchor="left", pad=dict(l=8), font=dict(size=13)))
    fig.update_traces(colorbar=dict(thickness=12), selector=dict(type="heatmap"))
    return fig
