"""``rea train``: train the Instruction Recognizer from annotators' labels and switch versions.

Example:
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

from .annotations_cmd import _fail, _session
from .db import DbOpt

app = typer.Typer(help="Train models from the annotation studio's labels.", no_args_is_help=True)


def _line(name: str, m: dict | None) -> str:
    if not m:
        return f"{name:<24} (not measured)"
    return f"{name:<24} precision {m['precision']:.3f}  recall {m['recall']:.3f}  F1 {m['f1']:.3f}  (n={m['n']}, global={m['positives']})"


def print_metrics(metrics: dict) -> None:
    typer.echo(f"trained on {metrics['n_train']} labels, held out {metrics['n_heldout']}, "
               f"left out {metrics['n_excluded_overlap']} also in the validation set")
    typer.echo(_line("held-out (pipeline)", metrics["heldout"]["pipeline"]))
    if metrics.get("validation"):
        typer.echo(_line("validation (pipeline)", metrics["validation"]["pipeline"]))
        typer.echo(_line("validation (classifier)", metrics["validation"]["classifier"]))
        typer.echo(_line("validation rules-only", metrics["baseline_validation"]["pipeline"]))
    else:
        typer.echo("validation set rea_core/data/recognizer_validation.jsonl not found: held-out metrics only")


@app.command()
def recognizer(db: DbOpt = None,
               activate: Annotated[bool, typer.Option("--activate/--no-activate", help="Make the new version the one in use.")] = True,
               created_by: Annotated[str, typer.Option("--by", help="Recorded as the version's author.")] = "cli",
               embedder: Annotated[str, typer.Option("--embedder", envvar="REA_EMBEDDER", help="Sentence embedder ('packaged': all-MiniLM-L6-v2).")] = "packaged",
               as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
               labels: Annotated[Optional[Path], typer.Option("--labels", help="Train from this label-set JSONL (text, label, split) instead of the database.")] = None,
               out: Annotated[Optional[Path], typer.Option("--out", help="With --labels: where to write the trained recognizer JSON.")] = None,
               test: Annotated[Optional[list[str]], typer.Option("--test", help="With --labels: NAME=FILE, an extra labeled JSONL to report (repeatable).")] = None) -> None:
    """Fit the recognizer's stage 2 on the labels; measure on held-out and validation sets.

    Example: rea train recognizer --db postgresql+psycopg://user:pass@host/rea
    Example: rea train recognizer --labels rea_core/data/recognizer_train.jsonl --out rea_core/data/recognizer_default.json --test fresh=rea_core/data/recognizer_fresh_test.jsonl
    """
    if labels is not None:
        _train_from_file(labels, out, test or [], embedder, as_json)
        return
    from annotations import StoreError
    from annotations.training import train_from_store
    from rea_core.backends import load_embedder
    from rea_core.errors import REAError

    from .common import quiet_libraries

    quiet_libraries()
    try:
        Session = _session(db)
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
    from rea_core.recognizer.default import load_label_set, train_default

    from .common import quiet_libraries, reported_errors

    with reported_errors():
        if out is None:
            raise typer.BadParameter("--labels needs --out")
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
        typer.echo(f"wrote {out}: trained on {m['n_train']} labels, threshold {m['threshold']:.3f} (cross-validated on train)")
        typer.echo(_line("train, out-of-fold", m["cv_train"]))
        typer.echo(_line("held-out (pipeline)", m["heldout"]["pipeline"]))
        for source, sm in m["heldout_by_source"].items():
            typer.echo(_line(f"  held-out {source}", sm))
        for name, tm in m["tests"].items():
            typer.echo(_line(f"test {name} (pipeline)", tm["pipeline"]))


@app.command()
def versions(db: DbOpt = None) -> None:
    """List trained recognizer versions, newest first, with validation metrics.

    Example: rea train versions
    """
    from annotations import StoreError
    from annotations.store_review import list_versions

    try:
        with _session(db)() as session:
            found = list_versions(session)
    except StoreError as exc:
        _fail(str(exc))
    if not found:
        typer.echo("no trained versions; the packaged recognizer is in use")
    for v in found:
        val = (v.metrics.get("validation") or {}).get("pipeline") or v.metrics["heldout"]["pipeline"]
        typer.echo(f"{'*' if v.active else ' '} {v.id:>3}  {v.created_at:%Y-%m-%d %H:%M}  by {v.created_by}  {v.n_labels} labels  F1 {val['f1']:.3f}")


@app.command()
def use(version: Annotated[str, typer.Argument(help="A version id, or 'packaged' for the default recognizer.")], db: DbOpt = None) -> None:
    """Switch the recognizer in use (a running app picks it up when it restarts).

    Example: rea train use 3
    """
    from annotations import StoreError
    from annotations.store_review import set_active_version

    target = None if version == "packaged" else int(version) if version.isdigit() else _fail("version must be an id or 'packaged'")
    try:
        with _session(db)() as session:
            set_active_version(session, target)
    except (ValueError, StoreError) as exc:
        _fail(str(exc))
    typer.echo(f"recognizer in use: {version}")


@app.command(name="save-model")
def save_model(version: Annotated[int, typer.Argument(help="Version id.")], out: Annotated[Path, typer.Option("--out")], db: DbOpt = None) -> None:
    """Write a version's weights as JSON (load with TrainedRecognizer.load).

    Example: rea train save-model 3 --out recognizer.json
    """
    from annotations import StoreError
    from annotations.store_review import version_model

    try:
        with _session(db)() as session:
            model = version_model(session, version)
        out.write_text(json.dumps(model), encoding="utf-8")
    except (ValueError, StoreError) as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}")
    typer.echo(f"wrote {out}")
