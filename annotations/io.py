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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .models import LABEL_CHOICES

EXPORT_FORMATS = ("jsonl", "csv", "parquet")
MAX_TEXT_CHARS = 20_000  # longer inputs are not chat messages; refusing them keeps the UI usable


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


def _label(value: Any, where: str) -> str:
    if value not in LABEL_CHOICES:
        raise ImportFormatError(f"{where}: label {value!r} is not one of {', '.join(LABEL_CHOICES)}")
    return value


def _row(data: Any, where: str, annotator: str | None, default_source: str) -> ImportRow:
    if not isinstance(data, dict):
        raise ImportFormatError(f"{where}: expected an object with a 'text' field")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ImportFormatError(f"{where}: 'text' must be a non-empty string")
    if len(text) > MAX_TEXT_CHARS:
        raise ImportFormatError(f"{where}: 'text' is longer than {MAX_TEXT_CHARS} characters")
    labels: list[tuple[str, str]] = []
    if data.get("label") not in (None, ""):
        if not annotator:
            raise ImportFormatError(f"{where}: the row has a 'label' but no annotator was named (--annotator NAME)")
        labels.append((annotator, _label(data["label"], where)))
    raw = data.get("labels")
    if isinstance(raw, str) and raw.strip():  # CSV exports keep the list as JSON text
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(f"{where}: 'labels' is not valid JSON: {exc.msg}") from exc
    for entry in raw or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("annotator"), str) or not entry["annotator"].strip():
            raise ImportFormatError(f"{where}: each of 'labels' needs an 'annotator' and a 'label'")
        labels.append((entry["annotator"].strip(), _label(entry.get("label"), where)))
    adjudicated = data.get("adjudicated") or None
    if adjudicated is not None:
        _label(adjudicated, where)
    context = data.get("context")
    return ImportRow(text=text.strip(), source=str(data.get("source") or default_source), context=str(context) if context else None,
                     labels=labels, adjudicated=adjudicated, adjudicator=(data.get("adjudicator") or None) if adjudicated else None)


def read_rows(path: str | os.PathLike[str], *, annotator: str | None = None) -> list[ImportRow]:
    """Parse and validate a whole JSONL or CSV file (by extension); nothing is written here.

    Raises:
        ImportFormatError: The first bad line, as "file:line: what is wrong"; or an unknown format.
    """
    path = Path(path)
    name = path.name
    suffix = path.suffix.lower()
    rows: list[ImportRow] = []
    try:
        if suffix in (".jsonl", ".ndjson"):
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    if not line.strip():
                        continue
                    try:
                        data = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise ImportFormatError(f"{name}:{number}: not valid JSON ({exc.msg})") from exc
                    rows.append(_row(data, f"{name}:{number}", annotator, name))
        elif suffix == ".csv":
            with open(path, encoding="utf-8", newline="") as handle:
                reader = csv.DictReader(handle)
                if not reader.fieldnames or "text" not in reader.fieldnames:
                    raise ImportFormatError(f"{name}:1: the header needs a 'text' column")
                for data in reader:
                    rows.append(_row(data, f"{name}:{reader.line_num}", annotator, name))
        else:
            raise ImportFormatError(f"{name}: unknown format {suffix or '(none)'}; use .jsonl or .csv")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(f"{name}: not UTF-8 text ({exc.reason})") from exc
    return rows


def write_export(rows: list[dict[str, Any]], path: str | os.PathLike[str], fmt: str) -> None:
    """Write export rows (see `store_review.export_rows`) as jsonl, csv or parquet."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "jsonl":
        with open(path, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    elif fmt == "csv":
        columns = ["id", "text", "source", "context", "labels", "n_labels", "majority", "adjudicated", "adjudicator", "final_label"]
        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            for r in rows:
                writer.writerow({**r, "labels": json.dumps(r["labels"], ensure_ascii=False)})
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([
            ("id", pa.int64()), ("text", pa.string()), ("source", pa.string()), ("context", pa.string()),
            ("labels", pa.list_(pa.struct([("annotator", pa.string()), ("label", pa.string())]))),
            ("n_labels", pa.int64()), ("majority", pa.string()), ("adjudicated", pa.string()),
            ("adjudicator", pa.string()), ("final_label", pa.string()),
        ])
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
