"""Exports: CSV cells that a spreadsheet would run as formulas are neutralized the way
OWASP recommends (a leading single quote); JSONL and Parquet keep values exactly; a CSV export
re-imports to the same texts; a failed export leaves no file behind."""

import csv
import json

import pytest

from annotations import create_db_engine, session_factory, upgrade
from annotations import store_items as si
from annotations import store_review as sr
from annotations.io import ImportRow, neutralize_cell, read_rows, restore_cell, write_export

DANGEROUS = [
    '=HYPERLINK("http://evil","x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)",
    "\t=1",
    "\r=1",
    "'=already quoted",
]
SAFE = ["plain text", "a=b", "it's", "''double quote start"]


def _rows():
    texts = DANGEROUS + SAFE
    return [
        {
            "id": i,
            "text": t,
            "source": "=src()",
            "context": "@ctx",
            "labels": [{"annotator": "-bob", "label": "global"}],
            "n_labels": 1,
            "majority": "global",
            "adjudicated": None,
            "adjudicator": None,
            "final_label": "global",
        }
        for i, t in enumerate(texts, 1)
    ]


def test_neutralize_and_restore_are_inverse():
    for value in DANGEROUS + SAFE:
        assert restore_cell(neutralize_cell(value)) == value
    assert neutralize_cell("=1+1") == "'=1+1" and neutralize_cell("'=x") == "''=x"
    assert neutralize_cell("plain") == "plain" and neutralize_cell(5) == 5


def test_csv_injection_cells_neutralized(tmp_path):
    path = tmp_path / "labels.csv"
    write_export(_rows(), path, "csv")
    with open(path, encoding="utf-8", newline="") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert '\'=HYPERLINK("http://evil","x")' in cells and "'@ctx" in cells and "'=src()" in cells


def test_jsonl_and_parquet_stay_exact(tmp_path):
    import pyarrow.parquet as pq

    rows = _rows()
    write_export(rows, tmp_path / "x.jsonl", "jsonl")
    assert [json.loads(line) for line in (tmp_path / "x.jsonl").read_text(encoding="utf-8").splitlines()] == rows
    write_export(rows, tmp_path / "x.parquet", "parquet")
    assert pq.read_table(tmp_path / "x.parquet").to_pylist() == rows


def test_csv_export_reimports_exactly(tmp_path):
    Session = session_factory(create_db_engine(f"sqlite:///{tmp_path / 'a.db'}"))
    upgrade(Session.kw["bind"])
    texts = DANGEROUS[:4] + ["'=already quoted", "plain text"]
    with Session() as db:
        si.import_rows(db, [ImportRow(text=t, context="=ctx") for t in texts], source="src")
        rows = sr.export_rows(db)
    write_export(rows, tmp_path / "out.csv", "csv")
    back = read_rows(tmp_path / "out.csv")
    assert [r.text for r in back] == texts and {r.context for r in back} == {"=ctx"}


def test_failed_export_leaves_nothing(tmp_path):
    with pytest.raises(OSError):
        write_export(_rows(), tmp_path / "missing" / "x.csv", "csv")
    target = tmp_path / "x.csv"
    target.write_text("previous export")
    rows = _rows() + [{"id": "not-an-int"}]  # breaks half way through the CSV writer
    with pytest.raises(Exception):
        write_export(rows, target, "csv")
    assert target.read_text() == "previous export" and sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]
