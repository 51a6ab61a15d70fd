"""Marks' contexts stored once (a hash chain of turns), the migration that moved them there, and the
marks quotas (per annotator in the store, per browser session in the app), on real SQLite and PostgreSQL."""

from __future__ import annotations

import io
import json

import pytest
from alembic import command
from sqlalchemy import text
from test_annotation_studio import _postgres_url

from annotations import add_failure_mark, create_db_engine, export_failure_marks_jsonl, list_failure_marks, upgrade
from annotations.db import alembic_config, session_factory
from annotations.marks import MarkQuotaError, marks_as_conversations
from app.state import AppEngine
from app.tabs.inspect import handlers as ih
from app.tabs.inspect.quota import MarkQuotaExceeded
from rea_core import Settings, Thresholds
from rea_core.limits import Limits
from rea_core.retrieval.trace import RetrievalTrace, TurnTrace
from rea_core.types import Decision, PromptPlan, Resolution


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'marks.db'}"
    else:
        yield from _postgres_url()


@pytest.fixture
def engine(db_url):
    engine = create_db_engine(db_url)
    upgrade(engine)
    yield engine
    engine.dispose()


def turns(n: int) -> list[dict]:
    """A conversation with unicode, quotes and a time, in the app's turn records."""
    return [
        {"user": f'Ünïcode "turn" {i} ✓', "assistant": f"reply {i}\n", "time": f"2027-01-0{1 + i % 9}"}
        for i in range(n)
    ]


def fields(query_turn: int, exchange_turn: int, context: list[dict], **overrides) -> dict:
    out = dict(
        annotator="ana",
        conversation_id="c1",
        query_turn=query_turn,
        exchange_turn=exchange_turn,
        query_text=context[-1]["user"],
        exchange_user="u",
        exchange_reply="r",
        score=0.1,
        tau_low=0.3,
        tau_high=0.7,
        source="c.jsonl",
        context=json.dumps(context, ensure_ascii=False),
    )
    out.update(overrides)
    return out


def count(engine, table: str) -> int:
    with engine.connect() as c:
        return c.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()


def test_marks_on_one_conversation_store_its_turns_once_and_read_back_the_same(engine):
    Session = session_factory(engine)
    talk = turns(12)
    with Session() as s:
        first = add_failure_mark(s, **fields(11, 3, talk))
        add_failure_mark(s, **fields(11, 5, talk))  # a second mark on the same query turn: no new row
    assert count(engine, "mark_contexts") == 12 and count(engine, "retrieval_failure_marks") == 2
    with Session() as s:
        add_failure_mark(s, **fields(6, 2, talk[:7]))  # an earlier query turn: its prefix is already stored
        add_failure_mark(s, **fields(11, 4, talk, annotator="bo"))
    assert count(engine, "mark_contexts") == 12 and count(engine, "retrieval_failure_marks") == 4
    assert first.context == json.dumps(talk, ensure_ascii=False)

    with Session() as s:
        marks = list_failure_marks(s)
        raw_file, cases_file = io.StringIO(), io.StringIO()
        export_failure_marks_jsonl(s, raw_file, raw=True)
        export_failure_marks_jsonl(s, cases_file)
    raw, cases = raw_file.getvalue().splitlines(), cases_file.getvalue().splitlines()
    by_turn = {m.query_turn: m.context for m in marks}
    assert by_turn == {11: json.dumps(talk, ensure_ascii=False), 6: json.dumps(talk[:7], ensure_ascii=False)}
    assert [json.loads(r)["context"] for r in raw] == [
        json.dumps(talk, ensure_ascii=False),
        json.dumps(talk, ensure_ascii=False),
        json.dumps(talk[:7], ensure_ascii=False),
        json.dumps(talk, ensure_ascii=False),
    ]
    expected = [dict(t) for t in talk]
    expected[11]["needed"], expected[6]["needed"] = [3, 4, 5], [2]
    assert [json.loads(c) for c in cases] == [{"id": "c1", "turns": expected, "source": "c.jsonl"}]
    assert marks_as_conversations(marks) == [json.loads(c) for c in cases]


def test_an_update_without_a_context_keeps_the_marks_context(engine):
    Session = session_factory(engine)
    talk = turns(3)
    with Session() as s:
        add_failure_mark(s, **fields(2, 0, talk))
        again = fields(2, 0, talk, note="second thoughts")
        del again["context"]
        updated = add_failure_mark(s, **again)
    assert updated.note == "second thoughts" and updated.context == json.dumps(talk, ensure_ascii=False)


def _at_0003(db_url):
    engine = create_db_engine(db_url)
    upgrade(engine, "0003")
    return engine


def _migrate(engine, verb: str, revision: str) -> None:
    config = alembic_config()
    with engine.begin() as c:
        config.attributes["connection"] = c
        getattr(command, verb)(config, revision)


def test_migration_moves_old_contexts_into_the_shared_table_and_back(db_url):
    engine = _at_0003(db_url)
    talk = turns(5)
    old = {
        1: json.dumps(talk, ensure_ascii=False),
        2: json.dumps(talk, ensure_ascii=False),  # the same context twice: one chain after the upgrade
        3: json.dumps(talk[:2], ensure_ascii=False),
        4: None,  # a mark made before 0003 kept none
    }
    with engine.begin() as c:
        for i, context in old.items():
            c.execute(
                text(
                    "INSERT INTO retrieval_failure_marks (id, created_at, annotator, conversation_id, query_turn, "
                    "exchange_turn, query_text, exchange_user, exchange_reply, score, tau_low, tau_high, note, "
                    "source, context) VALUES (:id, '2027-01-01 00:00:00+00:00', 'ana', 'c1', :q, :e, 'q', 'u', "
                    "'r', 0.1, 0.3, 0.7, '', 'c.jsonl', :context)"
                ),
                {"id": i, "q": 4 if i < 3 else 1, "e": i, "context": context},
            )
    upgrade(engine)
    assert count(engine, "mark_contexts") == 5
    with session_factory(engine)() as s:
        assert {m.id: m.context for m in list_failure_marks(s)} == old

    _migrate(engine, "downgrade", "0003")
    with engine.connect() as c:
        assert "mark_contexts" not in c.dialect.get_table_names(c)
        rows = c.execute(text("SELECT id, context FROM retrieval_failure_marks ORDER BY id")).all()
    assert dict(rows) == old
    upgrade(engine)  # and up again, as a deployment rolled forward after a rollback
    assert count(engine, "mark_contexts") == 5
    engine.dispose()


def test_migration_refuses_a_context_that_is_not_a_list_of_turns(tmp_path):
    engine = _at_0003(f"sqlite:///{tmp_path / 'bad.db'}")
    with engine.begin() as c:
        c.execute(
            text(
                "INSERT INTO retrieval_failure_marks (id, created_at, annotator, conversation_id, query_turn, "
                "exchange_turn, query_text, exchange_user, exchange_reply, tau_low, tau_high, note, source, context) "
                "VALUES (7, '2027-01-01 00:00:00+00:00', 'a', 'c', 1, 0, 'q', 'u', 'r', 0.3, 0.7, '', 's', :context)"
            ),
            {"context": '{"x": 1}'},
        )
    with pytest.raises(RuntimeError, match="mark 7: a mark's context must be a JSON list"):
        upgrade(engine)
    with engine.connect() as c:  # the failed upgrade changed nothing
        assert c.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == "0003"
        assert c.execute(text("SELECT context FROM retrieval_failure_marks")).scalar_one() == '{"x": 1}'
    engine.dispose()


def test_store_refuses_an_annotators_mark_over_the_quota_and_writes_nothing(engine):
    Session = session_factory(engine)
    talk = turns(4)
    with Session() as s:
        add_failure_mark(s, max_marks=2, **fields(3, 0, talk))
        add_failure_mark(s, max_marks=2, **fields(3, 1, talk))
        with pytest.raises(MarkQuotaError, match="'ana' has stored 2 marks"):
            add_failure_mark(s, max_marks=2, **fields(3, 2, talk[:3] + [{"user": "new", "assistant": ""}]))
        add_failure_mark(s, max_marks=2, **fields(3, 1, talk, note="an update adds no row"))
        add_failure_mark(s, max_marks=2, **fields(3, 2, talk, annotator="bo"))  # another annotator's own quota
    assert count(engine, "retrieval_failure_marks") == 3
    assert count(engine, "mark_contexts") == 4  # the refused mark's new turn was not stored either


def _trace(n: int) -> tuple[str, RetrievalTrace]:
    plan = PromptPlan(segments=())
    trace_turns = tuple(
        TurnTrace(
            turn=t,
            user=f"user {t}",
            reply=f"reply {t}",
            generated=False,
            plan=plan,
            recognition=None,
            instructions=(),
            decisions=tuple(Decision(j, 0.1, Resolution.OMIT) for j in range(t)),
        )
        for t in range(n)
    )
    return "conv.jsonl", RetrievalTrace(conversation_id="c1", turns=trace_turns)


def test_app_holds_marks_to_the_session_and_user_quotas(db_url, monkeypatch):
    for name in ("REA_AUTH", "REA_AUTH_FILE", "SPACE_ID", "OAUTH_CLIENT_ID"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(limits=Limits(marks_per_user=3, marks_per_session=2))
    app = AppEngine(models=None, settings=settings, database_url=db_url)
    traced = _trace(5)

    def mark(exchange: int, session_hash: str, who: str = "anonymous", note: str = "") -> str:
        return ih.mark_needed(
            app, traced, 4, exchange, note, Thresholds(0.3, 0.7), annotator=who, session_hash=session_hash
        )

    mark(0, "s1")
    mark(1, "s1")
    with pytest.raises(MarkQuotaExceeded, match=r"this browser session has stored 2 marks.*REA_MARKS_PER_SESSION"):
        mark(2, "s1")
    assert "Marked" in mark(1, "s1", note="re-marking updates its row")  # not a new mark
    mark(2, "s2")  # another browser session
    with pytest.raises(MarkQuotaExceeded, match=r"not signed in have stored 3 marks together.*REA_MARKS_PER_USER"):
        mark(3, "s2")
    mark(3, "s2", who="alice")  # a signed-in user has her own quota
    assert app.session_marks.count("s2") == 2  # the refused mark gave its place back
    assert sorted((r[1], r[4], r[6]) for r in ih.marks_rows(app)) == [
        ("alice", 3, ""),
        ("anonymous", 0, ""),
        ("anonymous", 1, "re-marking updates its row"),
        ("anonymous", 2, ""),
    ]
