"""One question answered for the app (``qa.answer_question``) on the packaged models: the gold answer,
a finite NLL, the evidence's decisions, and the evidence alone beating no history."""

import math

import pytest

from rea_core import REAConfig, RuntimeConfig, Thresholds, build_strategy
from rea_core.evals import qa
from rea_core.evals.retrieval import RetrievalCase, RetrievalQuery

EXCHANGES = (
    ("Hi! I just moved to a new flat in Lisbon.", "Congratulations! How do you like Lisbon?"),
    ("I adopted a kitten last week. My cat is named Zorblax.", "Zorblax is a wonderful name!"),
    ("I also started learning the cello.", "The cello is beautiful. Enjoy your lessons!"),
    ("Any tips for practising every day?", "Short daily sessions work better than long ones."),
)
TIMES = ("2023-05-08T13:56", "2023-05-08T14:00", "2023-05-09T09:10", "2023-05-09T09:12")
CAT = RetrievalQuery(position=4, text="What is my cat's name?", needed=(1,), answer="Zorblax", category=4)
CITY = RetrievalQuery(position=4, text="Which city does Zorblax live in?", needed=(0, 1), answer="Lisbon", category=1)
CASE = RetrievalCase(id="cat", exchanges=EXCHANGES, queries=(CAT, CITY), times=TIMES)


def rea(models, lo=None, hi=None):
    config = REAConfig(recent_raw=1, recent_compressed=0, referent_top_k=1)
    if lo is not None:
        config = config.with_thresholds(Thresholds(lo, hi))
    return build_strategy("rea", models, config, runtime=RuntimeConfig(max_new_tokens=24))


def test_one_question_gives_gold_nll_evidence_and_references(models):
    sessions = {}
    out = qa.answer_question(rea(models, 0.0, 0.0), CASE, CAT, sessions=sessions)
    assert out.answer == "Zorblax" and out.category == "single-hop" and out.prediction is not None
    assert math.isfinite(out.nll) and out.oracle_nll < out.none_nll - 1.0, (out.oracle_nll, out.none_nll)
    (ev,) = out.evidence
    assert ev.turn == 1 and ev.time == TIMES[1] and "Zorblax" in ev.user and ev.score is not None
    assert out.evidence_shown == 1.0 and out.omitted_evidence() == []  # every exchange kept at tau 0
    assert out.gap_share is not None and out.prompt_tokens > 0 and out.f1 is not None
    assert any(s.time == TIMES[1] for s in out.plan.segments)  # the prompt shows when things were said
    row = out.to_dict()
    assert row["evidence"][0]["resolution"] in ("raw", "compressed") and "plan" not in row
    session = sessions["cat"]
    assert len(session.episodes) == 4 and session.episodes.n_embedded == 4
    again = qa.answer_question(
        rea(models, 0.99, 0.99), CASE, CITY, sessions=sessions, reference=False, max_new_tokens=8
    )
    assert sessions["cat"] is session  # the conversation's exchanges embedded once
    assert again.none_nll is None and again.oracle_nll is None and again.gap_share is None
    assert again.omitted_evidence() and again.evidence_shown < 1.0  # high thresholds drop some evidence
    assert {e.turn for e in again.evidence} == {0, 1}
    with pytest.raises(qa.DataFormatError, match="no gold answer"):
        qa.answer_question(rea(models), CASE, RetrievalQuery(position=2, text="Hm?", needed=()))
