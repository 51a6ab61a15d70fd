"""Training the word-class models (``recognizer/multilingual.py``) on the hard set's dev half: the
multilingual stage 2, and the units and threshold rule of the English second opinion (fitted in
``english_adapter.py``).

The training units are the dev rows in French, German, Spanish, Italian and Portuguese, whole,
plus each sentence of their mixed messages (the instruction sentence global, the others not), since
the recognizer scores a message both whole and sentence by sentence. The regularization and the
threshold are chosen by grouped cross-validation: folds never split a template family, so the
scores are those of families the fold's model never saw. The threshold maximizes F1 on the
out-of-fold scores of whole messages (``BETA``; precision and recall of 0.90 alike are asked).
The test half is never read here.

Example:
    >>> model, report = train_multilingual(load_hard_set())
    >>> model.save("rea_core/data/recognizer_multilingual.json")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..recognizer.default import LabeledInput
from ..recognizer.hard_set import HardInput
from ..recognizer.labels import GLOBAL
from ..recognizer.lexicons import LANGS
from ..recognizer.multilingual import WordClassRecognizer, features, fit_multilingual_features
from ..recognizer.recognize import WORD_CLASS_MAX_WORDS
from ..recognizer.sentences import split_message
from .recognizer import CV_FOLDS

C_GRID = (0.3, 1.0, 3.0, 10.0)
THRESHOLD_GRID = np.round(np.arange(0.2, 0.801, 0.025), 3)
# The English model adds to a recognizer that is right on the label set: only confident scores may.
ENGLISH_THRESHOLD_GRID = np.round(np.concatenate([np.arange(0.8, 0.99, 0.025), [0.99, 0.995, 0.998, 0.999]]), 3)
LABEL_SET_FAMILY = "label-set:"  # family prefix of the units taken from the embedding model's label set
# F1, not the English stage's F2: with F2 the threshold fell to 0.25 and out-of-fold precision to
# 0.91 on the dev half (recall 0.99); precision and recall of 0.90 alike are asked.
BETA = 1.0


@dataclass(frozen=True)
class Unit:
    """One text the model learns from: a whole message, or one sentence of a message (``message``: its row)."""

    text: str
    lang: str
    is_global: bool
    family: str
    whole: bool
    message: int = 0


def training_units(rows: Sequence[HardInput], langs: Sequence[str] = LANGS) -> list[Unit]:
    """Units of the dev rows in ``langs`` (default ``lexicons.LANGS``): each message whole, and the
    sentences of a mixed message (its instruction sentences global) or of a message that is not global."""
    units = []
    for n, r in enumerate(rows):
        if r.split != "dev" or r.lang not in langs:
            continue
        units.append(Unit(r.text, r.lang, r.label == GLOBAL, r.family, True, n))
        if r.label == GLOBAL and r.kind != "mixed":
            continue  # which of its sentences carry the wish is not labeled
        sentences = split_message(r.text)
        if len(sentences) > 1:
            instruction = r.instruction or ""
            units += [Unit(s, r.lang, s in instruction, r.family, False, n) for s in sentences]
    return units


def message_decisions(
    units: Sequence[Unit],
    scores: np.ndarray,
    threshold: float,
    sentence_threshold: float,
    already: dict[int, bool] | None = None,
):
    """Per message (in order of its whole unit): (gold global, predicted global), as the recognizer decides:
    global when the whole message reaches ``threshold`` or one of its sentences ``sentence_threshold``, or
    when the rest of the recognizer ``already`` calls it global (the English model only adds to it)."""
    gold: dict[int, bool] = {}
    pred: dict[int, bool] = {}
    for u, s in zip(units, scores):
        if u.whole:
            gold[u.message] = u.is_global
        hit = s >= (threshold if u.whole else sentence_threshold)
        pred[u.message] = pred.get(u.message, bool(already and already.get(u.message))) or bool(hit)
    return [(gold[m], pred[m]) for m in gold]


def _out_of_fold(units: Sequence[Unit], c: float, seed: int, X: np.ndarray | None = None) -> np.ndarray:
    """Out-of-fold P(global) of every unit (folds never split a family); ``X``: its features, if computed."""
    from sklearn.model_selection import StratifiedGroupKFold

    X = features([u.text for u in units], [u.lang for u in units]) if X is None else X
    y = np.array([u.is_global for u in units])
    scores = np.zeros(len(units))
    folds = StratifiedGroupKFold(n_splits=CV_FOLDS, shuffle=True, random_state=seed)
    for train_idx, test_idx in folds.split(X, y, groups=[u.family for u in units]):
        model = fit_multilingual_features(X[train_idx], y[train_idx], c)
        scores[test_idx] = model.p_global_features(X[test_idx])
    return scores


def _pr(decisions: Sequence[tuple[bool, bool]]) -> tuple[float, float]:
    tp = sum(g and p for g, p in decisions)
    predicted, positives = sum(p for _, p in decisions), sum(g for g, _ in decisions)
    return (tp / predicted if predicted else 0.0), (tp / positives if positives else 0.0)


def _best_thresholds(
    units: Sequence[Unit],
    scores: np.ndarray,
    already: dict[int, bool] | None = None,
    grid: np.ndarray = THRESHOLD_GRID,
    *,
    allowed_false_alarms: int = 0,
) -> tuple[float, float, float]:
    """(F-beta, threshold, sentence threshold) with the best per-message F-beta on a grid; ties go higher.

    Vectorized ``message_decisions``: per message its whole score and its best sentence score.
    ``already``: messages the rest of the recognizer already calls global (the English model only adds to it);
    then a grid point that adds more than ``allowed_false_alarms`` on label-set messages (``LABEL_SET_FAMILY``)
    is skipped.
    """
    messages = sorted({u.message for u in units})
    index = {m: k for k, m in enumerate(messages)}
    gold = np.zeros(len(messages), dtype=bool)
    whole = np.full(len(messages), -1.0)
    best_sentence = np.full(len(messages), -1.0)
    for u, s in zip(units, scores):
        k = index[u.message]
        if u.whole:
            gold[k], whole[k] = u.is_global, s
        else:
            best_sentence[k] = max(best_sentence[k], s)
    before = np.array([bool(already and already.get(m)) for m in messages])
    # messages of the embedding model's label set: the English model may add at most allowed_false_alarms there
    guarded = np.zeros(len(messages), dtype=bool)
    for u in units:
        guarded[index[u.message]] |= u.family.startswith(LABEL_SET_FAMILY)
    best = (-1.0, 1.0, 1.0) if already else (-1.0, 0.5, 0.5)  # 1.0: no grid point keeps the guard, in effect never
    for threshold in grid:
        for sentence_threshold in grid:
            pred = before | (whole >= threshold) | (best_sentence >= sentence_threshold)
            if (pred & ~before & ~gold & guarded).sum() > allowed_false_alarms:
                continue
            tp, predicted, positives = (pred & gold).sum(), pred.sum(), gold.sum()
            p, r = (tp / predicted if predicted else 0.0), (tp / positives if positives else 0.0)
            f = (1 + BETA**2) * p * r / (BETA**2 * p + r) if p + r else 0.0
            if f >= best[0]:
                best = (float(f), float(threshold), float(sentence_threshold))
    return best


def train_multilingual(
    rows: Sequence[HardInput], *, seed: int = 0, progress: Callable[[str], None] = print
) -> tuple[WordClassRecognizer, dict[str, Any]]:
    """Fit the fr/de/es/it/pt model on the dev half with C and the thresholds chosen by grouped CV.

    Raises:
        InputError: no dev rows in the covered languages, or only one label among them.
    """
    units = training_units(rows)
    if len({u.is_global for u in units}) < 2:
        raise InputError("the multilingual stage 2 needs global and non-global dev rows in fr/de/es/it/pt")
    model = _train(units, LANGS, C_GRID, THRESHOLD_GRID, seed, progress)
    model.provenance = {
        "trained_on": "rea_core/data/recognizer_hard.jsonl, dev half, fr/de/es/it/pt",
        **model.provenance,
    }
    return model, model.provenance


def label_set_units(rows: Sequence[LabeledInput], first_message: int) -> list[Unit]:
    """Units of a label set's train split, as English chat messages of at most WORD_CLASS_MAX_WORDS words:
    each whole, and the sentences of one that is not global (none of them is)."""
    units = []
    for n, r in enumerate(rows, first_message):
        if r.split != "train" or len(r.text.split()) > WORD_CLASS_MAX_WORDS:
            continue
        units.append(Unit(r.text, "en", r.label == GLOBAL, f"{LABEL_SET_FAMILY}{r.group}", True, n))
        sentences = split_message(r.text) if r.label != GLOBAL else []
        if len(sentences) > 1:
            units += [Unit(s, "en", False, f"{LABEL_SET_FAMILY}{r.group}", False, n) for s in sentences]
    return units


def english_units(hard_rows: Sequence[HardInput], label_rows: Sequence[LabeledInput]) -> list[Unit]:
    """The English second opinion's units: the hard set's English dev rows and the label set's train split,
    messages of at most WORD_CLASS_MAX_WORDS words (the longer ones it never reads)."""
    units = [
        u for u in training_units(hard_rows, ("en",)) if len(hard_rows[u.message].text.split()) <= WORD_CLASS_MAX_WORDS
    ]
    return units + label_set_units(label_rows, len(hard_rows))


def _train(
    units: Sequence[Unit],
    langs: Sequence[str],
    c_grid: Sequence[float],
    grid: np.ndarray,
    seed: int,
    progress: Callable[[str], None],
) -> WordClassRecognizer:
    """Fit on the word classes of ``units`` with C and both thresholds chosen by grouped cross-validation
    (per-message F1)."""
    X = features([u.text for u in units], [u.lang for u in units])  # once: the word classes are the slow part
    best = None  # (F-beta, c, threshold, sentence threshold, out-of-fold scores of all units)
    for n, c in enumerate(c_grid, 1):
        oof = _out_of_fold(units, c, seed, X)
        f, threshold, sentence_threshold = _best_thresholds(units, oof, None, grid)
        p, r = _pr(message_decisions(units, oof, threshold, sentence_threshold))
        progress(
            f"[{n}/{len(c_grid)}] C={c:g}: out-of-fold P {p:.3f} R {r:.3f} per message at thresholds "
            f"{threshold:.3f} (whole) / {sentence_threshold:.3f} (sentence)"
        )
        if best is None or f > best[0]:
            best = (f, c, threshold, sentence_threshold, oof)
    _, c, threshold, sentence_threshold, oof = best
    model = fit_multilingual_features(X, [u.is_global for u in units], c)
    model.threshold, model.sentence_threshold = threshold, sentence_threshold
    by_lang = {}
    for lang in langs:
        idx = [i for i, u in enumerate(units) if u.lang == lang]
        chosen = [units[i] for i in idx]
        p, r = _pr(message_decisions(chosen, oof[idx], threshold, sentence_threshold))
        by_lang[lang] = {"n": sum(u.whole for u in chosen), "precision": round(p, 4), "recall": round(r, 4)}
    p, r = _pr(message_decisions(units, oof, threshold, sentence_threshold))
    model.provenance = {
        "rows": sum(u.whole for u in units),
        "units": len(units),
        "families": len({u.family for u in units}),
        "c": c,
        "threshold": threshold,
        "sentence_threshold": sentence_threshold,
        "cv": {"precision": round(p, 4), "recall": round(r, 4), "by_language": by_lang},
    }
    progress(f"chosen C={c:g}, threshold {threshold:.3f}: out-of-fold P {p:.3f} R {r:.3f}")
    return model
