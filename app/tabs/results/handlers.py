"""The Results tab's plain functions: read the shipped results (``app/results/<name>/results.json``)
and dropped-in ones, and the escaped HTML that names each run and the command that reproduces it.

Figures come from ``app.views.results_charts``; nothing here draws or recomputes a metric.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from rea_core import REAError
from rea_core.limits import Limits

from ...views.results_charts import ResultsFormatError, ResultsView, results_view

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "results"
TASK_ORDER = ("adherence", "ablations", "latency", "retrieval")  # the case in the order a visitor reads it
MAX_SESSION_UPLOADS = 6  # dropped-in runs kept per browser session; the oldest goes first


def read_json(path: str | Path, limits: Limits) -> object:
    """A results file's decoded JSON; raises ``REAError`` with a message that names no folder."""
    path = Path(path)
    limits.check_file_size(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsFormatError(f"not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise ResultsFormatError(f"cannot be read ({exc.strerror})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsFormatError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from exc
    except RecursionError as exc:
        raise ResultsFormatError("not JSON this page reads (nested too deeply)") from exc


def read_results(path: str | Path, limits: Limits) -> ResultsView:
    """One results.json file as a view; raises ``REAError`` with a message that names no folder."""
    return results_view(read_json(path, limits))


def shipped_results(limits: Limits, folder: Path = SHIPPED_DIR) -> list[tuple[str, ResultsView | str]]:
    """(name, view) for each shipped run, adherence first; a broken file gives (name, message) instead."""
    found: list[tuple[str, ResultsView | str]] = []
    for path in sorted(folder.glob("*/results.json")):
        try:
            found.append((path.parent.name, read_results(path, limits)))
        except REAError as exc:
            found.append((path.parent.name, str(exc)))

    def order(item):
        name, view = item
        task = view.task if isinstance(view, ResultsView) else ""
        return (TASK_ORDER.index(task) if task in TASK_ORDER else len(TASK_ORDER), name)

    return sorted(found, key=order)


def add_uploads(files, session_runs: list[dict], limits: Limits) -> tuple[list[dict], str]:
    """Add dropped-in results.json files to this session's runs; returns (runs, escaped status HTML).

    Runs are kept as their checked JSON (session state stays plain data); ``results_view`` draws
    them. A file that cannot be drawn leaves the list as it was and says why, by the file's name.
    """
    if not files:
        return session_runs, ""
    runs, notes = list(session_runs or []), []
    for f in files if isinstance(files, list) else [files]:
        path = Path(f if isinstance(f, str) else f.name)
        try:
            data = read_json(path, limits)
            results_view(data)
            runs.append(data)
            notes.append(f'<div class="rea-results-ok">Drawn below: {escape(path.name)}.</div>')
        except REAError as exc:
            notes.append(broken_html(path.name, str(exc)))
    return runs[-MAX_SESSION_UPLOADS:], "".join(notes)


def caption_html(view: ResultsView, *, uploaded: bool = False) -> str:
    """Title, scale and reproducing command of a run, escaped."""
    origin = "dropped in this session" if uploaded else (f"recorded {view.recorded}" if view.recorded else "")
    return (
        f'<div class="rea-results-caption"><h3>{escape(view.title)}</h3>'
        f'<p class="rea-results-scale">{escape(view.scale)}{" · " + escape(origin) if origin else ""}</p>'
        f'<p class="rea-results-command">Reproduce: <code>{escape(view.command)}</code></p></div>'
    )


def broken_html(name: str, message: str) -> str:
    return f'<div class="rea-error rea-results-bad"><b>Cannot draw {escape(name)}:</b> {escape(message)}</div>'
