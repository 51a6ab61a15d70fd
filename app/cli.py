"""``rea app``: serve the Gradio app (Compare, Inspect, Annotate and Review tabs).

Added to ``rea``'s command line through the ``rea_studio.commands`` entry point (``register``),
so the library never imports the app.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from rea_core.cli.common import quiet_libraries, reported_errors
from rea_core.cli.options import (
    DEFAULT_EMBEDDER,
    DEFAULT_MODEL,
    EmbedderOpt,
    ModelOpt,
    RecentCompressedOpt,
    RecentRawOpt,
    RecentRawTokensOpt,
    RecognizerModelOpt,
    TauHighOpt,
    TauLowOpt,
)


def register(groups: dict[str, typer.Typer]) -> None:
    """Add ``rea app`` to the ``rea`` command line."""
    groups["root"].command(name="app")(serve)


def serve(
    host: Annotated[str, typer.Option("--host", envvar="GRADIO_SERVER_NAME", help="Interface to listen on.")] = "0.0.0.0",
    port: Annotated[int, typer.Option("--port", envvar="GRADIO_SERVER_PORT", help="Port to listen on.")] = 7860,
    model: ModelOpt = DEFAULT_MODEL,
    embedder: EmbedderOpt = DEFAULT_EMBEDDER,
    recognizer_model: RecognizerModelOpt = None,
    tau_low: TauLowOpt = None,
    tau_high: TauHighOpt = None,
    max_new_tokens: Annotated[Optional[int], typer.Option("--max-new-tokens", envvar="REA_MAX_NEW_TOKENS", help="Longest reply in the app.")] = None,
    database_url: Annotated[Optional[str], typer.Option("--database-url", envvar="REA_DATABASE_URL", help="SQLAlchemy URL of the annotations database.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", envvar="REA_APP_CONCURRENCY", help="Model calls at once; further requests wait in the queue.")] = 1,
    recent_raw: RecentRawOpt = None,
    recent_raw_tokens: RecentRawTokensOpt = None,
    recent_compressed: RecentCompressedOpt = None,
) -> None:
    """Serve REA Studio on HOST:PORT with the packaged model by default.

    Example: rea app --port 7860 --tau-low 0.45
    """
    with reported_errors():
        quiet_libraries()
        from .main import launch
        from .state import AppEngine

        typer.echo(f"loading generator '{model}' and embedder '{embedder}' ...", err=True)
        engine = AppEngine.from_env(
            model=model, embedder=embedder, recognizer_model=recognizer_model, tau_low=tau_low, tau_high=tau_high,
            max_new_tokens=max_new_tokens, database_url=database_url, concurrency=concurrency,
            recent_raw=recent_raw, recent_raw_tokens=recent_raw_tokens, recent_compressed=recent_compressed,
        )
        from annotations import StoreError

        try:
            engine.db  # migrate the database before serving
        except StoreError as exc:
            typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
            raise typer.Exit(2)
        launch(engine, host=host, port=port)
