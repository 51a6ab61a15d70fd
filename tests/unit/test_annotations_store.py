"""The annotation store on a real temporary SQLite file: migrations, pragmas, queries, locking."""

from __future__ import annotations

import io
import json
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from annotations import (
    Base,
    StoreError,
    add_failure_mark,
    create_db_engine,
    database_url,
    delete_failure_mark,
    export_failure_marks_jsonl,
    list_failure_marks,
    mark_to_dict,
    session_factory,
    upgrade,
)
from annotations.db import safe_url

TABLE = "retrieval_failure_marks"
EXPORT_KEYS = [
    *("id", "created_at", "annotator", "conversation_id", "query_turn", "exchange_turn", "query_text"),
    *("exchange_user", "exchange_reply", "score", "tau_low", "tau_high", "note", "source", "context"),
]


def mark_fields(**overrides):
    fields = dict(
        annotator="ana",
        conversation_id="conv-1",
        query_turn=4,
        exchange_turn=1,
        query_text="What was my dog's name again?",
        exchange_user="My dog is called Biscuit.",
        exchange_reply="Biscuit is a lovely name.",
        score=0.12,
        tau_low=0.3,
        tau_high=0.7,
        note="needed for the name",
        source="bundled:examples",
    )
    fields.update(overrides)
    return fields


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def db_url(db_path: Path) -> str:
    return f"sqlite:///{db_path}"


@pytest.fixture
def engine(db_url):
    engine = create_db_engine(db_url)
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def Session(engine):
    return session_factory(engine)


def count_rows(engine) -> int:
    with engine.connect() as connection:
        return connection.execute(text(f"SELECT COUNT(*) FROM {TABLE}")).scalar_one()


def test_upgrade_creates_table_matching_model_and_is_idempotent(engine):
    upgrade(engine)  # second run: already at head
    inspector = inspect(engine)
    assert TABLE in inspector.get_table_names()
    assert {c["name"] for c in inspector.get_columns(TABLE)} == set(Base.metadata.tables[TABLE].columns.keys())
    (unique,) = inspector.get_unique_constraints(TABLE)
    assert unique["column_names"] == ["annotator", "conversation_id", "query_turn", "exchange_turn"]
    assert [ix["column_names"] for ix in inspector.get_indexes(TABLE)] == [["conversation_id"]]
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [
            "0004"
        ]  # head: 0004 stored the marks' contexts once
        # The hand-written migration and the model describe the same schema.
        assert (
            compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}), Base.metadata) == []
        )


def test_upgrade_from_url_works_from_any_cwd(db_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    upgrade(db_url)
    upgrade(db_url)
    engine = create_db_engine(db_url)
    try:
        assert TABLE in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_sqlite_connections_use_wal_busy_timeout_and_foreign_keys(engine):
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_database_url_prefers_explicit_then_env_then_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("REA_DATABASE_URL", raising=False)
    data_dir = tmp_path / "data" / "nested"
    monkeypatch.setenv("REA_DATA_DIR", str(data_dir))
    assert database_url() == f"sqlite:///{data_dir / 'rea-studio.db'}"
    assert data_dir.is_dir()
    monkeypatch.setenv("REA_DATABASE_URL", "postgresql://u:p@db/rea")
    assert database_url() == "postgresql://u:p@db/rea"
    assert database_url("sqlite:///x.db") == "sqlite:///x.db"


def test_safe_url_hides_password():
    assert "secret" not in safe_url("postgresql://rea:secret@db:5432/rea")


def test_add_list_delete_export_round_trip(Session, tmp_path):
    with Session() as db:
        first = add_failure_mark(db, **mark_fields())
        second = add_failure_mark(db, **mark_fields(conversation_id="conv-2", exchange_turn=2, score=None))

    with Session() as db:
        assert [m.id for m in list_failure_marks(db)] == [second.id, first.id]  # newest first
        (only,) = list_failure_marks(db, conversation_id="conv-1")
    assert only.id == first.id
    assert only.created_at.tzinfo is not None and only.created_at.utcoffset().total_seconds() == 0
    for name, value in mark_fields().items():
        assert getattr(only, name) == value

    out = tmp_path / "marks.jsonl"
    with Session() as db:
        assert export_failure_marks_jsonl(db, out, raw=True) == 2
        buffer = io.StringIO()
        assert export_failure_marks_jsonl(db, buffer, raw=True) == 2
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert buffer.getvalue() == out.read_text(encoding="utf-8")
    assert rows == [mark_to_dict(first), mark_to_dict(second)]
    assert list(rows[0]) == EXPORT_KEYS  # the raw export's format, unchanged since marks kept their context
    assert datetime.fromisoformat(rows[0]["created_at"]) == first.created_at
    assert {k: rows[0][k] for k in mark_fields()} == mark_fields()
    assert rows[1]["score"] is None

    with Session() as db:
        assert delete_failure_mark(db, first.id) is True
        assert delete_failure_mark(db, first.id) is False
        assert [m.id for m in list_failure_marks(db)] == [second.id]


def test_marking_same_key_twice_keeps_one_row_with_newer_note(Session, engine):
    with Session() as db:
        first = add_failure_mark(db, **mark_fields(note="old", score=0.1))
        again = add_failure_mark(db, **mark_fields(note="new", score=0.2))
    assert again.id == first.id
    with Session() as db:
        (mark,) = list_failure_marks(db)
    assert (mark.note, mark.score) == ("new", 0.2)
    assert count_rows(engine) == 1


def test_missing_annotator_is_anonymous_and_still_idempotent(Session, engine):
    with Session() as db:
        add_failure_mark(db, **mark_fields(annotator=None, note="a"))
        mark = add_failure_mark(db, **mark_fields(annotator="  ", note="b"))
    assert (mark.annotator, mark.note) == ("anonymous", "b")
    assert count_rows(engine) == 1


def test_bad_fields_raise_before_touching_the_database(Session, engine):
    with Session() as db:
        with pytest.raises(TypeError, match="Unknown"):
            add_failure_mark(db, **mark_fields(scroe=0.5))
        with pytest.raises(TypeError, match="Missing.*source"):
            add_failure_mark(db, **mark_fields(source=None))
    assert count_rows(engine) == 0


def test_locked_database_raises_store_error_and_saves_nothing(db_url, db_path, engine):
    impatient = create_db_engine(db_url, busy_timeout_ms=50)
    Session = session_factory(impatient)
    with Session() as db:  # one mark to delete later
        existing = add_failure_mark(db, **mark_fields(exchange_turn=0))

    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with Session() as db:
            with pytest.raises(StoreError, match="locked or unreachable") as raised:
                add_failure_mark(db, **mark_fields())
            assert "nothing was saved" in str(raised.value)
            assert str(db_path) in str(raised.value)
            with pytest.raises(StoreError, match="nothing was deleted"):
                delete_failure_mark(db, existing.id)
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    with Session() as db:
        assert [m.id for m in list_failure_marks(db)] == [existing.id]
        add_failure_mark(db, **mark_fields())  # the lock is gone: the retry succeeds
    assert count_rows(impatient) == 2
    impatient.dispose()


def test_a_read_holds_no_snapshot_and_its_marks_stay_readable(Session):
    """Issue 11: every store module reads through one ``reading``, which rolls back at the end."""
    with Session() as reader:
        assert list_failure_marks(reader) == [] and not reader.in_transaction()
        with Session() as writer:
            add_failure_mark(writer, **mark_fields())
        (mark,) = list_failure_marks(reader)  # the earlier read kept no snapshot that hides the new mark
        assert not reader.in_transaction()
    assert mark.note == "needed for the name"  # loaded in full, readable after the session closed


def test_unreachable_database_raises_store_error(tmp_path):
    url = f"sqlite:///{tmp_path / 'no-such-dir' / 'store.db'}"
    with pytest.raises(StoreError, match="locked or unreachable"):
        upgrade(url)
    engine = create_db_engine(url)
    try:
        with session_factory(engine)() as db, pytest.raises(StoreError, match="locked or unreachable"):
            list_failure_marks(db)
    finally:
        engine.dispose()


def test_concurrent_writers_from_four_threads_all_land(Session, engine):
    start = threading.Barrier(4)

    def write(worker: int) -> list[int]:
        start.wait()
        with Session() as db:
            return [
                add_failure_mark(db, **mark_fields(conversation_id=f"conv-{worker}", exchange_turn=i)).id
                for i in range(25)
            ]

    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = [mark_id for batch in pool.map(write, range(4)) for mark_id in batch]
    assert len(set(ids)) == 100
    assert count_rows(engine) == 100
    with Session() as db:
        assert len(list_failure_marks(db, conversation_id="conv-3")) == 25


def test_created_at_is_utc_aware(Session):
    with Session() as db:
        mark = add_failure_mark(db, **mark_fields())
    assert mark.created_at.tzinfo is not None
    assert abs((datetime.now(timezone.utc) - mark.created_at).total_seconds()) < 60
