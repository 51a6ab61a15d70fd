"""The shipped trained stage 2: loads with no database, on the real packaged embedder."""

import json

import pytest

from rea_core.errors import DataFormatError, InputError
from rea_core.recognizer import build_recognizer, rule_stage
from rea_core.recognizer.default import load_default_recognizer, load_label_set, provenance_line

ISSUE_MISSES = [
    "Keep a formal tone with me throughout our conversation.",
    "Every response should start with a one-line summary in bold.",
    "All dates you write should use the YYYY-MM-DD format.",
    "Whatever I ask next, reply like a pirate would.",
    "For everything that follows, assume I live in Canada.",
    "Please sign off each message with '- your assistant'.",
]


def test_shipped_default_loads_without_a_database_and_records_its_provenance(monkeypatch, tmp_path):
    monkeypatch.setenv("REA_DATABASE_URL", f"sqlite:///{tmp_path}/never-created.db")
    model = load_default_recognizer()
    assert model.embedder_name == "all-MiniLM-L6-v2" and model.classes == ["global", "ordinary", "task"]
    assert model.provenance["n_train"] > 1000 and "validation" in model.provenance["sources"]
    assert "held-out" in provenance_line(model)
    assert not (tmp_path / "never-created.db").exists()


def test_default_recognizer_catches_the_issue_misses_and_passes_ordinary_inputs(models):
    recognizer = build_recognizer(models.recognizer_llm or models.generator, models.embedder)
    verdicts = recognizer.recognize_many(
        ISSUE_MISSES + ["I always forget where I put my keys.", "Write a formal thank-you note to my team."]
    )
    assert [v.label for v in verdicts] == ["global"] * 6 + ["other", "other"]
    texts = ISSUE_MISSES + ["I always forget where I put my keys."]
    deferred = [v for t, v in zip(texts, verdicts) if rule_stage(t)[0] is None]
    assert len(deferred) >= 5 and all(v.stage == "trained" for v in deferred)  # stage 2 decides what rules defer


def test_label_set_errors_name_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"text": "hi", "label": "global", "split": "train"})
        + "\n"
        + json.dumps({"text": "x", "label": "maybe"})
        + "\n"
    )
    with pytest.raises(DataFormatError, match="bad.jsonl:2"):
        load_label_set(bad)
    with pytest.raises(DataFormatError, match="no such"):
        load_label_set(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="'trained' or 'llm'"):
        build_recognizer(None, object(), "bert")  # type: ignore[arg-type]
