"""``rea annotations``: import candidate inputs, export labels, show counts and agreement.

Example:
    rea annotations import inputs.jsonl --annotator alice
    rea annotations export --format parquet --out labels.parquet
    rea annotations stats --db postgresql+psycopg://user:pass@host/rea
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .db import DbOpt

app = typer.Typer(help="The annotation studio's items and labels.", no_args_is_help=True)


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(2)


def _session(db: str | None):
    """Sessions on the migrated database; a bad URL or an unreachable server is one error line."""
    from annotations import StoreError, create_db_engine, session_factory, upgrade

    try:
        engine = create_db_engine(db)
        upgrade(engine)
    except StoreError as exc:
        _fail(str(exc))
    return session_factory(engine)


@app.command(name="import")
def import_(file: Annotated[Path, typer.Argument(help="JSONL or CSV with a 'text' field per row.")],
            annotator: Annotated[Optional[str], typer.Option("--annotator", help="Whose labels the rows' 'label' field are.")] = None,
            db: DbOpt = None) -> None:
    """Import a file in one transaction (deduplicated); a bad line imports nothing of it.

    Example: rea annotations import labeled.jsonl --annotator alice
    """
    from annotations import StoreError
    from annotations.io import ImportFormatError, read_rows
    from annotations.store_items import import_rows

    try:
        rows = read_rows(file, annotator=annotator)
        with _session(db)() as session:
            result = import_rows(session, rows, source=file.name, annotator=annotator)
    except FileNotFoundError:
        _fail(f"{file}: no such file")
    except (ImportFormatError, StoreError) as exc:
        _fail(f"{exc}; nothing was imported")
    typer.echo(f"imported {file.name}: {result.n_rows} rows, {result.n_new_items} new items, "
               f"{result.n_duplicates} duplicates, {result.n_labels} labels (batch {result.batch_id})")


@app.command()
def export(out: Annotated[Path, typer.Option("--out", help="File to write.")],
           format: Annotated[str, typer.Option("--format", help="jsonl, csv or parquet.")] = "jsonl",
           labeled_only: Annotated[bool, typer.Option("--labeled-only", help="Only items with a label.")] = False,
           db: DbOpt = None) -> None:
    """Export every item with each annotator's label and the adjudicated or majority label.

    Example: rea annotations export --format parquet --out labels.parquet
    """
    from annotations import StoreError
    from annotations.io import EXPORT_FORMATS, write_export
    from annotations.store_review import export_rows

    if format not in EXPORT_FORMATS:
        _fail(f"unknown format {format!r}; use one of {', '.join(EXPORT_FORMATS)}")
    try:
        with _session(db)() as session:
            rows = export_rows(session, labeled_only=labeled_only)
    except StoreError as exc:
        _fail(str(exc))
    try:
        write_export(rows, out, format)  # written under a temporary name, then renamed: never half a file
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}; nothing was written")
    typer.echo(f"wrote {len(rows)} items to {out}")


@app.command()
def stats(db: DbOpt = None) -> None:
    """Counts of items and labels, and agreement (Cohen's kappa per pair, Fleiss' kappa).

    Example: rea annotations stats
    """
    from annotations import StoreError
    from annotations.store_review import agreement_stats

    try:
        with _session(db)() as session:
            s = agreement_stats(session)
    except StoreError as exc:
        _fail(str(exc))
    fmt = lambda k: "undefined" if k is None else f"{k:.3f}"  # noqa: E731
    typer.echo(f"items: {s.n_items}  labeled: {s.n_labeled}  adjudicated: {s.n_adjudicated}")
    typer.echo("labels: " + ", ".join(f"{k} {v}" for k, v in sorted(s.label_counts.items())))
    typer.echo("final labels: " + ", ".join(f"{k} {v}" for k, v in sorted(s.final_counts.items())))
    for a, b, n, k in s.pairs:
        typer.echo(f"cohen kappa {a} / {b}: {fmt(k)} on {n} items")
    typer.echo(f"fleiss kappa: {fmt(s.fleiss)} on {s.fleiss_items} items with 2+ labels")
