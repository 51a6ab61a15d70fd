"""Inspect marks per owner and within a byte quota, on real SQLite and PostgreSQL: the store lists and
exports one annotator's marks, counts the bytes they hold (their texts, and their contexts' distinct
turns once), refuses a mark over the bytes allowed with nothing written, and the app says which quota
and whose marks a caller reads."""

from __future__ import annotations

import io
import json

import gradio as gr
import pytest
from test_mark_contexts import _trace, count, db_url, engine, fields, turns  # noqa: F401 - db_url, engine: fixtures

from annotations import add_failure_mark, export_failure_marks_jsonl, list_failure_marks
from annotations.db import session_factory
from annotations.marks import MarkBytesQuotaError, stored_bytes
from app import annotate_auth as auth
from app.state import AppEngine
from app.tabs.inspect import handlers as ih
from app.tabs.inspect.quota import MarkQuotaExceeded
from rea_core import Settings, Thresholds
from rea_core.limits import Limits

SIGN_IN_VARS = ("REA_AUTH", "REA_AUTH_FILE", "REA_ADJUDICATORS", "REA_ANNOTATORS", "SPACE_ID", "OAUTH_CLIENT_ID")


def big(n: int, chars: int) -> list[dict]:
    """``n`` turns of ``chars`` characters each (user text and reply), 2-byte characters included."""
    return [{"user": f"{i} " + "é" * chars, "assistant": "r" * chars} for i in range(n)]


def test_store_counts_bytes_and_refuses_a_mark_over_them(engine):  # noqa: F811
    Session = session_factory(engine)
    talk = big(4, 1000)
    with Session() as s:
        add_failure_mark(s, max_bytes=20_000, **fields(3, 0, talk))
        one = stored_bytes(s, "ana")
        assert one > len(json.dumps(talk, ensure_ascii=False).encode()) - 100  # the context's turns, in UTF-8 bytes
        add_failure_mark(s, max_bytes=20_000, **fields(3, 1, talk))  # the same context: its turns count once
        add_failure_mark(s, max_bytes=20_000, **fields(2, 1, talk[:3]))  # a prefix of it: no new turn
        query = len(talk[3]["user"].encode())  # each mark keeps its query text: ~2 KB of the 8 KB context
        assert stored_bytes(s, "ana") - one < 2 * query + 200  # two marks' own texts, no second copy of the context
        before = (count(engine, "retrieval_failure_marks"), count(engine, "mark_contexts"))
        with pytest.raises(
            MarkBytesQuotaError, match=r"'ana' would hold 0\.03\d* MB of marks with this one, over .* \(0\.0191 MB\)"
        ):
            add_failure_mark(s, max_bytes=20_000, **fields(3, 2, big(4, 1100), conversation_id="c2"))
        assert (count(engine, "retrieval_failure_marks"), count(engine, "mark_contexts")) == before  # none written
        add_failure_mark(s, max_bytes=20_000, **fields(3, 1, talk, note="an update adds no bytes"))
        add_failure_mark(s, max_bytes=20_000, **fields(3, 2, big(4, 1100), annotator="bo"))  # bo's own quota
        assert stored_bytes(s, "nobody") == 0


def test_store_lists_and_exports_one_annotators_marks(engine):  # noqa: F811
    Session = session_factory(engine)
    talk = turns(5)
    with Session() as s:
        add_failure_mark(s, **fields(3, 0, talk[:4]))
        add_failure_mark(s, **fields(4, 1, talk, annotator="bo"))
        assert [m.annotator for m in list_failure_marks(s, annotator="bo")] == ["bo"]
        assert sorted(m.annotator for m in list_failure_marks(s)) == ["ana", "bo"]  # None: everyone's
        out = io.StringIO()
        assert export_failure_marks_jsonl(s, out, annotator="ana") == 1
        (case,) = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [t.get("needed") for t in case["turns"]] == [None, None, None, [0]]  # ana's mark, not bo's turn 4
        raw = io.StringIO()
        assert export_failure_marks_jsonl(s, raw, raw=True, annotator="bo") == 1


def test_app_says_which_quota_refused_a_mark(db_url, monkeypatch):  # noqa: F811
    for name in SIGN_IN_VARS:
        monkeypatch.delenv(name, raising=False)
    app = AppEngine(models=None, settings=Settings(limits=Limits(marks_mb_per_user=0.001)), database_url=db_url)
    source, trace = _trace(5)
    ih.mark_needed(app, (source, trace), 1, 0, "", Thresholds(0.3, 0.7), annotator="alice")  # a few hundred bytes
    with pytest.raises(
        MarkQuotaExceeded,
        match=r"you would hold 0\.00[0-9]+ MB of marks.*\(0\.001 MB, REA_MARKS_MB_PER_USER\); nothing was saved",
    ):
        ih.mark_needed(app, (source, trace), 4, 0, "x" * 1500, Thresholds(0.3, 0.7), annotator="alice")
    assert [(r[1], r[3]) for r in ih.marks_rows(app, owner="alice")] == [("alice", 1)]
    with pytest.raises(ih.MarkError, match="the note holds a lone surrogate"):
        ih.mark_needed(app, (source, trace), 2, 0, "\ud800", Thresholds(0.3, 0.7), annotator="alice")
    assert ih.marks_rows(app, owner="bob") == []


def test_marks_are_read_per_owner_and_all_by_an_adjudicator(tmp_path, monkeypatch):
    for name in SIGN_IN_VARS:
        monkeypatch.delenv(name, raising=False)
    assert auth.marks_reader(gr.Request(), None) == auth.MarksReader("anonymous", everyone=False)  # no sign-in
    accounts = tmp_path / "accounts.txt"
    accounts.write_text("alice:pw\ncarol:pw:adjudicator\n")
    monkeypatch.setenv("REA_AUTH_FILE", str(accounts))
    assert auth.marks_reader(gr.Request(), None) is None  # signed-in deployment, no login: refused
    assert auth.marks_reader(gr.Request(username="alice"), None).owner == "alice"
    assert auth.marks_reader(gr.Request(username="carol"), None).owner is None  # every annotator's
    accounts.write_text("alice:pw\ncarol:pw\n")  # carol's role taken away: her own marks at once
    assert auth.marks_reader(gr.Request(username="carol"), None).owner == "carol"
