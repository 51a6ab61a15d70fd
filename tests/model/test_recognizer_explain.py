"""``InstructionRecognizer.explain``: the recognizer says what each of its stages made of an input (the
Annotate tab shows this once an item is labeled), on the packaged models."""

import pytest

from rea_core.recognizer import GLOBAL, OTHER, WORD_CLASS_STAGE, InstructionRecognizer, build_recognizer


@pytest.fixture(scope="module")
def recognizer(models):
    return build_recognizer(models.recognizer_llm or models.generator, models.embedder)


def test_each_stage_says_its_verdict_and_stage_two_scores_even_what_stage_one_decided(recognizer, models):
    deferred = "Could you keep things brief?"  # stage 1 defers: the trained classifier decides
    v = recognizer.explain(deferred)
    assert (v.rules, v.scorer, v.language) == (None, "trained", "en")
    assert v.p_global == pytest.approx(float(recognizer.trained.p_global([deferred], models.embedder)[0]))
    assert v.verdict == recognizer.recognize(deferred)

    marked = "From now on, answer in lowercase."  # a persistence marker: stage 1 accepts it alone
    v = recognizer.explain(marked)
    assert v.rules == GLOBAL and v.verdict.label == GLOBAL and v.verdict.stage == "rules"
    assert v.scorer == "trained" and 0.0 <= v.p_global <= 1.0  # stage 2 asked anyway, for triage

    stopped = "What is the capital of France?"  # no cue at all: stage 1 stops it
    v = recognizer.explain(stopped)
    assert v.rules == OTHER and v.verdict.label == OTHER and v.p_global is not None


def test_other_languages_and_the_english_second_opinion_name_their_scorer(recognizer):
    french = "Désormais, réponds-moi toujours en français, s'il te plaît."
    v = recognizer.explain(french)
    assert (v.rules, v.scorer, v.language) == (None, "multilingual", "fr")
    assert v.p_global == pytest.approx(float(recognizer.multilingual.p_global([french], "fr")[0]))

    allergy = "Keep in mind I have a severe peanut allergy, so no recipes with peanuts or peanut oil please."
    v = recognizer.explain(allergy)
    assert v.scorer == WORD_CLASS_STAGE and v.verdict.stage == WORD_CLASS_STAGE
    assert v.p_global == pytest.approx(v.verdict.score) and v.verdict.label == GLOBAL


def test_an_llm_stage_two_is_asked_only_when_allowed(models):
    rules_only = InstructionRecognizer(None, use_english_words=False)
    v = rules_only.explain("Could you keep things brief?")
    assert (v.scorer, v.p_global, v.verdict.stage) == ("none", None, "rules")
    llm = InstructionRecognizer(models.recognizer_llm or models.generator, use_english_words=False)
    unasked = llm.explain("Could you keep things brief?", ask_llm=False)
    assert (unasked.scorer, unasked.p_global, unasked.verdict) == ("classifier", None, None)
    asked = llm.explain("Could you keep things brief?")
    assert asked.scorer == "classifier" and asked.p_global == pytest.approx(asked.verdict.score)
