"""Recognizer versions in the studio on the real packaged models: training makes a candidate that
no chat runs until an adjudicator chooses it, both are measured on the same validation items,
any version (the packaged one too) can be put back, and Annotate shows the real stage-2 score."""

import pytest
from sqlalchemy import text as text_sql

from annotations import store_items, store_review
from annotations.io import ImportRow
from annotations.training import Validation, validation_rows
from app.annotate_auth import Identity
from app.state import AppEngine
from app.tabs.annotate import handlers as ah
from app.tabs.review import handlers as rh
from rea_core import REAError, RuntimeConfig, Settings
from rea_core.recognizer import WORD_CLASS_STAGE, InstructionRecognizer, rule_priors
from rea_core.recognizer.metrics import evaluate_recognizer
from tests.model.test_triage import STUDIO_LABELS

ALICE = Identity("alice", "adjudicator")
BOB = Identity("bob", "annotator")


@pytest.fixture()
def engine(models, tmp_path):
    engine = AppEngine(
        models=models,
        settings=Settings(runtime=RuntimeConfig(max_new_tokens=8)),
        database_url=f"sqlite:///{tmp_path / 'versions.db'}",
    )
    # Every eighth validation item (all sources): the same held-out rows for every version, measured in seconds.
    engine.recognizer_validation = Validation(models.embedder, validation_rows()[::8])
    return engine


def test_a_trained_version_is_a_candidate_until_chosen_and_any_version_comes_back(engine, models):
    with engine.db() as s:
        store_items.import_rows(s, [ImportRow(t, labels=[("alice", lab)]) for t, lab in STUDIO_LABELS], source="s")
    recognizer = engine.strategy("rea").recognizer
    packaged = recognizer.trained
    with pytest.raises(REAError, match="only adjudicators") as refused:
        rh.train(engine, BOB)
    assert "REA_" not in str(refused.value)

    message, version_id = rh.train(engine, ALICE)
    assert "not in use" in message and recognizer.trained is packaged and rh.in_use(engine) == rh.PACKAGED
    with engine.db() as s:
        assert store_review.active_version(s) is None
        (version,) = store_review.list_versions(s)
    # One count of labels everywhere: the stats' final labels, the version's, and the message's parts.
    m = version.metrics
    assert version.n_labels == len(STUDIO_LABELS) == m["n_train"] + m["n_heldout"] + m["n_excluded_overlap"]
    assert f"**{len(STUDIO_LABELS)}** final labels" in rh.stats_markdown(engine)
    assert f"from the {len(STUDIO_LABELS)} final labels ({m['n_train']} to fit, {m['n_heldout']} held out" in message

    # The candidate and the recognizer in use, measured on the same validation items.
    rows = engine.recognizer_validation.rows
    c = rh.compare(engine, version_id)
    assert c.in_use == rh.PACKAGED and c.chosen_report["all"]["n"] == c.in_use_report["all"]["n"] == len(rows)
    assert set(c.chosen_report["by_source"]) == set(c.in_use_report["by_source"]) == {r["source"] for r in rows}
    # The recognizer in use, as the library measures it (on the embedder that kept the validation vectors).
    running = InstructionRecognizer(None, trained=recognizer.trained, embedder=engine.recognizer_validation.embedder)
    in_use_now = evaluate_recognizer(running, [r["text"] for r in rows], [r["label"] for r in rows])
    assert c.in_use_report["all"]["confusion"] == in_use_now["confusion"]
    assert "version 1" in c.table() and "packaged (in use)" in c.table()

    assert "version 1" in rh.switch(engine, ALICE, version_id)
    assert recognizer.trained is not packaged and rh.in_use(engine) == version_id
    text = "Detective mode."
    score = ah.stage2_score(engine, text)
    assert score.version == "version 1" and score.p_global == pytest.approx(
        float(recognizer.trained.p_global([text], models.embedder)[0])
    )
    assert "packaged" in rh.switch(engine, ALICE, rh.PACKAGED)  # "packaged" is a choice like any version
    assert recognizer.trained is packaged and rh.in_use(engine) == rh.PACKAGED
    with engine.db() as s:
        assert store_review.active_version(s) is None
    with pytest.raises(REAError, match="only adjudicators"):
        rh.switch(engine, BOB, version_id)


def test_annotate_shows_the_stage2_score_of_the_recognizer_in_use_once_the_item_is_labeled(engine, models):
    text = "Could you keep things brief?"  # stage 1 defers it: its rule prior is 0.5 for every such input
    assert rule_priors([text]) == [0.5]
    with engine.db() as s:
        store_items.import_rows(s, [ImportRow(text)], source="s")
    ah.sign_in(engine, BOB)
    shown, page, _ = ah.next_view(engine, BOB)
    expected = float(engine.strategy("rea").recognizer.trained.p_global([text], models.embedder)[0])
    assert shown.score == pytest.approx(expected) and round(expected, 2) != 0.5
    assert "P(global)" not in page  # shown before labeling, it would bias the label
    said = ah.label(engine, BOB, shown, "global")
    assert f"recognizer in use (packaged): stage 1 defers to stage 2 · stage 2 P(global) {expected:.2f}" in said
    with engine.db() as s:  # the score the annotator saw is kept with the label
        assert s.execute(text_sql("SELECT shown_score FROM label_events")).scalar_one() == pytest.approx(expected)
    # With no trained stage 2 to ask (an LLM stage 2), the page says n/a, not a number.
    assert "P(global) n/a" in ah.verdict_words(ah.Stage2("packaged", "", None))


def test_annotate_scores_an_item_in_another_language_with_the_multilingual_stage(engine):
    text = "Désormais, réponds-moi toujours en français, s'il te plaît."
    score = ah.stage2_score(engine, text)
    multilingual = engine.strategy("rea").recognizer.multilingual
    assert score.version == "multilingual, fr" and score.stage1 == "defers to stage 2"
    assert score.p_global == pytest.approx(float(multilingual.p_global([text], "fr")[0]))
    assert score.p_global >= multilingual.threshold


def test_annotate_shows_the_english_second_opinion_where_it_stores_an_item(engine):
    text = "Keep in mind I have a severe peanut allergy, so no recipes with peanuts or peanut oil please."
    recognizer = engine.strategy("rea").recognizer
    verdict = recognizer.recognize(text)
    assert verdict.stage == WORD_CLASS_STAGE  # the trained classifier alone scores it low
    score = ah.stage2_score(engine, text)
    assert score.version == "packaged, English second opinion" and score.p_global == pytest.approx(verdict.score)
    assert score.p_global >= recognizer.english_words.threshold
