"""Authorization on the server, through the app's handler functions on a real SQLite
database: roles come from the current configuration on every call, marks need a login where
sign-in is configured, and visitors never see the database host."""

from __future__ import annotations

import gradio as gr
import pytest
from test_annotation_studio import _postgres_url

from annotations import store_items as si
from annotations import store_review as sr
from annotations.io import ImportRow
from app import annotate_auth as auth
from app.state import AppEngine
from app.tabs.inspect import handlers as ih
from app.tabs.review import handlers as rh
from rea_core import REAError, Thresholds
from rea_core.retrieval.trace import RetrievalTrace, TurnTrace
from rea_core.types import Decision, PromptPlan, Resolution

SIGN_IN_VARS = ("REA_AUTH", "REA_AUTH_FILE", "REA_ADJUDICATORS", "REA_ANNOTATORS", "SPACE_ID", "OAUTH_CLIENT_ID")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(request, tmp_path, monkeypatch):
    """The app's engine on a fresh SQLite file or PostgreSQL database; no model is needed by the
    store-facing handlers."""
    for name in SIGN_IN_VARS:
        monkeypatch.delenv(name, raising=False)
    if request.param == "sqlite":
        yield AppEngine(models=None, database_url=f"sqlite:///{tmp_path / 'app.db'}")
        return
    database = _postgres_url()  # a throwaway database, dropped after the test
    yield AppEngine(models=None, database_url=next(database))
    next(database, None)


def _disagreement(engine) -> int:
    with engine.db() as db:
        si.import_rows(
            db,
            [ImportRow(text="From now on, answer in French.", labels=[("bob", "global"), ("carol", "task")])],
            source="test",
        )
    with engine.db() as db:
        (d,) = sr.disagreements(db)
    return d.item_id


def test_demoted_adjudicator_refused_on_the_next_call(engine, monkeypatch):
    monkeypatch.setenv("REA_AUTH", "alice:pw-alice,bob:pw-bob")
    monkeypatch.setenv("REA_ADJUDICATORS", "alice")
    item = _disagreement(engine)
    request = gr.Request(username="alice")
    alice = auth.identity(request, None)
    assert alice.role == "adjudicator"
    with engine.db() as db:  # what the Annotate tab's load does: the stored role says adjudicator
        si.ensure_annotator(db, alice.name, alice.role)
    assert rh.adjudicate(engine, alice, item, "global") == f"Item {item} adjudicated as global."

    monkeypatch.setenv("REA_ADJUDICATORS", "")  # removed from the configuration; no page load happens
    demoted = auth.identity(request, None)
    with pytest.raises(REAError, match="only adjudicators"):
        rh.adjudicate(engine, demoted, item, "task")
    with pytest.raises(REAError, match="only adjudicators"):
        rh.switch(engine, demoted, None)
    with engine.db() as db:
        assert [r["adjudicated"] for r in sr.export_rows(db) if r["id"] == item] == ["global"]


def test_adjudicator_added_in_configuration_may_adjudicate_before_any_page_load(engine, monkeypatch):
    monkeypatch.setenv("REA_AUTH", "dana:pw")
    item = _disagreement(engine)
    with engine.db() as db:
        si.ensure_annotator(db, "dana", "annotator")  # stored when she was an annotator
    monkeypatch.setenv("REA_ADJUDICATORS", "dana")
    assert "adjudicated as ordinary" in rh.adjudicate(
        engine, auth.identity(gr.Request(username="dana"), None), item, "ordinary"
    )


def _trace() -> tuple[str, RetrievalTrace]:
    plan = PromptPlan(segments=())
    turns = tuple(
        TurnTrace(
            turn=t,
            user=f"user {t}",
            reply="",
            generated=False,
            plan=plan,
            recognition=None,
            instructions=(),
            decisions=tuple(Decision(j, 0.1, Resolution.OMIT) for j in range(t)),
        )
        for t in range(3)
    )
    return "conv.jsonl", RetrievalTrace(conversation_id="c1", turns=turns)


def _marks(engine) -> list[list]:
    return ih.marks_rows(engine)


def test_anonymous_mark_refused_on_a_signed_in_deployment(engine, monkeypatch):
    monkeypatch.setenv("REA_AUTH", "alice:pw-alice")
    author = auth.mark_author(gr.Request(), None)  # a client with no login (gradio_client, curl)
    assert author is None
    with pytest.raises(ih.MarkError, match="sign in"):
        ih.mark_needed(engine, _trace(), 2, 0, "", Thresholds(0.5, 0.7), annotator=author)
    assert _marks(engine) == []
    signed_in = auth.mark_author(gr.Request(username="alice"), None)
    ih.mark_needed(engine, _trace(), 2, 0, "", Thresholds(0.5, 0.7), annotator=signed_in)
    assert [row[1] for row in _marks(engine)] == ["alice"]


def test_hugging_face_user_marks_under_their_own_name(engine, monkeypatch):
    monkeypatch.setenv("SPACE_ID", "user/rea-studio")
    monkeypatch.setenv("OAUTH_CLIENT_ID", "client")
    profile = gr.OAuthProfile({"name": "Erin", "preferred_username": "erin-hf", "profile": "", "picture": ""})
    assert auth.mark_author(gr.Request(), profile) == "erin-hf"
    assert auth.mark_author(gr.Request(), None) is None


def test_anonymous_marks_allowed_without_sign_in(engine):
    assert auth.mark_author(gr.Request(), None) == "anonymous"
    ih.mark_needed(engine, _trace(), 1, 0, "", Thresholds(0.5, 0.7), annotator="anonymous")
    assert [row[1] for row in _marks(engine)] == ["anonymous"]


def test_nul_characters_in_marks_are_not_sent_to_the_database(engine):
    """PostgreSQL refuses NUL in text; a note or a loaded conversation's text may carry one."""
    plan = PromptPlan(segments=())
    turns = tuple(
        TurnTrace(
            turn=t,
            user=f"user\x00 {t}",
            reply="a\x00b",
            generated=False,
            plan=plan,
            recognition=None,
            instructions=(),
            decisions=tuple(Decision(j, 0.1, Resolution.OMIT) for j in range(t)),
        )
        for t in range(2)
    )
    ih.mark_needed(
        engine,
        ("f.jsonl", RetrievalTrace(conversation_id="c", turns=turns)),
        1,
        0,
        "note\x00" + "x" * 5000,
        Thresholds(0.5, 0.7),
        annotator="anonymous",
    )
    (row,) = _marks(engine)
    assert row[6] == ("note" + "x" * 5000)[:2000]


def test_crafted_turn_indices_are_clear_errors(engine):
    for query, exchange in [(99, 0), (-1, 0), (1, 1), (2, 7)]:
        with pytest.raises(ih.MarkError):
            ih.mark_needed(engine, _trace(), query, exchange, "", Thresholds(0.5, 0.7), annotator="anonymous")
    assert _marks(engine) == []


def test_auth_entries_keep_colons_in_passwords_and_refuse_unknown_roles(tmp_path, monkeypatch):
    monkeypatch.delenv("REA_AUTH_FILE", raising=False)
    monkeypatch.setenv("REA_AUTH", "alice:se:cret")
    assert auth.local_accounts() == [("alice", "se:cret", "annotator")]
    accounts = tmp_path / "accounts.txt"
    accounts.write_text("bob:pa:ss:adjudicator\ncarol:pw\n")
    monkeypatch.setenv("REA_AUTH_FILE", str(accounts))
    assert auth.local_accounts()[:2] == [("bob", "pa:ss", "adjudicator"), ("carol", "pw", "annotator")]
    accounts.write_text("dave:pw:admin\n")
    with pytest.raises(auth.AuthConfigError, match="unknown role 'admin'"):
        auth.local_accounts()


def test_visitors_never_see_the_database_host(monkeypatch):
    """An unreachable PostgreSQL server: the operator's message names the host, the visitor's does not."""
    from annotations import StoreError

    engine = AppEngine(models=None, database_url="postgresql+psycopg://rea:s3cret@127.0.0.1:1/labels_db")
    with pytest.raises(ih.MarkError) as caught:
        ih.marks_rows(engine)
    message = str(caught.value)
    assert (
        "127.0.0.1" not in message
        and "labels_db" not in message
        and "s3cret" not in message
        and "rea" not in message.split()
    )
    assert isinstance(caught.value.__cause__, StoreError) and "127.0.0.1" in str(caught.value.__cause__)
    assert "s3cret" not in str(caught.value.__cause__)


def test_a_failed_store_call_says_what_failed_in_every_tab():
    """Issue 11: one guard for all tabs; a failed stats load no longer reads as a label that was not saved."""
    from app.store_guard import StoreUnavailable
    from app.tabs.annotate import handlers as ah

    engine = AppEngine(models=None, database_url="postgresql+psycopg://rea:s3cret@127.0.0.1:1/labels_db")
    with pytest.raises(StoreUnavailable, match="^Stats not loaded: the annotations database is") as caught:
        rh.stats_markdown(engine)
    assert not isinstance(caught.value, ah.LabelNotSaved) and "127.0.0.1" not in str(caught.value)
    with pytest.raises(ih.MarkError, match="^Marks not loaded: "):
        ih.marks_rows(engine)
    with pytest.raises(StoreUnavailable, match="^Not signed in: "):
        ah.sign_in(engine, auth.Identity("alice", "annotator"))
