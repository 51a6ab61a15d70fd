"""Annotation files: read JSONL / CSV candidate inputs (validated whole before any write) and
write exports as JSONL, CSV or Parquet (the formats the `datasets` library loads).

A row needs `text`; it may carry `source`, `context`, a `label` (imported under the annotator
named on the command line), `labels` (a list of {"annotator", "label"}, as exported) and
`adjudicated` (with `adjudicator`). A bad row raises `ImportFormatError` naming file and line.
"""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rea_core.validation import check_name, check_text, parse_json

from .models import LABEL_CHOICES

EXPORT_FORMATS = ("jsonl", "csv", "parquet")
MAX_TEXT_CHARS = 20_000  # longer inputs are not chat messages; refusing them keeps the UI usable
MAX_NAME_CHARS = 100  # annotator, adjudicator and source names
# OWASP "CSV injection": a spreadsheet runs a cell that starts with one of these as a formula.
# Such a cell (or one that only looks escaped: quotes, then one of these) gets one more leading
# quote on export, and the reader takes exactly one off again, so a CSV round trip is exact.
_FORMULA = re.compile(r"^'*[=+\-@\t\r]")


class ImportFormatError(ValueError):
    """A file that cannot be imported; the message names the file and line."""


@dataclass
class ImportRow:
    """One candidate input and the labels it brings along."""

    text: str
    source: str = ""
    context: str | None = None
    labels: list[tuple[str, str]] = field(default_factory=list)  # (annotator, label)
    adjudicated: str | None = None
    adjudicator: str | None = None


def neutralize_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will show as text, never run as a formula (OWASP: prefix a quote)."""
    return "'" + value if isinstance(value, str) and _FORMULA.match(value) else value


def restore_cell(value: Any) -> Any:
    """Undo ``neutralize_cell`` on a CSV cell read back."""
    return value[1:] if isinstance(value, str) and value.startswith("'") and _FORMULA.match(value) else value


def _label(value: Any, where: str) -> str:
    if value not in LABEL_CHOICES:
        raise ImportFormatError(f"{where}: label {str(value)[:40]!r} is not one of {', '.join(LABEL_CHOICES)}")
    return value


def _string(value: Any, what: str, where: str, limit: int) -> str:
    """A field that must be text within ``limit`` characters and free of NUL (PostgreSQL refuses it)."""
    if not isinstance(value, str):
        raise ImportFormatError(f"{where}: {what} must be a string, not {type(value).__name__}")
    if len(value) > limit:
        raise ImportFormatError(f"{where}: {what} is longer than {limit:,} characters")
    return check_text(value, f"{where}: {what}", error=ImportFormatError)  # no NUL, no lone surrogate


def check_annotator(name: str, where: str = "--annotator") -> str:
    """An annotator name as the store keeps it: non-empty text, at most MAX_NAME_CHARS, no NUL,
    surrogate or other control character (names are shown on one line in every table)."""
    name = _string(name, "the annotator name", where, MAX_NAME_CHARS).strip()
    check_name(name, f"{where}: the annotator name", error=ImportFormatError)
    if not name:
        raise ImportFormatError(f"{where}: the annotator name is empty")
    return name


def _row(data: Any, where: str, annotator: str | None, default_source: str) -> ImportRow:
    if not isinstance(data, dict):
        raise ImportFormatError(f"{where}: expected an object with a 'text' field")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ImportFormatError(f"{where}: 'text' must be a non-empty string")
    text = _string(text, "'text'", where, MAX_TEXT_CHARS)
    labels: list[tuple[str, str]] = []
    if data.get("label") not in (None, ""):
        if not annotator:
            raise ImportFormatError(f"{where}: the row has a 'label' but no annotator was named (--annotator NAME)")
        labels.append((annotator, _label(data["label"], where)))
    raw = data.get("labels")
    if isinstance(raw, str) and raw.strip():  # CSV exports keep the list as JSON text
        raw = parse_json(raw, where=f"{where}: 'labels'", error=ImportFormatError)
    if raw not in (None, "") and not isinstance(raw, list):
        raise ImportFormatError(
            f'{where}: \'labels\' must be a list of {{"annotator", "label"}} objects, not {type(raw).__name__}'
        )
    for entry in raw or []:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("annotator"), str)
            or not entry["annotator"].strip()
        ):
            raise ImportFormatError(f"{where}: each of 'labels' needs an 'annotator' and a 'label'")
        labels.append((check_annotator(entry["annotator"], where), _label(entry.get("label"), where)))
    adjudicated = data.get("adjudicated") or None
    adjudicator = None
    if adjudicated is not None:
        _label(adjudicated, where)
        if data.get("adjudicator") not in (None, ""):
            adjudicator = check_annotator(data["adjudicator"], f"{where}: 'adjudicator'")
    context = data.get("context")
    context = _string(context, "'context'", where, MAX_TEXT_CHARS) if context not in (None, "") else None
    source = data.get("source")
    source = (
        check_name(_string(source, "'source'", where, MAX_NAME_CHARS), f"{where}: 'source'", error=ImportFormatError)
        if source not in (None, "")
        else default_source[:MAX_NAME_CHARS]
    )
    return ImportRow(
        text=text.strip(),
        source=source,
        context=context,
        labels=labels,
        adjudicated=adjudicated,
        adjudicator=adjudicator,
    )


def read_rows(path: str | os.PathLike[str], *, annotator: str | None = None) -> list[ImportRow]:
    """Parse and validate a whole JSONL or CSV file (by extension); nothing is written here.

    Raises:
        ImportFormatError: The first bad line, as "file:line: what is wrong"; or an unknown format.
    """
    path = Path(path)
    name = path.name
    suffix = path.suffix.lower()
    if annotator is not None:
        annotator = check_annotator(annotator)
    rows: list[ImportRow] = []
    number = 0
    try:
        if suffix in (".jsonl", ".ndjson"):
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    if not line.strip():
                        continue
                    data = parse_json(line, where=f"{name}:{number}", error=ImportFormatError)
                    rows.append(_row(data, f"{name}:{number}", annotator, name))
        elif suffix == ".csv":
            with open(path, encoding="utf-8", newline="") as handle:
                reader = csv.DictReader(handle)
                if not reader.fieldnames or "text" not in reader.fieldnames:
                    raise ImportFormatError(f"{name}:1: the header needs a 'text' column")
                number = reader.line_num
                for data in reader:
                    number = reader.line_num
                    data = {
                        k: restore_cell(v) for k, v in data.items() if k is not None
                    }  # extra unnamed cells dropped
                    rows.append(_row(data, f"{name}:{number}", annotator, name))
        else:
            raise ImportFormatError(f"{name}: unknown format {suffix or '(none)'}; use .jsonl or .csv")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(f"{name}: not UTF-8 text ({exc.reason})") from exc
    except csv.Error as exc:  # e.g. a field over the csv module's 131,072-character limit
        raise ImportFormatError(f"{name}:{number + 1}: not readable CSV ({exc})") from exc
    except IsADirectoryError:
        raise ImportFormatError(f"{name}: is a folder, not a file") from None
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ImportFormatError(f"{name}: cannot be read ({exc.strerror})") from exc
    if not rows:  # an empty import is a mistake (a wrong file, a failed export), never a success
        raise ImportFormatError(f"{name}: no rows to import")
    return rows


def write_export(rows: list[dict[str, Any]], path: str | os.PathLike[str], fmt: str) -> None:
    """Write export rows (see `store_review.export_rows`) as jsonl, csv or parquet.

    The file is written next to ``path`` under a temporary name and renamed into place, so a
    failure leaves no half-written export. CSV cells are neutralized against formula injection
    (``neutralize_cell``); JSONL and Parquet keep every value exactly.

    Raises:
        ValueError: Unknown format.
        OSError: The folder does not exist or is not writable (nothing is written).
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    try:
        _write(rows, tmp, fmt)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write(rows: list[dict[str, Any]], path: str, fmt: str) -> None:
    if fmt == "jsonl":
        with open(path, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    elif fmt == "csv":
        columns = [
            "id",
            "text",
            "source",
            "context",
            "labels",
            "n_labels",
            "majority",
            "adjudicated",
            "adjudicator",
            "final_label",
        ]
        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            for r in rows:
                row = {**r, "labels": json.dumps(r["labels"], ensure_ascii=False)}
                writer.writerow({k: neutralize_cell(v) for k, v in row.items()})
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema(
            [
                ("id", pa.int64()),
                ("text", pa.string()),
                ("source", pa.string()),
                ("context", pa.string()),
                ("labels", pa.list_(pa.struct([("annotator", pa.string()), ("label", pa.string())]))),
                ("n_labels", pa.int64()),
                ("majority", pa.string()),
                ("adjudicated", pa.string()),
                ("adjudicator", pa.string()),
                ("final_label", pa.string()),
            ]
        )
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
