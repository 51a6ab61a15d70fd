"""Helpers the ``rea`` commands share: error reporting and building the pipeline from options."""

from __future__ import annotations

import contextlib
import os


import typer

from ..errors import REAError


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


def quiet_libraries() -> None:
    """Keep library chatter off stdout/stderr; conversion progress still shows."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def config_from_options(**kwargs):
    from ..config import REAConfig

    try:
        return REAConfig.from_env(**kwargs)
    except ValueError as exc:  # ThresholdError is a REAError and a ValueError
        if isinstance(exc, REAError):
            raise
        raise REAError(str(exc)) from exc


def load_pipeline(model: str, embedder: str, context_window: int | None, recognizer_model: str | None = None, tokenizer: str | None = None):
    """Models for a command; the latent codec comes from REA_CODEC ("auto" by default, "none", or a folder)."""
    from ..pipeline import load_models

    quiet_libraries()
    typer.echo(f"loading generator '{model}' and embedder '{embedder}' ...", err=True)
    models = load_models(model, embedder, recognizer_model=recognizer_model, context_window=context_window,
                         codec=os.environ.get("REA_CODEC", "auto"), tokenizer=tokenizer or os.environ.get("REA_TOKENIZER"))
    if models.codec_note:
        typer.secho(f"note: {models.codec_note}", err=True, fg=typer.colors.YELLOW)
    return models




def split_names(value: str) -> list[str]:
    """Names from a comma-separated option value, blanks dropped."""
    return [n.strip() for n in value.split(",") if n.strip()]
