"""Time in episodic memory on the real packaged models: the app stamps a sent message and its views
show it, a conversation JSONL's times reach the exchanges of traces (Inspect) and replay, marks keep
them, and a bad time is refused before anything is stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from app.state import AppEngine
from app.tabs.compare import handlers
from app.tabs.inspect import handlers as ih
from rea_core import RuntimeConfig, Settings, Thresholds, prompt_time
from rea_core.errors import DataFormatError
from rea_core.reconstruction import render_messages
from rea_core.retrieval.trace import redecide_turn, trace_conversation
from rea_core.session import saved_conversations
from rea_core.timestamps import parse_time

TURNS = [
    {
        "user": "My sister gave me her fiddle-leaf fig when she moved.",
        "assistant": "Lovely plant.",
        "time": "2023-05-08T13:56",
    },
    {"user": "Any podcast for my commute?", "assistant": "Try 99% Invisible.", "time": "2023-05-20"},
    {"user": "How often should I water it?", "assistant": "Once a week.", "time": "2023-05-27T09:05:30+01:00"},
]


@pytest.fixture(scope="module")
def engine(models, tmp_path_factory):
    return AppEngine(
        models=models,
        settings=Settings(runtime=RuntimeConfig(max_new_tokens=8)),
        database_url=f"sqlite:///{tmp_path_factory.mktemp('time') / 'a.db'}",
    )


@pytest.fixture()
def timed_file(tmp_path):
    path = tmp_path / "timed.jsonl"
    path.write_text(json.dumps({"id": "timed", "turns": TURNS}) + "\n", encoding="utf-8")
    return path


def test_a_message_sent_in_the_app_is_stamped_once_and_its_time_shown(engine, tmp_path):
    columns = [engine.new_column("rea"), engine.new_column("vanilla")]
    list(
        handlers.stream_columns(engine, columns, "My dog is called Biscuit.", Thresholds(0.5, 0.7), threading.Event())
    )
    for column in columns:
        handlers.respond_column(engine, column, "What is my dog called?", Thresholds(0.5, 0.7), reply="Biscuit.")
        assert column.error == ""
    first = [c.session.episodes.exchanges[0].time for c in columns]
    assert first[0] is not None and first[0] == first[1] == parse_time(first[0], where="test")  # one stored time
    for column in columns:
        html = handlers.column_views(engine, column, Thresholds(0.5, 0.7))[0]
        assert f"[{prompt_time(first[0])}]" in html  # the Table-13 view shows the sent exchange's time
        (user, *_) = [m["content"] for m in render_messages(column.last.plan) if m["role"] == "user"]
        assert user == f"[{prompt_time(first[0])}] My dog is called Biscuit."  # what the model read
    saved = handlers.save_columns(engine, columns)
    assert [t.time for t in saved_conversations(saved)[0].turns] == [
        c.time for c in columns[0].session.episodes.exchanges
    ]
    (reloaded, _) = handlers.load_columns(engine, saved)
    assert [ex.time for ex in reloaded.session.episodes.exchanges] == [
        ex.time for ex in columns[0].session.episodes.exchanges
    ]


def test_jsonl_times_reach_the_traced_exchanges_the_prompt_and_the_marks(engine, timed_file):
    (conv,) = ih.read_conversations(engine, timed_file)
    trace = trace_conversation(engine.strategy("rea"), conv)
    assert [t.time for t in trace.turns] == ["2023-05-08T13:56", "2023-05-20T00:00", "2023-05-27T09:05"]
    plan, _ = redecide_turn(engine.strategy("rea"), trace, 2, Thresholds(0.0, 0.0))  # everything kept
    users = [m["content"] for m in render_messages(plan) if m["role"] == "user"]
    assert users[:2] == [
        "[Monday 8 May 2023 13:56] My sister gave me her fiddle-leaf fig when she moved.",
        "[Saturday 20 May 2023 00:00] Any podcast for my commute?",
    ]
    message = ih.mark_needed(engine, ("timed.jsonl", trace), 2, 0, "", Thresholds(0.5, 0.7), annotator="tester")
    assert "Marked" in message
    with engine.db() as db:
        marks = ih._store()
        (case,) = [c for c in marks.marks_as_conversations(marks.list_failure_marks(db)) if c["id"] == "timed"]
    assert [t.get("time") for t in case["turns"]] == [t.time for t in trace.turns]


def test_a_bad_time_is_refused_before_anything_is_stored(engine, tmp_path):
    strategy = engine.strategy("rea")
    session = strategy.new_session()
    with pytest.raises(DataFormatError, match='"time"'):
        strategy.respond(session, "Hello.", reply="Hi.", time="last Tuesday")
    assert session.n_turns == 0 and not session.log
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "b", "turns": [{"user": "hi", "time": "soon"}]}) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r'bad.jsonl:1: turn 0: "time"'):
        ih.read_conversations(engine, bad)


@pytest.mark.slow
def test_replay_keeps_each_turns_time(timed_file):
    """``rea replay --json``: each record says the time its exchange was stored with (about 11 s: a model load)."""
    proc = subprocess.run(
        [sys.executable, "-m", "rea_core.cli.main", "replay", str(timed_file), "--strategy", "rea", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["time"] for r in records] == ["2023-05-08T13:56", "2023-05-20T00:00", "2023-05-27T09:05"]
