"""``rea eval <task>`` for every registered evaluation (``evals.task``), and the one run every such command
goes through (``run_task``).

An evaluation with a command of its own (its flags predate this, ``evaluate`` and ``retrieval_cmd``) keeps
it, a thin wrapper over ``run_task``; any other registered one gets a generic command, built when asked
for: the common flags (--data, --out, its arms flag, --limit, --model, --embedder, --max-new-tokens,
--context-window) and the task's own options. A run resumes when repeated with the same --out.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Callable, Mapping, Optional

import click
import typer
from typer.core import TyperGroup

from .common import checked_out, load_pipeline, reported_errors, settings_from_options, split_names
from .options import ContextWindowOpt, EmbedderOpt, LimitOpt, MaxNewTokensOpt, ModelOpt, OutOpt


def run_task(
    task,
    *,
    data: Path | None,
    out: Path,
    arms: str,
    limit: int | None,
    load: Callable,
    overrides: Mapping[str, object] = {},
    options: Mapping[str, object] = {},
    context_window: int | None = None,
    check: Callable[[], None] | None = None,
    after_load: Callable[[object], dict] | None = None,
) -> dict:
    """One ``rea eval`` run, in order: refuse a bad --out, check the arms (then ``check``, the command's
    own flags), read the settings, load and check the cases, all before any model loads; load the models
    (``load``: the calling module's, so a test can stand in for it) and what ``after_load`` adds to the
    options (a judge); run (``evals.task.run_eval``) and print what the task prints."""
    from ..evals.task import run_eval

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        names = task.check_arms(split_names(arms))
        if check is not None:
            check()
        settings = settings_from_options(**{**task.fixed_settings, **overrides})
        max_chars = settings.runtime.max_message_chars  # each turn within REA_MAX_MESSAGE_CHARS, as in the app
        cases = task.load_cases(data, max_chars=max_chars, limit=limit, arms=names, **options)
        models = load(settings, context_window) if task.needs_models else None
        extra = after_load(settings) if after_load is not None else {}
        results = run_eval(task, models, settings, cases, names, out, limit=limit, **options, **extra)
        typer.echo(task.console(results, out))
    return results


def task_command(task) -> click.Command:
    """The generic ``rea eval <task.name>`` command."""
    own = {o.name for o in task.options}

    def command(**flags) -> None:
        run_task(
            task,
            data=flags["data"],
            out=flags["out"],
            arms=flags["arms"],
            limit=flags["limit"],
            load=load_pipeline,
            overrides={k: flags[k] for k in ("model", "embedder", "max_new_tokens")},
            options={k: v for k, v in flags.items() if k in own},
            context_window=flags["context_window"],
        )

    def param(name: str, annotation, default=inspect.Parameter.empty) -> inspect.Parameter:
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)

    data_help = "Input file in the task's format." + ("" if task.needs_data else " Optional.")
    data = Annotated[Path if task.needs_data else Optional[Path], typer.Option("--data", help=data_help)]
    params = [
        param("data", data, *(() if task.needs_data else (None,))),
        param("out", OutOpt),
        param(
            "arms",
            Annotated[str, typer.Option(task.arms_flag, help=f"Comma-separated: {', '.join(task.arms())}.")],
            ",".join(task.default_arms),
        ),
        param("limit", LimitOpt, None),
        param("model", ModelOpt, None),
        param("embedder", EmbedderOpt, None),
        param("max_new_tokens", MaxNewTokensOpt, None),
        param("context_window", ContextWindowOpt, None),
    ]
    for o in task.options:
        kind = o.type or type(o.default)
        flag = typer.Option(f"--{o.name.replace('_', '-')}", help=o.help)
        params.append(param(o.name, Annotated[Optional[kind] if o.default is None else kind, flag], o.default))
    command.__signature__ = inspect.Signature(params)
    single = typer.Typer(add_completion=False)
    single.command(name=task.name, help=inspect.getdoc(type(task)) or task.label)(command)
    return typer.main.get_command(single)


class TaskGroup(TyperGroup):
    """The ``rea eval`` group: its own commands, then a generic one for each registered evaluation that
    has none, read from the registry when the group is used (so a task registered later is there too)."""

    def _generic(self) -> dict:
        from ..evals.task import eval_tasks

        return {n: t for n, t in eval_tasks().items() if n not in self.commands}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return super().list_commands(ctx) + list(self._generic())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in (generic := self._generic()):
            found = task_command(generic[cmd_name])
        return found
