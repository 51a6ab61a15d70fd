"""The multilingual stage 2 (issue 26): word classes per language, a model trained on the dev half only."""

import json

import numpy as np
import pytest

from rea_core.errors import DataFormatError, InputError
from rea_core.recognizer.hard_set import load_hard_set
from rea_core.recognizer.lexicons import CLASS_LANGS, CLASSES, LANGS, class_spans
from rea_core.recognizer.multilingual import (
    FEATURE_NAMES,
    WordClassRecognizer,
    features,
    flags,
    load_multilingual,
)
from rea_core.training.multilingual import train_multilingual, training_units


def test_every_word_class_covers_every_language():
    assert all(set(table) == set(CLASS_LANGS) for table in CLASSES.values())
    assert set(class_spans("Désormais, réponds-moi toujours en français.", "fr")) >= {
        "persistence",
        "frequency",
        "imperative",
    }


def test_features_are_flags_then_their_pairwise_products():
    X = features(["Ab jetzt antworte bitte immer auf Deutsch.", "Wie spät ist es?"], "de")
    assert X.shape == (2, len(FEATURE_NAMES))
    on, names = flags("Ab jetzt antworte bitte immer auf Deutsch.", "de")
    assert {"persistence", "frequency", "please"} <= set(names)
    i, j = FEATURE_NAMES.index("persistence"), FEATURE_NAMES.index("frequency")
    assert X[0, FEATURE_NAMES.index("persistence*frequency")] == X[0, i] * X[0, j] == 1.0


def test_the_shipped_model_was_trained_on_the_dev_half_only():
    model = load_multilingual()
    provenance = model.provenance
    assert "dev half" in provenance["trained_on"]
    dev_rows = [r for r in load_hard_set() if r.split == "dev" and r.lang in LANGS]
    # fitted before t9 (measured once as a test half in round 3) joined the dev half; t10 is measured with it
    assert provenance["rows"] in (len(dev_rows), len([r for r in dev_rows if not r.id.startswith("t9")]))
    assert 0.2 <= model.threshold <= 0.8


def test_training_reads_no_test_rows_and_refuses_a_set_without_dev_rows():
    rows = load_hard_set()
    units = training_units(rows)
    test_texts = {r.text for r in rows if r.split == "test"}
    assert units and not any(u.text in test_texts for u in units)
    with pytest.raises(InputError):
        train_multilingual([r for r in rows if r.split == "test"], progress=lambda _: None)


def test_a_retrained_model_round_trips_through_json(tmp_path):
    model, report = train_multilingual(load_hard_set(), progress=lambda _: None)
    assert report["cv"]["recall"] > 0.8  # out-of-fold, on families the fold's model never saw
    path = tmp_path / "m.json"
    model.save(path)
    again = WordClassRecognizer.from_dict(json.loads(path.read_text()))
    texts = ["D'ora in poi rispondimi sempre in italiano.", "Che ore sono?"]
    assert np.allclose(model.p_global(texts, "it"), again.p_global(texts, "it"))
    assert (again.threshold, again.sentence_threshold) == (model.threshold, model.sentence_threshold)


def test_a_model_for_other_features_is_refused():
    data = load_multilingual().to_dict()
    data["features"] = data["features"][:-1]
    with pytest.raises(DataFormatError, match="retrain"):
        WordClassRecognizer.from_dict(data)
