"""The contract every arms-by-conversations evaluation meets, its registry, and the one runner.

An evaluation is an ``EvalTask``: it loads its cases, names the arms it accepts (from the one table,
``evals.arms``), runs one arm on one case into records, summarizes the records into results.json,
and draws results.json (``figures``): report.html and the app's Results tab show the same charts.
A module registers its task with ``register_eval``; ``eval_tasks`` finds every module of this package
that does, so adding an evaluation is adding its module: ``rea eval <name>`` (``cli.eval_cmd``) and the
Results tab pick it up from here.
"""

from __future__ import annotations

import importlib
import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import DataFormatError
from .charts import Figures

_REGISTERS = re.compile(r"\bregister_eval\(")


@dataclass(frozen=True)
class TaskOption:
    """A flag of the task's own (``--name``): its default, its help, and its type where the default does
    not say it (None)."""

    name: str
    default: object
    help: str
    type: type | None = None


@dataclass(frozen=True)
class RunContext:
    """What every case of one run shares. ``models``: ``loading.Models`` (None for a task that loads
    none); ``options``: the task's own options; ``shared``: what the task's ``prepare`` built once."""

    models: object
    settings: object  # settings.Settings
    cases: tuple
    options: Mapping[str, object] = field(default_factory=dict)
    shared: object = None


@dataclass(frozen=True)
class Report:
    """report.html beyond the task's figures: its title, tables (caption, header, rows), notes, and
    figures only the report shows."""

    title: str
    tables: Sequence[tuple[str, list[str], list[list]]] = ()
    notes: str = ""
    figures: Sequence = ()


class EvalTask(ABC):
    """One evaluation. Subclasses set the attributes and implement ``load_cases``, ``run_case`` and
    ``summarize`` (and ``figures`` to be drawn); the rest has defaults a small task keeps."""

    name: str = ""  # `rea eval <name>`
    title: str = ""  # what it measures, in a few words
    results_task: str = ""  # results.json's "task" (default: ``name``)
    arm_kind: str = ""  # which arms of ``evals.arms`` it accepts; "" for a task with its own (``own_arms``)
    own_arms: Mapping[str, str] = {}  # name -> description, for a task outside the shared table
    default_arms: tuple[str, ...] = ()
    arms_flag: str = "--arms"  # its arms' flag on the command line
    arm_word: str = "arm"  # what its arms are called in messages ("policy")
    needs_data: bool = True  # --data is required
    needs_models: bool = True  # the generator and embedder are loaded
    options: tuple[TaskOption, ...] = ()  # its own flags, for the generic command
    fixed_settings: Mapping[str, object] = {"kv_reuse": False}  # settings every run of it takes

    @property
    def key(self) -> str:
        return self.results_task or self.name

    @property
    def label(self) -> str:
        return self.title or self.name

    def arms(self) -> dict[str, str]:
        """The arms it accepts: name -> description."""
        if not self.arm_kind:
            return dict(self.own_arms)
        from .arms import arms_for

        return {n: a.describe_for(self.arm_kind) for n, a in arms_for(self.arm_kind).items()}

    def check_arms(self, names: Sequence[str]) -> list[str]:
        """``names`` without repeats; an unknown one (or none) fails before any case runs."""
        from .arms import REPLAY, get_arm

        if self.arm_kind == REPLAY and names:  # a registered strategy or an ablation
            for name in names:
                get_arm(name)
            return list(dict.fromkeys(names))
        known = self.arms()
        unknown = [n for n in names if n not in known]
        if unknown or not names:
            word = f"{self.name} {self.arm_word}"
            what = f"unknown {word} {', '.join(unknown)}" if unknown else f"no {word} given"
            raise DataFormatError(f"{what}; choose from {', '.join(known)}")
        return list(dict.fromkeys(names))

    @abstractmethod
    def load_cases(
        self,
        path: Path | None,
        *,
        max_chars: int | None = None,
        limit: int | None = None,
        arms: Sequence[str] = (),
        **options,
    ) -> list:
        """The cases (each with an ``id``), checked before any model loads; ``max_chars``: the most
        characters of one turn; ``arms``: the checked arms, for a task whose cases depend on them."""

    def prepare(self, ctx: RunContext) -> RunContext:
        """Whatever every case shares, built once per run (a cache, a judge)."""
        return ctx

    def run_settings(self, ctx: RunContext) -> dict:
        """What a resumed run must share with the first (``runner.RecordStore``)."""
        return {"task": self.key, "config": ctx.settings.to_dict(), **dict(ctx.options)}

    @abstractmethod
    def run_case(self, arm: str, case, ctx: RunContext) -> list[dict]:
        """One arm on one case: its records (JSON-ready), kept whole so a run resumes after it."""

    @abstractmethod
    def summarize(self, records: Mapping[str, list[dict]], ctx: RunContext) -> dict:
        """results.json from every arm's records."""

    def figures(self, results: dict) -> Figures:
        """The run's charts, from results.json alone (checked: it may come from anyone)."""
        raise DataFormatError(f'results of task "{self.key}" have no figures')

    def report(self, results: dict) -> Report:
        return Report(self.label)

    def console(self, results: dict, out_dir: Path) -> str:
        """What ``rea eval`` prints when the run ends."""
        summary = {k: v for k, v in results.items() if k not in ("per_turn", "errors", "cells")}
        return json.dumps(summary, indent=2, default=str)


_TASKS: dict[str, EvalTask] = {}
_found = False


def register_eval(task: EvalTask) -> EvalTask:
    """Make ``task`` known to ``rea eval`` and the Results tab (a later one of the same name replaces it)."""
    if not task.name:
        raise ValueError("an EvalTask needs a name")
    _TASKS[task.name] = task
    return task


def _discover() -> None:
    """Import the modules of this package that register a task (found by their text, so the ones that
    do not, some of which load torch, stay unimported)."""
    global _found
    if _found:
        return
    _found = True
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        if path.name != "task.py" and _REGISTERS.search(path.read_text(encoding="utf-8")):
            parts = path.relative_to(root).with_suffix("").parts
            importlib.import_module(".".join((__package__, *parts)).removesuffix(".__init__"))


def eval_tasks() -> dict[str, EvalTask]:
    """Every registered task by name, this package's first."""
    _discover()
    return dict(_TASKS)


def get_eval(name: str) -> EvalTask:
    tasks = eval_tasks()
    if name not in tasks:
        raise DataFormatError(f"unknown evaluation {name!r}; choose from {', '.join(tasks)}")
    return tasks[name]


def task_of(results: dict) -> EvalTask | None:
    """The task that wrote ``results`` (by its "task"), or None."""
    return next((t for t in eval_tasks().values() if t.key == results.get("task")), None)


def run_eval(
    task: EvalTask,
    models,
    settings,
    cases: Sequence,
    arms: Sequence[str],
    out_dir: str | Path,
    **options,
) -> dict:
    """Run every arm on every case (resumable: ``runner.RecordStore``), then write results.json and
    report.html. Unknown arms fail before any case runs."""
    from .report import write_report, write_results
    from .runner import RecordStore, run_arms

    arms = task.check_arms(arms)
    ctx = task.prepare(RunContext(models, settings, tuple(cases), options))
    store = RecordStore(out_dir, task.run_settings(ctx))
    run_arms(store, arms, ctx.cases, lambda arm, case: task.run_case(arm, case, ctx), label=task.label)
    ids = [c.id for c in ctx.cases]
    results = task.summarize({arm: store.records(arm, ids) for arm in arms}, ctx)
    write_results(out_dir, results)
    report = task.report(results)
    try:
        charts, notes = list(task.figures(results).charts), report.notes
    except DataFormatError as exc:  # a run too small to draw still gets its tables
        charts, notes = [], f"{report.notes} No figures: {exc}".strip()
    write_report(out_dir, report.title, [*charts, *report.figures], report.tables, notes=notes)
    return results
