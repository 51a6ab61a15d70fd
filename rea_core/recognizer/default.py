"""The shipped stage 2: a recognizer trained on the documented label set, loaded with no database.

Label set: ``rea_core/data/recognizer_train.jsonl`` (built by scripts/build_recognizer_training.py,
documented in docs/recognizer_training_set.md); each row has ``text``, ``label``, ``source``,
``group`` and ``split`` ("train" or "heldout"). The weights are fitted on the train split only;
the threshold is chosen on out-of-fold scores of the train split (grouped cross-validation);
the held-out split is only measured. The result ships as ``rea_core/data/recognizer_default.json``
with its provenance, so the app can say what it runs.

Example:
    rea train recognizer --labels rea_core/data/recognizer_train.jsonl --out rea_core/data/recognizer_default.json
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..conversations import read_jsonl
from ..errors import DataFormatError, InputError
from .labels import LABELS
from .trained import TrainedRecognizer

SPLITS = ("train", "heldout", "dev", "test")  # dev/test: the hard set (hard_set.py), never trained on


@dataclass(frozen=True)
class LabeledInput:
    """One row of a recognizer label set."""

    text: str
    label: str
    source: str = "unknown"
    group: str = ""
    split: str = "train"


def data_path(name: str) -> Path:
    return Path(str(resources.files("rea_core").joinpath("data", name)))


def load_label_set(path: str | Path) -> list[LabeledInput]:
    """Rows of a label-set JSONL; DataFormatError names the line of a bad row."""
    if not Path(path).is_file():
        raise DataFormatError(f"{path}: no such label-set file")
    rows = []
    for where, r in read_jsonl(path, what="labeled rows"):  # one JSONL reader for every data file
        if (
            not isinstance(r, dict)
            or not isinstance(r.get("text"), str)
            or not r["text"].strip()
            or r.get("label") not in LABELS
        ):
            raise DataFormatError(f'{where}: needs a non-empty "text" and a "label" in {LABELS}')
        split = r.get("split", "heldout")
        if split not in SPLITS:
            raise DataFormatError(f'{where}: "split" must be one of {SPLITS}, got {split!r}')
        n = where.rsplit(":", 1)[1]
        rows.append(
            LabeledInput(
                r["text"], r["label"], str(r.get("source", "unknown")), str(r.get("group") or r.get("id") or n), split
            )
        )
    if not rows:
        raise DataFormatError(f"{path}: no labeled rows")
    return rows


def load_default_recognizer() -> TrainedRecognizer:
    """The shipped trained stage 2 (package data); needs no database and no network."""
    path = data_path("recognizer_default.json")
    if not path.is_file():
        raise InputError(
            f"the shipped recognizer {path} is missing; rebuild it with `rea train recognizer --labels ...`"
        )
    return TrainedRecognizer.load(path)


def provenance_line(model: TrainedRecognizer | None) -> str:
    """One line saying what stage 2 runs and where its weights came from (for the app and CLI)."""
    if model is None:
        return "Stage 2: few-shot LLM classifier (no trained recognizer loaded)."
    p = model.provenance
    if not p:
        return f"Stage 2: trained classifier on {model.embedder_name} (no provenance recorded)."
    held = p.get("heldout", {})
    return (
        f"Stage 2: shipped trained classifier ({p.get('label_set', '?')}, {p.get('n_train', '?')} train labels from "
        f"{', '.join(p.get('sources', []))}; trained {p.get('trained_on', '?')}, threshold {model.threshold:.2f}; "
        f"held-out {p.get('n_heldout', '?')}: precision "
        f"{held.get('precision', 0):.3f}, recall {held.get('recall', 0):.3f})."
    )
