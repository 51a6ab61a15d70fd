"""``rea app``: serve the Gradio app (Compare, Inspect, Annotate and Review tabs).

Added to ``rea``'s command line through the ``rea_studio.commands`` entry point (``register``),
so the library never imports the app.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from rea_core.cli import (
    AdapterOpt,
    EmbedderOpt,
    ModelOpt,
    OutputRulesOpt,
    RecentCompressedOpt,
    RecentRawOpt,
    RecentRawTokensOpt,
    RecognizerModelOpt,
    TauHighOpt,
    TauLowOpt,
    quiet_libraries,
    reported_errors,
    settings_from_options,
)


def register(groups: dict[str, typer.Typer]) -> None:
    """Add ``rea app`` to the ``rea`` command line."""
    groups["root"].command(name="app")(serve)


def serve(
    host: Annotated[
        Optional[str],
        typer.Option(
            "--host",
            help="Interface to listen on [env GRADIO_SERVER_NAME; default 127.0.0.1, "
            "or 0.0.0.0 where sign-in is configured].",
        ),
    ] = None,
    port: Annotated[
        Optional[int], typer.Option("--port", help="Port to listen on [env GRADIO_SERVER_PORT, default 7860].")
    ] = None,
    model: ModelOpt = None,
    adapter: AdapterOpt = None,
    embedder: EmbedderOpt = None,
    recognizer_model: RecognizerModelOpt = None,
    tau_low: TauLowOpt = None,
    tau_high: TauHighOpt = None,
    max_new_tokens: Annotated[
        Optional[int], typer.Option("--max-new-tokens", help="Longest reply in the app [env REA_MAX_NEW_TOKENS].")
    ] = None,
    database_url: Annotated[
        Optional[str],
        typer.Option("--database-url", help="SQLAlchemy URL of the annotations database [env REA_DATABASE_URL]."),
    ] = None,
    concurrency: Annotated[
        Optional[int],
        typer.Option(
            "--concurrency",
            help="Model calls at once; further requests wait in the queue [env REA_APP_CONCURRENCY, default 1].",
        ),
    ] = None,
    recent_raw: RecentRawOpt = None,
    recent_raw_tokens: RecentRawTokensOpt = None,
    recent_compressed: RecentCompressedOpt = None,
    output_rules: OutputRulesOpt = None,
) -> None:
    """Serve REA Studio on HOST:PORT with the packaged model by default.

    Example: rea app --port 7860 --tau-low 0.45
    """
    with reported_errors():
        quiet_libraries()
        from .main import launch
        from .state import AppEngine

        settings = settings_from_options(  # a bad REA_* value stops here, before minutes of model loading
            model=model,
            adapter=adapter,
            embedder=embedder,
            recognizer_model=recognizer_model,
            tau_low=tau_low,
            tau_high=tau_high,
            max_new_tokens=max_new_tokens,
            recent_raw=recent_raw,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            output_rules=output_rules,
        )
        settings = settings.with_section(
            "app",
            **{k: v for k, v in {"host": host, "port": port, "concurrency": concurrency}.items() if v is not None},
        )
        typer.echo(
            f"loading generator '{settings.models.model}' and embedder '{settings.models.embedder}' ...", err=True
        )
        engine = AppEngine.from_settings(settings, database_url=database_url)
        from annotations import StoreError

        try:
            engine.db  # migrate the database before serving
        except StoreError as exc:
            typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
            raise typer.Exit(2)
        launch(engine, host=settings.app.host, port=settings.app.port)
