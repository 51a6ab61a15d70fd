"""The recognizer trained from labels on the real packaged embedder, used as stage 2; and the
Annotate handlers refusing to drop a label when the database is locked."""

import sqlite3
from pathlib import Path

import pytest

from rea_core.recognizer import InstructionRecognizer
from rea_core.recognizer.trained import TrainedRecognizer
from rea_core.training.recognizer import train_recognizer

LABELS = Path(__file__).resolve().parents[2] / "examples" / "annotations" / "recognizer_train_labels.jsonl"


@pytest.fixture(scope="module")
def trained(models):
    import json

    rows = [json.loads(line) for line in LABELS.read_text().splitlines()]
    validation = [
        {"text": "Please reply only in Italian from now on.", "label": "global"},
        {"text": "What is the boiling point of water?", "label": "ordinary"},
        {"text": "Thanks, that was really helpful!", "label": "ordinary"},
    ]
    return train_recognizer(
        [r["text"] for r in rows], [r["label"] for r in rows], models.embedder, validation=validation
    )


def test_training_reports_metrics_and_leaves_out_validation_texts(trained):
    m = trained.metrics
    assert m["n_excluded_overlap"] == 1 and m["n_train"] + m["n_heldout"] == 89
    held = m["heldout"]["pipeline"]
    assert held["n"] == m["n_heldout"] and sum(map(sum, held["confusion"])) == held["n"]
    assert held["f1"] > 0.6 and held["pr_curve"]["precision"]
    assert m["validation"]["pipeline"]["n"] == 3


def test_trained_stage_two_decides_cue_bearing_inputs(trained, models, tmp_path):
    path = tmp_path / "rec.json"
    trained.model.save(path)
    loaded = TrainedRecognizer.load(path)
    recognizer = InstructionRecognizer(None, trained=loaded, embedder=models.embedder)
    verdict = recognizer.recognize("Always answer in under twenty words.")
    assert verdict.stage == "trained" and verdict.label == "global" and verdict.score > 0.5
    assert recognizer.recognize("What's the weather like?").stage == "rules"
    assert (
        InstructionRecognizer(None).recognize("Always answer in under twenty words.").stage == "rules"
    )  # default unchanged
    assert loaded.p_global(["Never use emojis in your replies."], models.embedder)[0] == pytest.approx(
        trained.model.p_global(["Never use emojis in your replies."], models.embedder)[0]
    )


def test_locked_database_keeps_the_label_pending_in_the_annotate_handler(models, tmp_path):
    from annotations import store_items as si
    from annotations.io import ImportRow
    from app.annotate_auth import Identity
    from app.state import AppEngine
    from app.tabs.annotate import handlers as ah

    db = tmp_path / "ui.db"
    engine = AppEngine(models=models, database_url=f"sqlite:///{db}")  # the item shows a real stage-2 score
    who = Identity("alice", "annotator")
    with engine.db() as s:
        si.import_rows(s, [ImportRow("Always answer in French.")], source="t")
    shown, html, _ = ah.next_view(engine, who)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(ah.LabelNotSaved, match="NOT saved"):
            ah.label(engine, who, shown, "global")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "Saved" in ah.label(engine, who, shown, "global")  # the same pending label, retried
    with engine.db() as s:
        assert si.my_label(s, "alice", shown.item_id) == "global"
