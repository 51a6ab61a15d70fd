"""The Results tab's plain functions: read the shipped results (``app/results/<name>/results.json``)
and dropped-in ones, and the escaped HTML that names each run and the command that reproduces it.

Figures come from each evaluation's own ``figures`` (through ``app.views.results_charts``); nothing here
draws or recomputes a metric.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

import plotly.io as pio

from rea_core import REAError
from rea_core.limits import Limits
from rea_core.validation import parse_json

from ...session_state import SessionStore, StateDropped
from ...views.results_charts import Heading, ResultsFormatError, ResultsView, results_view

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "results"
# The case in the order a visitor reads it; another evaluation's runs follow.
TASK_ORDER = ("adherence", "ablations", "latency", "retrieval")
MAX_SESSION_UPLOADS = 6  # dropped-in runs kept per browser session; the oldest goes first
# A 20,000-point latency file (rea_core.evals.latency.MAX_POINTS) holds about 220,000 values; past this a file
# is padding, refused before it is decoded (9 MB of ``{}, `` decodes to 200 MB of objects).
MAX_RESULT_VALUES = 250_000


@dataclass(frozen=True)
class DrawnRun:
    """What a session keeps of a dropped-in run: what the page draws (its caption and the figures'
    headings, escaped, and its figures as plotly JSON), not the file, whose unknown keys may hold anything."""

    caption: str
    figures: tuple[str, ...]
    headings: tuple[str, ...]

    @classmethod
    def of(cls, view: ResultsView) -> "DrawnRun":
        return cls(
            caption_html(view, uploaded=True),
            tuple(pio.to_json(fig, validate=False) for fig in view.figures),
            tuple(heading_html(h) for h in view.headings),
        )

    def plots(self) -> list:
        return [pio.from_json(fig, skip_invalid=True) for fig in self.figures]


def read_json(path: str | Path, limits: Limits) -> object:
    """A results file's decoded JSON, through the one loader discipline (``rea_core.validation``):
    size, values, depth, numbers, NUL and surrogates checked before anything is kept; raises
    ``ResultsFormatError`` with a message that names no folder."""
    path = Path(path)
    limits.check_file_size(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsFormatError(f"not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise ResultsFormatError(f"cannot be read ({exc.strerror})") from exc
    try:
        return parse_json(text, where="", max_values=MAX_RESULT_VALUES, error=ResultsFormatError)
    except ResultsFormatError as exc:  # the page names the file already: drop parse_json's empty "where: "
        raise ResultsFormatError(str(exc).removeprefix(": ")) from None


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


def add_uploads(files, held, store: SessionStore, limits: Limits):
    """Draw dropped-in results.json files for this session; returns (handle, escaped status HTML).

    ``held`` is the session's handle to its ``DrawnRun``s (None at first). They live in ``store``,
    under the server's cap over all sessions, at most ``MAX_SESSION_UPLOADS`` of them, the oldest
    going first. A file that cannot be drawn leaves the runs as they were and says why, by its name.
    """
    if not files:
        return held, ""
    runs, notes = list(store.get_or(held, ())), []
    for f in files if isinstance(files, list) else [files]:
        path = Path(f if isinstance(f, str) else f.name)
        try:
            runs.append(DrawnRun.of(read_results(path, limits)))
            notes.append(f'<div class="rea-results-ok">Drawn below: {escape(path.name)}.</div>')
        except REAError as exc:
            notes.append(broken_html(path.name, str(exc)))
    try:
        held = store.put(tuple(runs[-MAX_SESSION_UPLOADS:]), what="your dropped-in results", replaces=held)
    except StateDropped as exc:
        return None, "".join(notes) + broken_html("these runs", str(exc))
    return held, "".join(notes)


def unseen(files, before) -> tuple[list[str], tuple[str, ...]]:
    """(the files not among ``before``, the paths of all ``files``): the drop zone holds on to a file
    until the reply to its drop empties it, so a drop made meanwhile brings it again."""
    paths = tuple(
        str(f if isinstance(f, str) else f.name) for f in (files if isinstance(files, list) else [files]) if f
    )
    return [p for p in paths if p not in set(before or ())], paths


def drawn_runs(held, store: SessionStore) -> tuple[tuple[DrawnRun, ...], str]:
    """The session's dropped-in runs, and a note (escaped HTML) when the server let them go."""
    try:
        return (store.get(held), "") if held is not None else ((), "")
    except StateDropped as exc:
        return (), broken_html("your dropped-in results", str(exc))


def caption_html(view: ResultsView, *, uploaded: bool = False) -> str:
    """A run's plain title and summary, then, smaller and below them, the details for researchers: its
    scale, the names its command uses for what the charts name plainly, and the reproducing command;
    all escaped."""
    origin = "dropped in this session" if uploaded else (f"recorded {view.recorded}" if view.recorded else "")
    renamed = [(tech, plain) for tech, plain in view.names if tech != plain]
    names = (
        '<p class="rea-results-names">Names in the command: '
        + "; ".join(f"<code>{escape(tech)}</code> = {escape(plain)}" for tech, plain in renamed)
        + "</p>"
        if renamed
        else ""
    )
    return (
        f'<div class="rea-results-caption"><h3>{escape(view.title)}</h3>'
        f'<p class="rea-results-plain">{escape(view.summary)}</p>'
        '<div class="rea-results-details">'
        f'<p class="rea-results-scale">How it was run: {escape(view.scale)}'
        f"{' · ' + escape(origin) if origin else ''}</p>{names}"
        f'<p class="rea-results-command">Reproduce: <code>{escape(view.command)}</code></p></div></div>'
    )


def heading_html(heading: Heading) -> str:
    """A chart's title and notes, escaped, to set above it: HTML wraps them at any width."""
    notes = "".join(f'<span class="rea-chart-note">{escape(note)}</span>' for note in heading.notes)
    return f'<div class="rea-chart-head"><span class="rea-chart-title">{escape(heading.title)}</span>{notes}</div>'


def broken_html(name: str, message: str) -> str:
    return f'<div class="rea-error rea-results-bad"><b>Cannot draw {escape(name)}:</b> {escape(message)}</div>'
