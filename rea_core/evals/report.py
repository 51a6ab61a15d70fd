"""``results.json`` and a self-contained ``report.html`` (plotly inlined once) for every evaluation."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Sequence

import plotly.graph_objects as go

from .charts import Chart


def write_results(out_dir: str | Path, results: dict) -> Path:
    path = Path(out_dir) / "results.json"
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return path


def write_report(
    out_dir: str | Path,
    title: str,
    figures: Sequence[go.Figure | Chart],
    tables: Sequence[tuple[str, list[str], list[list]]] = (),
    notes: str = "",
) -> Path:
    """HTML page: title, notes, tables (caption, header, rows), then figures (a chart under its heading);
    opens offline."""
    parts = [f"<h1>{escape(title)}</h1>"]
    if notes:
        parts.append(f"<p>{escape(notes)}</p>")
    for caption, header, rows in tables:
        head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{escape(_fmt(v))}</td>" for v in row) + "</tr>" for row in rows)
        parts.append(f"<h2>{escape(caption)}</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    for i, fig in enumerate(figures):
        if isinstance(fig, Chart):
            notes_html = "".join(f"<p class='note'>{escape(n)}</p>" for n in fig.heading.notes)
            parts.append(f"<h2>{escape(fig.heading.title)}</h2>{notes_html}")
            fig = fig.figure
        parts.append(fig.to_html(full_html=False, include_plotlyjs="inline" if i == 0 else False))
    style = (
        "body{font-family:sans-serif;margin:24px;max-width:1100px} "
        "table{border-collapse:collapse;margin:8px 0} td,th{border:1px solid #ccc;padding:4px 8px} "
        ".note{color:#555;margin:2px 0}"
    )
    html = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title><style>{style}</style></head>"
        f"<body>{''.join(parts)}</body></html>"
    )
    path = Path(out_dir) / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "-" if value is None else str(value)
