"""The Results tab's view of a results.json: the evaluation that wrote it (``rea_core.evals.task``, by
the file's "task") draws its own figures, the same ones its report.html shows; this adds what the page
needs around them (the optional "provenance" of a shipped file, the plain name of each arm).

Pure: a decoded results.json in, a ``ResultsView`` out. Everything a stakeholder reads is in plain
words: the arm names of ``rea eval`` are mapped by the one arm table (``PLAIN_NAMES``), kept for the
hover and the researchers' note under each run. A file that cannot be drawn raises
``ResultsFormatError`` with a message fit to show in the page (plain text, escaped by whoever renders
it), naming no path.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from rea_core.errors import DataFormatError
from rea_core.evals import (
    ARMS,
    EvalTask,
    Heading,
    ResultsFormatError,
    clip,
    eval_tasks,
    kind,
    obj,
    plain_name,
    task_of,
)

# Every arm ``rea eval`` writes, as the charts name it; a name not here is shown as written.
PLAIN_NAMES: dict[str, str] = {name: arm.plain for name, arm in ARMS.items()}


def drawn() -> str:
    """The evaluations whose results the tab draws, in words."""
    names = [name for name, task in eval_tasks().items() if type(task).figures is not EvalTask.figures]
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


@dataclass(frozen=True)
class ResultsView:
    """One evaluation run as the page shows it: plain-text labels and ready figures."""

    task: str  # the evaluation's name: "adherence", "ablations", "latency", "retrieval", ...
    title: str  # plain words: what the run asks
    summary: str  # plain words: what was done and what to look for
    names: tuple[tuple[str, str], ...]  # (name in the command, plain name) of each series, for researchers
    scale: str  # how big the run was, e.g. "small run: 3 conversations, 10 probes per strategy"
    command: str  # the command that reproduces it
    recorded: str  # when and how it was run, from the file's "provenance" (empty for an uploaded file)
    figures: tuple[go.Figure, ...]
    headings: tuple[Heading, ...]  # one per figure, in the same order


def results_view(data: object) -> ResultsView:
    """Check a decoded results.json and build its figures; raises ``ResultsFormatError``."""
    if not isinstance(data, dict):
        raise ResultsFormatError(f"expected a JSON object, found {kind(data)}")
    name = data.get("task")
    if name is None:
        raise ResultsFormatError('no "task" key: this is not a results.json written by rea eval')
    task = task_of(data) if isinstance(name, str) else None
    if task is None or type(task).figures is EvalTask.figures:
        shown = clip(name) if isinstance(name, str) else kind(name)
        raise ResultsFormatError(
            f'results of task "{shown}" are not drawn here; the Results tab draws {drawn()} results'
        )
    try:
        figures = task.figures(data)
    except ResultsFormatError:
        raise
    except DataFormatError as exc:
        raise ResultsFormatError(str(exc)) from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:  # a task's own looser checks
        raise ResultsFormatError(f"a value of an unexpected shape ({type(exc).__name__})") from None
    prov = _provenance(data)
    return ResultsView(
        task=task.name,
        title=figures.title,
        summary=figures.summary,
        names=tuple((n, plain_name(n)) for n in figures.names),
        scale=prov.get("scale") or figures.scale,
        command=prov.get("command") or figures.command,
        recorded=" · ".join(p for p in (prov.get("date", ""), prov.get("note", "")) if p),
        figures=tuple(chart.figure for chart in figures.charts),
        headings=tuple(chart.heading for chart in figures.charts),
    )


def _provenance(data: dict) -> dict[str, str]:
    """The optional "provenance" object of a shipped file: command, date, scale (all text)."""
    found = data.get("provenance")
    if found is None:
        return {}
    found = obj(found, '"provenance"')
    for key in ("command", "date", "scale", "note"):
        if key in found and not isinstance(found[key], str):
            raise ResultsFormatError(f'"provenance" {key} must be text, found {kind(found[key])}')
    return found
