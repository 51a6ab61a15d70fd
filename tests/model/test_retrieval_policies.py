"""HCR scoring options on the real packaged embedder, the marks-to-benchmark loop, and the defaults the app uses."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rea_core import REAConfig, Resolution, RuntimeConfig, Settings, Thresholds
from rea_core.evals import retrieval as R
from rea_core.methods.rea.config import default_thresholds
from rea_core.methods.rea.strategy import REAStrategy

HISTORY = [
    ("Give me three names for a coffee shop by the sea.", "1. Tide & Bean 2. Harbor Roast 3. Saltwater Cafe"),
    ("How many moons does Mars have?", "Mars has two moons, Phobos and Deimos."),
    ("Any tips for sleeping better?", "Keep a regular schedule, avoid screens late and keep the room cool."),
    (
        "What is a good stretch for the lower back?",
        "Try the child's pose: kneel, sit back on your heels and reach forward.",
    ),
]


def strategy(models, **overrides) -> REAStrategy:
    return REAStrategy(
        models.generator, models.embedder, REAConfig(**overrides), runtime=RuntimeConfig(), recognizer=None, codec=None
    )


def decisions_for(s: REAStrategy, query: str, history=HISTORY):
    session = s.new_session()
    for user, reply in history:
        session.episodes.append(user, reply)
    _, decisions = s.replan(query, session.episodes.exchanges, (), s.score(session, query), s.config.thresholds)
    return decisions


@pytest.mark.parametrize("scorer", ["hybrid", "exchange", "minilm", "sentence"])
def test_each_scorer_keeps_the_exchange_a_direct_question_needs(models, scorer):
    decisions = decisions_for(
        strategy(models, scorer=scorer, recent_raw=0, recent_compressed=0, referent_top_k=0),
        "Which moons orbit Mars, Phobos and what else?",
    )
    best = max(decisions, key=lambda d: d.score)
    assert best.turn == 1 and best.resolution is not Resolution.OMIT
    assert decisions[0].resolution is Resolution.OMIT  # the coffee-shop names are not needed here


def test_only_follow_up_awareness_keeps_the_referent_of_a_follow_up(models):
    query = "Make them sound more playful."
    plain = decisions_for(strategy(models, referent_top_k=0, recent_raw=1, recent_compressed=0), query)
    aware = decisions_for(strategy(models, recent_raw=1, recent_compressed=0), query)
    assert plain[0].resolution is Resolution.OMIT  # its own score misses "them" = the names
    assert aware[0].resolution is not Resolution.OMIT
    assert aware[-1].resolution is Resolution.RAW  # the latest exchange is kept raw (recent_raw)


def test_marks_export_round_trips_into_the_retrieval_eval(models, tmp_path):
    from annotations import create_db_engine, export_failure_marks_jsonl, session_factory, upgrade
    from annotations.marks import add_failure_mark

    url = f"sqlite:///{tmp_path / 'marks.db'}"
    upgrade(url)
    Session = session_factory(create_db_engine(url))
    turns = [{"user": u, "assistant": r} for u, r in HISTORY] + [
        {"user": "Make them sound more playful.", "assistant": "Sure!"}
    ]
    with Session() as db:
        add_failure_mark(
            db,
            annotator="ana",
            conversation_id="cafe",
            query_turn=4,
            exchange_turn=0,
            query_text=turns[4]["user"],
            exchange_user=turns[0]["user"],
            exchange_reply=turns[0]["assistant"],
            score=0.1,
            tau_low=0.5,
            tau_high=0.7,
            source="test.jsonl",
            context=json.dumps(turns),
        )
        out = tmp_path / "marks.jsonl"
        assert export_failure_marks_jsonl(db, out) == 1
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["turns"][4]["needed"] == [0] and row["id"] == "cafe"
    cases = R.load_needed_jsonl(out)
    results = R.evaluate(
        models, Settings(), cases, ["rea", "rea-first-release", "recency"], tmp_path / "run", dataset="marks"
    )
    assert results["policies"]["rea"]["all_kept"] == 1.0
    assert results["policies"]["rea-first-release"]["all_kept"] == 0.0  # the miss that was marked
    assert (tmp_path / "run" / "report.html").exists()


def test_app_and_cli_use_the_calibrated_defaults(models, tmp_path):
    from app.main import hcr_line
    from app.state import AppEngine
    from rea_core.cli.common import settings_from_options

    cli = settings_from_options(tau_low=None, tau_high=None).rea
    engine = AppEngine(models=models, settings=Settings(), database_url=f"sqlite:///{tmp_path / 'a.db'}")
    rea = engine.strategy("rea").config
    for cfg in (cli, rea):
        assert (cfg.tau_low, cfg.tau_high) == default_thresholds(cfg.scorer)
    assert f"leave out below {cli.tau_low:.2f}" in hcr_line(cli) and cli.scorer in hcr_line(cli)
    latent = replace(cli, scorer="latent", tau_low=None, tau_high=None)
    assert (latent.tau_low, latent.tau_high) == default_thresholds("latent")


def test_the_sliders_never_move_the_working_memory_window(models):
    """A real REA turn (replayed reply), then the app's slider path (``redecide`` from cached
    scores, no model call) at thresholds from 0 to 1: the window stays raw, the band kept."""
    from rea_core import Reason

    s = strategy(models, recent_raw=2, recent_raw_tokens=10_000, recent_compressed=1, referent_top_k=0)
    session = s.new_session()
    for user, reply in HISTORY:
        s.respond(session, user, reply=reply)
    last = s.respond(session, "What is a good breakfast before a run?", reply="Oats and a banana.")
    for lo, hi in ((0.0, 0.0), (0.2, 0.36), (0.6, 0.9), (1.0, 1.0)):
        _, decisions = s.redecide(session, last, Thresholds(lo, hi))
        assert [(d.turn, d.resolution, d.reason) for d in decisions[-2:]] == [
            (2, Resolution.RAW, Reason.RECENT),
            (3, Resolution.RAW, Reason.RECENT),
        ]
        assert decisions[1].resolution is not Resolution.OMIT  # the band before the window
        if lo == 1.0:
            assert (
                decisions[0].resolution is Resolution.OMIT and decisions[0].reason is Reason.SCORE
            )  # outside: the thresholds decide
