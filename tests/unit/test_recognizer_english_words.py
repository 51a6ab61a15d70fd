"""The English word-class model (issue 26): a second opinion where the embedding stage 2 scores a plain wish low.

The embedding stage 2 was trained on a label set whose standing wishes nearly all carry a marker
("from now on", "in all your replies"); a wish stated as a fact with its consequence, or as a
preference, scores near 0 there. The word-class model reads a fine-tuned MiniLM's vectors (a LoRA
adapter) and the same closed classes as the multilingual stage 2, in English, and may only add a
global verdict.
"""

import json
from dataclasses import replace

import pytest

from rea_core.backends.sentence import SentenceEmbedder
from rea_core.errors import ModelLoadError
from rea_core.recognizer import GLOBAL, InstructionRecognizer
from rea_core.recognizer.default import data_path, load_default_recognizer, load_label_set
from rea_core.recognizer.hard_set import load_hard_set
from rea_core.recognizer.lexicons import CLASS_LANGS, CLASSES, class_spans
from rea_core.recognizer.multilingual import ENGLISH_MODEL, WordClassRecognizer, load_word_classes
from rea_core.recognizer.recognize import WORD_CLASS_MAX_WORDS, WORD_CLASS_STAGE
from rea_core.training.english_adapter import ADAPTER_DIR, AdapterConfig, calibration_units, train_english_adapter
from rea_core.training.multilingual import LABEL_SET_FAMILY, english_units, label_set_units

FACT = "Keep in mind I have a severe peanut allergy, so no recipes with peanuts or peanut oil please."


@pytest.fixture(scope="module")
def recognizers(models):
    """The shipped recognizer, and the same without the English word-class model."""
    trained = load_default_recognizer()
    return (
        InstructionRecognizer(None, trained=trained, embedder=models.embedder),
        InstructionRecognizer(None, trained=trained, embedder=models.embedder, use_english_words=False),
    )


def test_english_has_a_pattern_in_every_word_class():
    assert all(set(table) == set(CLASS_LANGS) and "en" in table for table in CLASSES.values())
    assert {"keep_in_mind", "first_person_state", "condition"} <= set(class_spans(FACT, "en"))


def test_a_standing_fact_the_embedding_model_misses_is_stored(recognizers):
    shipped, without = recognizers
    assert without.recognize(FACT).label != GLOBAL  # the embedding stage 2 alone scores it low
    verdict = shipped.recognize(FACT)
    assert (verdict.label, verdict.stage) == (GLOBAL, WORD_CLASS_STAGE)
    assert verdict.score >= load_word_classes(ENGLISH_MODEL).threshold


def test_in_a_mixed_message_it_stores_the_wish_sentence_only(recognizers):
    text = (
        "ok that translation sounded super stiff. when you translate stuff for me, aim for how people actually "
        "talk, not textbook spanish. can you redo it?"
    )
    verdict = recognizers[0].recognize(text)
    assert verdict.label == GLOBAL
    assert (
        verdict.instruction(text)
        == "when you translate stuff for me, aim for how people actually talk, not textbook spanish."
    )


def test_it_does_not_decide_long_pasted_messages(recognizers):
    pasted = " ".join(["The quarterly report lists revenue, costs and margins for each region."] * 8)
    text = f"{FACT} {pasted}"
    assert len(text.split()) > WORD_CLASS_MAX_WORDS
    assert recognizers[0].recognize(text).stage != WORD_CLASS_STAGE


def test_it_leaves_tasks_and_remarks_alone(recognizers):
    for text in (
        "Draft a sign for the office kitchen: from now on everyone washes their own mug.",
        "My boss always replies in all caps, it drives me nuts.",
        "Translate into French: 'Keep in mind that I am allergic to peanuts.'",
    ):
        assert recognizers[0].recognize(text).label != GLOBAL, text


def test_the_shipped_model_is_english_only_and_says_what_it_was_trained_on():
    model = load_word_classes(ENGLISH_MODEL)
    assert model.languages == ("en",)
    assert (
        "dev half, en" in model.provenance["trained_on"] and "recognizer_train.jsonl" in model.provenance["trained_on"]
    )
    assert model.threshold >= 0.8 and model.sentence_threshold >= 0.8  # it only adds confident verdicts
    assert model.adapter.endswith(ADAPTER_DIR) and model.encoder().name.endswith(ADAPTER_DIR)


def test_label_set_units_keep_the_train_split_of_short_messages():
    rows = load_label_set(data_path("recognizer_train.jsonl"))
    units = label_set_units(rows, 10_000)
    assert units and all(u.family.startswith(LABEL_SET_FAMILY) and u.message >= 10_000 for u in units)
    held_out = {r.text for r in rows if r.split == "heldout"}
    assert not any(u.whole and u.text in held_out for u in units)
    assert all(len(u.text.split()) <= WORD_CLASS_MAX_WORDS for u in units if u.whole)


@pytest.mark.slow
def test_training_writes_an_adapter_the_model_reads_back(recognizers, tmp_path):
    """A short fit on two authoring rounds and a slice of the label set: the adapter loads, the JSON names it,
    and the thresholds come from the held-out round."""
    hard = [r if r.id.startswith(("t8", "t9")) else replace(r, split="test") for r in load_hard_set()]
    rows = load_label_set(data_path("recognizer_train.jsonl"))[:300]
    model, report = train_english_adapter(
        hard,
        rows,
        recognizers[1],
        "packaged",
        tmp_path / ADAPTER_DIR,
        calibration_round="t9",
        config=AdapterConfig(epochs=1),
        progress=lambda _: None,
    )
    assert (tmp_path / ADAPTER_DIR / "adapter_config.json").exists()
    assert report["calibration round"]["messages"] > 0 and 0.8 <= model.threshold <= 1.0
    model.save(tmp_path / "english.json")
    again = WordClassRecognizer.from_dict(json.loads((tmp_path / "english.json").read_text()), tmp_path)
    assert again.adapter == str(tmp_path / ADAPTER_DIR)
    vectors = again.encoder().encode([FACT]).astype("float64")
    assert again.p_global([FACT], "en", vectors)[0] == pytest.approx(model.p_global([FACT], "en", vectors)[0])


def test_calibration_holds_out_one_round_and_one_label_set_fold():
    hard = load_hard_set()
    units = english_units(hard, load_label_set(data_path("recognizer_train.jsonl")))
    held = calibration_units(units, hard, "t9")
    hard_held = {hard[u.message].id[:2] for u, h in zip(units, held) if h and u.message < len(hard)}
    assert hard_held == {"t9"}
    label = [h for u, h in zip(units, held) if u.family.startswith(LABEL_SET_FAMILY)]
    assert 0.1 < sum(label) / len(label) < 0.3  # one fold of five, by group


def test_a_missing_adapter_is_a_clear_load_error(tmp_path):
    with pytest.raises(ModelLoadError, match="Could not apply the adapter"):
        SentenceEmbedder.load_with_adapter("packaged", tmp_path / "no-adapter", max_tokens=128)
