"""The annotation studio's store on real SQLite and a real PostgreSQL: migrations, imports,
queue, label history and undo, adjudication, export/import round trips, concurrent labeling
from threads and processes, a locked database, and kappa against hand-computed cases."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from annotations import StoreError, create_db_engine, session_factory, upgrade
from annotations import store_items as si
from annotations import store_review as sr
from annotations.agreement import cohen_kappa, fleiss_kappa, majority
from annotations.io import ImportFormatError, ImportRow, read_rows, write_export
from annotations.models import Base

PG_ENV = "REA_TEST_POSTGRES_URL"


def _postgres_url():
    url = os.environ.get(PG_ENV)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{PG_ENV} is not set: scripts/test.sh starts PostgreSQL and sets it")
        pytest.skip(f"{PG_ENV} not set (run ./scripts/test.sh, which starts PostgreSQL)")
    base = make_url(url)
    name = f"rea_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    yield base.set(database=name).render_as_string(hide_password=False)
    with admin.connect() as c:
        c.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'studio.db'}"
    else:
        yield from _postgres_url()


@pytest.fixture
def Session(db_url):
    engine = create_db_engine(db_url)
    upgrade(engine)
    yield session_factory(engine)
    engine.dispose()


def rows(*texts, **kw):
    return [ImportRow(text=t, source="test", **kw) for t in texts]


def test_migrations_match_models_and_downgrade(db_url):
    engine = create_db_engine(db_url)
    upgrade(engine)
    upgrade(engine)  # idempotent
    with engine.connect() as c:
        assert c.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == "0004"
        assert compare_metadata(MigrationContext.configure(c, opts={"compare_type": True}), Base.metadata) == []
    from alembic import command

    from annotations.db import alembic_config

    config = alembic_config()
    with engine.begin() as c:
        config.attributes["connection"] = c
        command.downgrade(config, "0001")
    with engine.connect() as c:
        assert "items" not in c.dialect.get_table_names(c)
    upgrade(engine)
    engine.dispose()


def test_import_deduplicates_and_attaches_labels(Session):
    with Session() as s:
        r = si.import_rows(
            s, rows("Always answer in French.", "always   answer in FRENCH.", "Hi there!"), source="a.jsonl"
        )
        assert (r.n_new_items, r.n_duplicates) == (2, 1)
        again = si.import_rows(
            s, [ImportRow("Hi there!", labels=[("ann", "ordinary")])], source="b.jsonl", annotator="ann"
        )
        assert (again.n_new_items, again.n_labels) == (0, 1)
        assert si.count_items(s) == 2
        assert [x["labels"] for x in sr.export_rows(s) if x["text"] == "Hi there!"] == [
            [{"annotator": "ann", "label": "ordinary"}]
        ]


def test_bad_line_is_named_and_nothing_of_the_file_is_imported(Session, tmp_path):
    bad = tmp_path / "in.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": "also fine", "label": "global"}\n{"text": "x", "label": "nope"}\n')
    with pytest.raises(ImportFormatError, match=r"in\.jsonl:3: label 'nope'"):
        read_rows(bad, annotator="ann")
    csv_file = tmp_path / "in.csv"
    csv_file.write_text('text,label\n"Call me Captain.",global\n,task\n')
    with pytest.raises(ImportFormatError, match=r"in\.csv:3: 'text'"):
        read_rows(csv_file, annotator="ann")
    with pytest.raises(ImportFormatError, match="no annotator"):
        read_rows(_write(tmp_path / "l.jsonl", '{"text": "a", "label": "task"}\n'))
    # A failure inside the transaction (a row whose label has no annotator) leaves nothing of the file.
    with Session() as s, pytest.raises(si.AccessError):
        si.import_rows(s, rows("one", "two") + [ImportRow("three", labels=[("", "task")])], source="c.jsonl")
    with Session() as s:
        assert si.count_items(s) == 0


def _write(path, content):
    path.write_text(content)
    return path


def test_queue_second_labels_first_then_least_sure_and_double_share(Session):
    scores = {"sure no": 0.02, "unsure": 0.5, "fairly sure": 0.9}
    with Session() as s:
        si.import_rows(s, rows(*scores), source="q", double_share=1.0, scorer=lambda ts: [scores[t] for t in ts])
        assert si.next_item(s, "a").text == "unsure"
        first = si.next_item(s, "a")
        si.record_label(s, "a", first.id, "task")
        # b gives the second label of the double-annotated item a labeled before anything nobody labeled
        assert si.next_item(s, "b").text == "unsure"
        si.record_label(s, "b", si.next_item(s, "b").id, "global")
        assert si.next_item(s, "b").text == "fairly sure"  # |0.9-0.5| < |0.02-0.5|
        si.record_label(s, "b", si.next_item(s, "b").id, "task")
        si.record_label(s, "b", si.next_item(s, "b").id, "ordinary")
        assert si.next_item(s, "b") is None
        p = si.progress(s, "b")
        assert (p.mine, p.my_left, p.team_done, p.team_total) == (3, 0, 4, 6)
    with Session() as s:
        si.import_rows(s, rows(*(f"text {i}" for i in range(200))), source="share", double_share=0.2)
        n_double = sum(1 for r in sr.export_rows(s) if r["text"].startswith("text "))
        share = s.execute(
            text("SELECT AVG(CASE WHEN double THEN 1.0 ELSE 0.0 END) FROM items WHERE text LIKE 'text %'")
        ).scalar_one()
    assert n_double == 200 and 0.1 < float(share) < 0.3


def test_label_history_undo_and_skip(Session):
    with Session() as s:
        si.import_rows(s, rows("x", "y"), source="h")
        x = si.next_item(s, "a")
        si.record_label(s, "a", x.id, "task", seconds=1.5, shown_score=0.5)
        si.record_label(s, "a", x.id, "global")  # changed mind: one current label, two in history
        assert si.my_label(s, "a", x.id) == "global"
        assert s.execute(text("SELECT COUNT(*) FROM label_events WHERE item_id = :i"), {"i": x.id}).scalar_one() == 2
        assert s.execute(text("SELECT COUNT(*) FROM current_labels")).scalar_one() == 1
        undone = si.undo_last(s, "a")
        assert (undone.label, undone.restored) == ("global", "task") and si.my_label(s, "a", x.id) == "task"
        assert si.undo_last(s, "a").restored is None and si.my_label(s, "a", x.id) is None
        y = si.next_item(s, "a")
        si.record_skip(s, "a", y.id)
        assert si.next_item(s, "a").id != y.id
        assert si.undo_last(s, "a").action == "skip"
        with pytest.raises(ValueError):
            si.record_label(s, "a", x.id, "maybe")


def test_adjudication_needs_the_role_and_wins_over_majority(Session):
    with Session() as s:
        si.import_rows(s, [ImportRow("Keep it short.", labels=[("a", "global"), ("b", "task")])], source="adj")
        (d,) = sr.disagreements(s)
        with pytest.raises(si.AccessError):
            sr.adjudicate(s, d.item_id, "global", "a")
        si.ensure_annotator(s, "boss", "adjudicator")
        sr.adjudicate(s, d.item_id, "global", "boss")
        (row,) = sr.export_rows(s)
        assert (row["majority"], row["adjudicated"], row["final_label"]) == (None, "global", "global")
        assert sr.training_data(s) == (["Keep it short."], ["global"])
        assert sr.disagreements(s) == []


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_export_import_round_trip(Session, db_url, tmp_path, fmt):
    with Session() as s:
        si.import_rows(
            s,
            [
                ImportRow(
                    "From now on, use metric units.",
                    source="hw",
                    context="turn 1",
                    labels=[("a", "global"), ("b", "global")],
                ),
                ImportRow("Write a limerick, no commas.", source="hw", labels=[("a", "task"), ("b", "ordinary")]),
                ImportRow("What's up?", source="chat", labels=[("a", "ordinary")]),
                ImportRow("unlabeled one", source="x"),
            ],
            source="rt",
        )
        si.ensure_annotator(s, "boss", "adjudicator")
        sr.adjudicate(s, sr.disagreements(s)[0].item_id, "task", "boss")
        before = sr.export_rows(s)
    path = tmp_path / f"out.{fmt}"
    write_export(before, path, fmt)
    if fmt != "parquet":
        back = read_rows(path)
    else:
        import pyarrow.parquet as pq

        back_file = tmp_path / "via.jsonl"
        _write(back_file, "".join(json.dumps(r) + "\n" for r in pq.read_table(path).to_pylist()))
        back = read_rows(back_file)
    other = create_db_engine(f"sqlite:///{tmp_path / 'other.db'}")
    upgrade(other)
    with session_factory(other)() as s:
        si.import_rows(s, back, source=path.name)
        after = sr.export_rows(s)
    other.dispose()
    strip = lambda rs: [{k: v for k, v in r.items() if k != "id"} for r in rs]  # noqa: E731
    assert strip(after) == strip(before)
    assert [r["final_label"] for r in before] == ["global", "task", "ordinary", None]


def test_export_loads_with_datasets_or_pandas(Session, tmp_path):
    with Session() as s:
        si.import_rows(s, [ImportRow("Always be brief.", labels=[("a", "global")])], source="ds")
        data = sr.export_rows(s)
    for fmt in ("jsonl", "csv", "parquet"):
        write_export(data, tmp_path / f"e.{fmt}", fmt)
    try:
        import datasets
    except ImportError:
        import pandas as pd

        assert pd.read_parquet(tmp_path / "e.parquet")["final_label"].tolist() == ["global"]
        return
    for fmt, builder in (("jsonl", "json"), ("csv", "csv"), ("parquet", "parquet")):
        ds = datasets.load_dataset(builder, data_files=str(tmp_path / f"e.{fmt}"), cache_dir=str(tmp_path / "hf"))[
            "train"
        ]
        assert ds[0]["final_label"] == "global" and ds[0]["text"] == "Always be brief."


def test_concurrent_labeling_from_threads_loses_nothing(Session):
    with Session() as s:
        si.import_rows(s, rows(*(f"item {i}" for i in range(30))), source="c", double_share=0.0)
        ids = [i for i, _ in sr.item_texts(s)]

    def work(worker):
        with Session() as s:
            for i in ids:
                si.record_label(s, f"t{worker}", i, ("global", "task", "ordinary")[(i + worker) % 3])

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(work, range(6)))
    with Session() as s:
        assert s.execute(text("SELECT COUNT(*) FROM current_labels")).scalar_one() == 6 * 30
        assert s.execute(text("SELECT COUNT(*) FROM label_events")).scalar_one() == 6 * 30
        assert sr.agreement_stats(s).fleiss_items == 30


WORKER = """
import sys
from annotations import create_db_engine, session_factory
from annotations import store_items as si
url, name, ids = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(",")]
engine = create_db_engine(url)
S = session_factory(engine)
with S() as s:
    for i in ids:
        si.record_label(s, name, i, "task")
        si.record_label(s, "shared", i, "global")  # every process also writes the same annotator's row
"""


def test_concurrent_labeling_from_processes_loses_nothing(Session, db_url):
    with Session() as s:
        si.import_rows(s, rows(*(f"p item {i}" for i in range(25))), source="p")
        ids = ",".join(str(i) for i, _ in sr.item_texts(s))
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, db_url, f"proc{n}", ids], stderr=subprocess.PIPE, text=True)
        for n in range(4)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    with Session() as s:
        assert s.execute(text("SELECT COUNT(*) FROM label_events")).scalar_one() == 4 * 25 * 2
        assert (
            s.execute(text("SELECT COUNT(*) FROM current_labels")).scalar_one() == 5 * 25
        )  # one per annotator and item


def test_locked_sqlite_raises_store_error_and_saves_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'locked.db'}"
    engine = create_db_engine(url, busy_timeout_ms=200)
    upgrade(engine)
    S = session_factory(engine)
    with S() as s:
        si.import_rows(s, rows("locked item"), source="l")
        item = si.next_item(s, "a")
    holder = sqlite3.connect(tmp_path / "locked.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with S() as s, pytest.raises(StoreError, match="NOT saved"):
            si.record_label(s, "a", item.id, "global")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with S() as s:
        assert si.my_label(s, "a", item.id) is None
        si.record_label(s, "a", item.id, "global")  # retry after the lock is gone works
        assert si.my_label(s, "a", item.id) == "global"
    engine.dispose()


def test_unreachable_database_raises_store_error(tmp_path):
    engine = create_db_engine("postgresql+psycopg://nobody:pw@127.0.0.1:1/none")
    with session_factory(engine)() as s, pytest.raises(StoreError, match="unreachable"):
        si.record_label(s, "a", 1, "global")


def test_cohen_kappa_hand_computed():
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o = 0.7, p_e = 0.5*0.6... = 0.5, kappa 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(["g", "t"], ["g", "t"]) == pytest.approx(1.0)
    assert cohen_kappa(["g", "g"], ["g", "g"]) is None  # chance agreement 1: undefined
    assert cohen_kappa([], []) is None


def test_fleiss_kappa_hand_computed():
    # Fleiss (1971) worked example as on Wikipedia: 10 subjects, 14 raters, 5 categories -> 0.210
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    items = [{str(j): n for j, n in enumerate(row)} for row in table]
    assert fleiss_kappa(items) == pytest.approx(0.2099, abs=1e-4)
    # Two raters on every item: Fleiss reduces to Scott's pi. a=[g,g,t,o], b=[g,t,t,o]:
    # p_o = 3/4; pooled g 3/8, t 3/8, o 2/8 -> p_e = 22/64; pi = (0.75 - 22/64) / (1 - 22/64) = 26/42
    assert fleiss_kappa([{"g": 2}, {"g": 1, "t": 1}, {"t": 2}, {"o": 2}]) == pytest.approx(26 / 42)
    assert fleiss_kappa([{"g": 1}]) is None
    assert majority(["g", "t"]) is None and majority(["g", "t", "g"]) == "g"


def test_kappa_from_the_store_matches_hand_computation(Session):
    with Session() as s:
        pairs = [("g", "g"), ("g", "t"), ("t", "t"), ("o", "o")]
        si.import_rows(
            s,
            [
                ImportRow(
                    f"k{i}",
                    labels=[
                        ("a", {"g": "global", "t": "task", "o": "ordinary"}[x]),
                        ("b", {"g": "global", "t": "task", "o": "ordinary"}[y]),
                    ],
                )
                for i, (x, y) in enumerate(pairs)
            ],
            source="k",
        )
        stats = sr.agreement_stats(s)
    # a = g g t o, b = g t t o: p_o = 3/4, p_e = (2*1 + 1*2 + 1*1)/16 = 5/16 -> (12/16 - 5/16)/(11/16) = 7/11
    ((a, b, n, k),) = stats.pairs
    assert (a, b, n) == ("a", "b", 4) and k == pytest.approx(7 / 11)
    assert stats.fleiss == pytest.approx(26 / 42) and stats.label_counts == {"global": 3, "task": 3, "ordinary": 2}


def test_the_double_label_share_gets_second_labels_early_so_kappa_is_defined_on_day_one(Session, monkeypatch):
    """Two annotators starting on a fresh pool: the second one's queue opens with the items of the
    double-labeled share the first one labeled, so Cohen's kappa has items long before the pool is done."""
    monkeypatch.setenv("REA_DOUBLE_LABEL_SHARE", "0.3")
    texts = [f"candidate input {i}" for i in range(60)]
    with Session() as s:
        si.import_rows(s, rows(*texts), source="day1")  # the share comes from the setting
        double = set(s.scalars(text("SELECT id FROM items WHERE double")).all())
    assert len(double) == sum(si.is_double(si.text_hash(t), 0.3) for t in texts) and 0 < len(double) < 60
    kinds = ["global", "task", "ordinary"]
    alice = {}
    with Session() as s:
        for k in range(15):  # alice's first 15 labels, a quarter of the pool
            item = si.next_item(s, "alice")
            alice[item.id] = kinds[k % 3]
            si.record_label(s, "alice", item.id, alice[item.id])
        to_second = [i for i in alice if i in double]
        assert len(to_second) >= 2
        for _ in to_second:  # bob's first items are exactly those
            item = si.next_item(s, "bob")
            assert item.id in to_second
            si.record_label(s, "bob", item.id, alice[item.id])
        ((a, b, shared, kappa),) = sr.agreement_stats(s).pairs
    assert (a, b, shared) == ("alice", "bob", len(to_second)) and kappa == pytest.approx(1.0)
    with Session() as s:  # the setting lowered: fewer items wait for a second label; labels stay
        assert si.apply_double_share(s, 0.0) == len(double)
        assert si.apply_double_share(s, 0.0) == 0
        assert si.progress(s, "bob").team_total == 60 and sr.agreement_stats(s).pairs[0][2] == len(to_second)


def test_final_label_counts_agree_between_stats_and_training(Session):
    """The number the Review tab calls final labels is the number of labels training learns from."""
    with Session() as s:
        si.import_rows(
            s,
            [
                ImportRow("Call me Sam.", labels=[("a", "global"), ("b", "global")]),
                ImportRow("Hi!", labels=[("a", "ordinary")]),
                ImportRow("Write a limerick.", labels=[("a", "task"), ("b", "global")]),  # a tie
                ImportRow("Be brief from now on.", adjudicated="global", adjudicator="boss"),  # no annotator labels
            ],
            source="counts",
        )
        stats = sr.agreement_stats(s)
        texts, labels = sr.training_data(s)
    assert stats.n_final == len(texts) == 3 and stats.n_ties == 1
    assert stats.final_counts == {"global": 2, "ordinary": 1} == {lab: labels.count(lab) for lab in set(labels)}


def test_a_trained_version_is_a_candidate_until_chosen_and_packaged_comes_back(Session):
    with Session() as s:
        first = sr.save_version(s, {"w": 1}, {"n_train": 9}, created_by="boss", n_labels=12)
        second = sr.save_version(s, {"w": 2}, {"n_train": 9}, created_by="boss", n_labels=12)
        assert not first.active and not second.active and sr.active_version(s) is None
        sr.set_active_version(s, first.id)
        assert sr.active_version(s).id == first.id
        sr.set_active_version(s, second.id)
        assert sr.active_version(s).id == second.id and [v.active for v in sr.list_versions(s)] == [True, False]
        sr.set_active_version(s, None)  # the packaged recognizer again
        assert sr.active_version(s) is None and len(sr.list_versions(s)) == 2
        sr.add_version_metrics(s, first.id, validation_report={"all": {"n": 3}})
        assert sr.list_versions(s)[1].metrics == {"n_train": 9, "validation_report": {"all": {"n": 3}}}
        with pytest.raises(ValueError, match="no recognizer version 99"):
            sr.set_active_version(s, 99)
