"""``rea db``: the annotations database (SQLite by default, any SQLAlchemy URL)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import reported_errors

app = typer.Typer(help="The annotations database.", no_args_is_help=True)
DbOpt = Annotated[Optional[str], typer.Option("--db", envvar="REA_DATABASE_URL", help="SQLAlchemy URL (default: SQLite under REA_DATA_DIR).")]


@app.command()
def upgrade(db: DbOpt = None) -> None:
    """Migrate the database schema to the latest version (safe to run every start).

    Example: rea db upgrade --db postgresql+psycopg://user:pass@host/rea
    """
    from annotations import StoreError
    from annotations import upgrade as run_upgrade
    from annotations.db import database_url, safe_url

    with reported_errors():
        url = database_url(db)
        try:
            run_upgrade(url)
        except StoreError as exc:
            typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
            raise typer.Exit(2)
        typer.echo(f"database at {safe_url(url)} is at the latest schema")
