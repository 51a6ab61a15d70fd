"""What every evaluation's figures share: a chart and its heading, the run they belong to, the checks a
results.json passes before anything is drawn, and the one look (plain names, REA drawn over what it is
compared with, the legend below the axes, an empty chart that says what will appear there).

A results.json may come from anyone (the Results tab draws dropped-in files), so figures never trust
it: each value is checked (``number``, ``obj``, ``series``) and a file that fails raises
``ResultsFormatError`` with a plain message naming no path; text from the file is escaped once for
plotly's markup (``plain``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import plotly.graph_objects as go

from ..errors import DataFormatError
from .arms import plain_name

MAX_SERIES = 24  # arms in one file; more would not read as a chart
COLORS = {"rea": "#7c3aed", "vanilla": "#9ca3af", "keep-all": "#9ca3af"}
PALETTE = ("#0d9488", "#f59e0b", "#2563eb", "#db2777", "#65a30d", "#dc2626", "#0891b2", "#a16207")
LEGEND_ROW_PX = 22


class ResultsFormatError(DataFormatError):
    """A results.json that cannot be drawn; the message says what is wrong, without any path."""


@dataclass(frozen=True)
class Heading:
    """A chart's title and the lines under it (how big the run was), plain text. The page sets them in
    HTML above the chart, where they wrap at any width; plotly's own titles do not wrap, and a
    multi-line one overlaps its plot or is cut at its top."""

    title: str
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Chart:
    heading: Heading
    figure: go.Figure


@dataclass(frozen=True)
class Figures:
    """One run as the Results tab and report.html show it: plain words, then its charts."""

    title: str  # what the run asks
    summary: str  # what was done and what to look for
    names: tuple[str, ...]  # the arms drawn, as the command names them
    scale: str  # how big the run was
    command: str  # a command that reproduces it
    charts: tuple[Chart, ...]


# -- checks ----------------------------------------------------------------------------------------


def kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number"
    )


def clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def number(value: object, where: str, *, lo: float | None = None, hi: float | None = None) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f" between {lo:g} and {hi:g}" if lo is not None and hi is not None else ""
        bounds = bounds or (f" of at least {lo:g}" if lo is not None else "")
        raise ResultsFormatError(f"{where} must be a number{bounds}, found {kind(value) if not ok else value}")
    return float(value)


def optional_number(value: object, where: str, **bounds) -> float | None:
    return None if value is None else number(value, where, **bounds)


def obj(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        raise ResultsFormatError(f"{where} must be an object, found {kind(value)}")
    return value


def series(data: dict, key: str, what: str) -> dict[str, dict]:
    """The per-arm objects under ``key``: at least one, at most ``MAX_SERIES``."""
    found = obj(data.get(key), f'"{key}"')
    if not found:
        raise ResultsFormatError(f'"{key}" holds no {what}')
    if len(found) > MAX_SERIES:
        raise ResultsFormatError(f'"{key}" holds {len(found)} {what}; at most {MAX_SERIES} are drawn')
    return {str(name): obj(m, f'{what[:-1]} "{clip(str(name))}"') for name, m in found.items()}


def count(data: dict, key: str) -> int:
    return int(number(data.get(key), f'"{key}"', lo=0))


# -- the look --------------------------------------------------------------------------------------


def plain(text: object) -> str:
    """Text from the file as plotly shows it: its tags are markup, so ``<`` and ``&`` are escaped once."""
    return escape(str(text), quote=False)


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words (a word longer than that
    is cut, ending in "…"): plotly titles and notes do not wrap themselves."""
    lines, line = [], ""
    for word in text.split():
        word = word if len(word) <= width else word[: width - 1] + "…"
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines or [""]  # one empty line for empty text: a joined title is then empty


def wrapped(text: object, width: int) -> str:
    """Plain ``text`` as plotly shows it: escaped once (its tags are markup there), wrapped with ``<br>``."""
    return "<br>".join(escape(line, quote=False) for line in wrap(str(text), width))


def add_note(fig: go.Figure, text: str, width: int = 46) -> go.Figure:
    """Say, where the chart's marks would be, what appears there and when; the axes and legend go."""
    fig.add_annotation(
        text=wrapped(text, width),
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
        showarrow=False,
        font=dict(size=13, color="#555"),
    )
    fig.update_layout(xaxis_visible=False, yaxis_visible=False, showlegend=False)
    return fig


def color(name: str, index: int) -> str:
    return COLORS.get(name, PALETTE[index % len(PALETTE)])


def line(name: str, index: int) -> dict:
    """REA's series thin, the others wide and pale beneath them, so equal results stay visible."""
    return dict(color=color(name, index), width=3 if name.startswith("rea") else 6)


def rea_last(items):
    """Series in drawing order: REA's on top of the ones they are compared with."""
    return sorted(enumerate(items), key=lambda kv: kv[1][0].startswith("rea"))


def hover(name: str) -> str:
    """A hover's closing box: the plain name, and the name the command uses beneath it."""
    tech = plain(name)
    return f"<extra>%{{fullData.name}}{'' if plain_name(name) == name else '<br>(' + tech + ')'}</extra>"


def chart(fig: go.Figure, title: str, scale: str | tuple[str, ...], *, legend_rows: int, **axes) -> Chart:
    """The figure's axes and its legend, one entry a row at its foot below the axis titles whatever the
    width, under its heading (title, then the run's scale)."""
    bottom = 62 + LEGEND_ROW_PX * legend_rows
    fig.update_layout(
        height=270 + bottom,
        margin=dict(t=14, b=bottom, l=56, r=16),
        showlegend=legend_rows > 0,
        legend=dict(orientation="v", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
        hoverlabel=dict(namelength=-1),
        modebar=dict(orientation="v"),
        **axes,
    )
    fig.update_xaxes(automargin=False)
    fig.update_yaxes(automargin=True)
    return Chart(Heading(title, (scale,) if isinstance(scale, str) else tuple(scale)), fig)


def empty_state(fig: go.Figure, text: str) -> go.Figure:
    """A chart with nothing to draw says, where its lines would be, what appears there and when."""
    has_points = any(t.y is not None and len(t.y) for t in fig.data)
    return fig if has_points else add_note(fig, text, 36)


def n_of(number_: int, noun: str, plural: str = "") -> str:
    return f"{number_} {noun}" if number_ == 1 else f"{number_} {plural or noun + 's'}"


def small_run(counts: str, size: int, small: int) -> str:
    """The charts' subtitle: how big the run was, flagged as small below ``small``."""
    return ("small run: " if size < small else "") + counts


def with_model(scale: str, model: object) -> str:
    return scale + (f" · {clip(str(model), 48)}" if model else "")
