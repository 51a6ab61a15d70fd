"""The annotation studio's commands: ``rea annotations``, ``rea db`` and the recognizer's ``rea train``.

They live with the store they use; ``rea_core``'s command line adds them through the
``rea_studio.commands`` entry point (``register``), so the library never imports this package.

Example:
    rea annotations import inputs.jsonl --annotator alice
    rea annotations export --format parquet --out labels.parquet
    rea annotations stats --db postgresql+psycopg://user:pass@host/rea
    rea db upgrade --db postgresql+psycopg://user:pass@host/rea
    rea train recognizer --db sqlite:///labels.db       # fit, measure, save as the active version
    rea train versions                                  # list versions with their metrics
    rea train use 3                                     # switch to version 3 ("packaged" to go back)
    rea train save-model 3 --out recognizer.json        # the weights, for InstructionRecognizer(trained=...)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from rea_core.cli import EmbedderOpt, checked_out, quiet_libraries, reported_errors

db_app = typer.Typer(help="The annotations database.", no_args_is_help=True)
train_app = typer.Typer()  # its commands join the library's ``rea train`` group in ``register``
DbOpt = Annotated[
    Optional[str],
    typer.Option("--db", envvar="REA_DATABASE_URL", help="SQLAlchemy URL (default: SQLite under REA_DATA_DIR)."),
]


def register(groups: dict[str, typer.Typer]) -> None:
    """Add these commands to the ``rea`` command line (the ``rea_studio.commands`` entry point)."""
    groups["root"].add_typer(annotations_app, name="annotations")
    groups["root"].add_typer(db_app, name="db")
    for command in train_app.registered_commands:
        groups["train"].registered_commands.append(command)


annotations_app = typer.Typer(help="The annotation studio's items and labels.", no_args_is_help=True)


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(2)


def _writable(out: Path) -> None:
    """An ``--out`` file refused before the database is opened (``rea_core.validation.check_output``)."""
    from rea_core.errors import SettingsError

    try:
        checked_out(out, folder=False)
    except SettingsError as exc:
        _fail(str(exc))


def _db_factory(url: str | None):
    """Database sessions on the migrated database; a bad URL or an unreachable server is one error line."""
    from . import StoreError, create_db_engine, session_factory, upgrade

    try:
        engine = create_db_engine(url)
        upgrade(engine)
    except StoreError as exc:
        _fail(str(exc))
    return session_factory(engine)


def _in_store(url: str | None, work, *errors: type[Exception]):
    """``work(db)`` with a database session on the migrated database; a store error (or one of ``errors``)
    is one error line."""
    from . import StoreError

    try:
        with _db_factory(url)() as db:
            return work(db)
    except (StoreError, *errors) as exc:
        _fail(str(exc))


@annotations_app.command(name="import")
def import_(
    file: Annotated[Path, typer.Argument(help="JSONL or CSV with a 'text' field per row.")],
    annotator: Annotated[
        Optional[str], typer.Option("--annotator", help="Whose labels the rows' 'label' field are.")
    ] = None,
    url: DbOpt = None,
) -> None:
    """Import a file in one transaction (deduplicated); a bad line imports nothing of it.

    Example: rea annotations import labeled.jsonl --annotator alice
    """
    from . import StoreError
    from .io import ImportFormatError, read_rows
    from .store_items import import_rows

    try:
        rows = read_rows(file, annotator=annotator)
        with _db_factory(url)() as db:
            result = import_rows(db, rows, source=file.name, annotator=annotator)
    except FileNotFoundError:
        _fail(f"{file}: no such file")
    except (ImportFormatError, StoreError) as exc:
        _fail(f"{exc}; nothing was imported")
    typer.echo(
        f"imported {file.name}: {result.n_rows} rows, {result.n_new_items} new items, "
        f"{result.n_duplicates} duplicates, {result.n_labels} labels (batch {result.batch_id})"
    )


@annotations_app.command()
def export(
    out: Annotated[Path, typer.Option("--out", help="File to write.")],
    format: Annotated[str, typer.Option("--format", help="jsonl, csv or parquet.")] = "jsonl",
    labeled_only: Annotated[bool, typer.Option("--labeled-only", help="Only items with a label.")] = False,
    url: DbOpt = None,
) -> None:
    """Export every item with each annotator's label and the adjudicated or majority label.

    Example: rea annotations export --format parquet --out labels.parquet
    """
    from .io import EXPORT_FORMATS, write_export
    from .store_review import export_rows

    if format not in EXPORT_FORMATS:
        _fail(f"unknown format {format!r}; use one of {', '.join(EXPORT_FORMATS)}")
    _writable(out)
    rows = _in_store(url, lambda db: export_rows(db, labeled_only=labeled_only))
    try:
        write_export(rows, out, format)  # written under a temporary name, then renamed: never half a file
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}; nothing was written")
    typer.echo(f"wrote {len(rows)} items to {out}")


@annotations_app.command()
def stats(url: DbOpt = None) -> None:
    """Counts of items and labels, and agreement (Cohen's kappa per pair, Fleiss' kappa).

    Example: rea annotations stats
    """
    from .store_review import agreement_stats

    s = _in_store(url, agreement_stats)
    fmt = lambda k: "undefined" if k is None else f"{k:.3f}"  # noqa: E731
    typer.echo(f"items: {s.n_items}  labeled: {s.n_labeled}  adjudicated: {s.n_adjudicated}")
    typer.echo("labels: " + ", ".join(f"{k} {v}" for k, v in sorted(s.label_counts.items())))
    typer.echo("final labels: " + ", ".join(f"{k} {v}" for k, v in sorted(s.final_counts.items())))
    for a, b, n, k in s.pairs:
        typer.echo(f"cohen kappa {a} / {b}: {fmt(k)} on {n} items")
    typer.echo(f"fleiss kappa: {fmt(s.fleiss)} on {s.fleiss_items} items with 2+ labels")


@db_app.command()
def upgrade(url: DbOpt = None) -> None:
    """Migrate the database schema to the latest version (safe to run every start).

    Example: rea db upgrade --db postgresql+psycopg://user:pass@host/rea
    """
    from . import StoreError
    from . import upgrade as run_upgrade
    from .db import database_url, safe_url

    with reported_errors():
        url = database_url(url)
        try:
            run_upgrade(url)
        except StoreError as exc:
            typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
            raise typer.Exit(2)
        typer.echo(f"database at {safe_url(url)} is at the latest schema")


def _line(name: str, m: dict | None) -> str:
    if not m:
        return f"{name:<24} (not measured)"
    return (
        f"{name:<24} precision {m['precision']:.3f}  recall {m['recall']:.3f}  "
        f"F1 {m['f1']:.3f}  (n={m['n']}, global={m['positives']})"
    )


def print_metrics(metrics: dict) -> None:
    typer.echo(
        f"trained on {metrics['n_train']} labels, held out {metrics['n_heldout']}, "
        f"left out {metrics['n_excluded_overlap']} also in the validation set"
    )
    typer.echo(_line("held-out (pipeline)", metrics["heldout"]["pipeline"]))
    if metrics.get("validation"):
        typer.echo(_line("validation (pipeline)", metrics["validation"]["pipeline"]))
        typer.echo(_line("validation (classifier)", metrics["validation"]["classifier"]))
        typer.echo(_line("validation rules-only", metrics["baseline_validation"]["pipeline"]))
    else:
        typer.echo("validation set rea_core/data/recognizer_validation.jsonl not found: held-out metrics only")


@train_app.command()
def recognizer(
    url: DbOpt = None,
    activate: Annotated[
        bool, typer.Option("--activate/--no-activate", help="Make the new version the one in use.")
    ] = True,
    created_by: Annotated[str, typer.Option("--by", help="Recorded as the version's author.")] = "cli",
    embedder: EmbedderOpt = "packaged",
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
    labels: Annotated[
        Optional[Path],
        typer.Option("--labels", help="Train from this label-set JSONL (text, label, split) instead of the database."),
    ] = None,
    out: Annotated[
        Optional[Path], typer.Option("--out", help="With --labels: where to write the trained recognizer JSON.")
    ] = None,
    test: Annotated[
        Optional[list[str]],
        typer.Option("--test", help="With --labels: NAME=FILE, an extra labeled JSONL to report (repeatable)."),
    ] = None,
) -> None:
    """Fit the recognizer's stage 2 on the labels; measure on held-out and validation sets.

    Example: rea train recognizer --db postgresql+psycopg://user:pass@host/rea
    Example: rea train recognizer --labels rea_core/data/recognizer_train.jsonl \\
        --out rea_core/data/recognizer_default.json --test fresh=rea_core/data/recognizer_fresh_test.jsonl
    """
    if labels is not None:
        _train_from_file(labels, out, test or [], embedder, as_json)
        return
    from rea_core.backends import load_embedder
    from rea_core.errors import REAError

    from . import StoreError
    from .training import train_from_store

    quiet_libraries()
    try:
        Session = _db_factory(url)
        version = train_from_store(Session, load_embedder(embedder), created_by=created_by, activate=activate)
    except (StoreError, REAError) as exc:
        _fail(str(exc))
    if as_json:
        typer.echo(json.dumps({"version": version.id, "active": version.active, "metrics": version.metrics}))
        return
    typer.echo(f"recognizer version {version.id} saved{' and active' if version.active else ''}")
    print_metrics(version.metrics)


def _train_from_file(labels: Path, out: Optional[Path], tests: list[str], embedder: str, as_json: bool) -> None:
    """The shipped default's training: no database; the file's own split decides train and held-out."""
    from rea_core.backends import load_embedder
    from rea_core.recognizer import load_label_set
    from rea_core.training import train_default

    with reported_errors():
        if out is None:
            raise typer.BadParameter("--labels needs --out")
        checked_out(out, folder=False)  # before the embedder loads
        named = {}
        for spec in tests:
            name, sep, path = spec.partition("=")
            if not sep or not name or not path:
                raise typer.BadParameter(f"--test takes NAME=FILE, got {spec!r}")
            named[name] = load_label_set(path)
        rows = load_label_set(labels)
        quiet_libraries()
        result = train_default(rows, load_embedder(embedder), label_set=labels.name, tests=named)
        result.model.save(out)
        if as_json:
            typer.echo(json.dumps(result.metrics))
            return
        m = result.metrics
        typer.echo(
            f"wrote {out}: trained on {m['n_train']} labels, threshold {m['threshold']:.3f} (cross-validated on train)"
        )
        typer.echo(_line("train, out-of-fold", m["cv_train"]))
        typer.echo(_line("held-out (pipeline)", m["heldout"]["pipeline"]))
        for source, sm in m["heldout_by_source"].items():
            typer.echo(_line(f"  held-out {source}", sm))
        for name, tm in m["tests"].items():
            typer.echo(_line(f"test {name} (pipeline)", tm["pipeline"]))


@train_app.command()
def versions(url: DbOpt = None) -> None:
    """List trained recognizer versions, newest first, with validation metrics.

    Example: rea train versions
    """
    from .store_review import list_versions

    found = _in_store(url, list_versions)
    if not found:
        typer.echo("no trained versions; the packaged recognizer is in use")
    for v in found:
        val = (v.metrics.get("validation") or {}).get("pipeline") or v.metrics["heldout"]["pipeline"]
        typer.echo(
            f"{'*' if v.active else ' '} {v.id:>3}  {v.created_at:%Y-%m-%d %H:%M}  "
            f"by {v.created_by}  {v.n_labels} labels  F1 {val['f1']:.3f}"
        )


@train_app.command()
def use(
    version: Annotated[str, typer.Argument(help="A version id, or 'packaged' for the default recognizer.")],
    url: DbOpt = None,
) -> None:
    """Switch the recognizer in use (a running app picks it up when it restarts).

    Example: rea train use 3
    """
    from .store_review import set_active_version

    target = (
        None
        if version == "packaged"
        else int(version)
        if version.isascii() and version.isdigit()  # "²" is a digit to Python, not to int()
        else _fail("version must be an id or 'packaged'")
    )
    _in_store(url, lambda db: set_active_version(db, target), ValueError)
    typer.echo(f"recognizer in use: {version}")


@train_app.command(name="save-model")
def save_model(
    version: Annotated[int, typer.Argument(help="Version id.")],
    out: Annotated[Path, typer.Option("--out")],
    url: DbOpt = None,
) -> None:
    """Write a version's weights as JSON (load with TrainedRecognizer.load).

    Example: rea train save-model 3 --out recognizer.json
    """
    from .store_review import version_model

    _writable(out)
    model = _in_store(url, lambda db: version_model(db, version), ValueError)
    try:
        out.write_text(json.dumps(model), encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}")
    typer.echo(f"wrote {out}")
