"""Helpers the ``rea`` commands share: error reporting and building the pipeline from options."""

from __future__ import annotations

import contextlib

import typer

from ..errors import REAError
from ..settings import quiet_libraries


@contextlib.contextmanager
def reported_errors():
    """Turn a REAError into one 'error: ...' line and exit status 2, never a traceback."""
    try:
        yield
    except REAError as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        raise typer.Exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(130)


def settings_from_options(**options):
    """Settings from the environment, then the command's options (None: not given), each sorted into its
    section by name.

    An option named after a registered method (``secom=SeComConfig(...)``) replaces its settings whole.
    """
    from dataclasses import fields

    from ..methods.rea.config import REAConfig
    from ..methods.registry import available_strategies
    from ..runtime import RuntimeConfig
    from ..settings import ModelSettings, Settings

    sections: dict[str, dict] = {"models": {}, "rea": {}, "runtime": {}}
    whole = {k: options.pop(k) for k in available_strategies() if k in options}
    for section, cls in (("models", ModelSettings), ("runtime", RuntimeConfig), ("rea", REAConfig)):
        names = {f.name for f in fields(cls)}
        sections[section].update({k: options.pop(k) for k in list(options) if k in names})
    if options:
        raise TypeError(f"unknown options: {', '.join(options)}")
    settings = Settings.from_env(**sections)
    for name, value in whole.items():
        if value is not None:
            settings = settings.with_method_config(name, value)
    return settings


def load_pipeline(settings, context_window: int | None = None):
    """The models ``settings`` name (the command's --model, --embedder, ... already in them)."""
    from ..loading import load_models

    quiet_libraries()
    m = settings.models
    typer.echo(f"loading generator '{m.model}' and embedder '{m.embedder}' ...", err=True)
    models = load_models(**m.load_kwargs(), context_window=context_window, openai=settings.openai)
    if models.codec_note:
        typer.secho(f"note: {models.codec_note}", err=True, fg=typer.colors.YELLOW)
    return models


def checked_out(path, *, folder: bool = True):
    """``--out`` refused before anything else runs: a model load takes seconds, and a run that cannot
    write its results should not start (``validation.check_output``)."""
    from ..errors import SettingsError
    from ..validation import check_output

    return check_output(path, folder=folder, error=SettingsError)


def split_names(value: str) -> list[str]:
    """Names from a comma-separated option value, blanks dropped."""
    return [n.strip() for n in value.split(",") if n.strip()]
