"""Queue modes that find the recognizer's errors, and per-source metrics (REA paper, D.1-D.3).

A missed global instruction is the costliest recognizer error (D.3), and the gate of stage 1
stops inputs with no model, so nobody sees those misses unless someone looks for them:

* "likely missed": inputs stage 1 stopped as not global, but the trained classifier alone
  scores at or above its threshold; most likely first.
* "likely false alarm": inputs the recognizer would put into Instructional Memory, but whose
  most likely class by the classifier is task or ordinary; least global first.

Both need a recognizer with a trained stage 2 (the shipped default or a studio version). The
same module counts how many earlier misses a newly trained version catches, and the recall and
precision of the recognizer per label source, with the project's metric (``rea_core.recognizer.metrics``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from rea_core.recognizer import GLOBAL, OTHER, InstructionRecognizer, evaluate_recognizer, rule_stage

from . import store_items
from .store_items import QueueItem

DEFAULT, MISSED, FALSE_ALARM = "default", "likely missed", "likely false alarm"
QUEUE_MODES = (DEFAULT, MISSED, FALSE_ALARM)


@dataclass(frozen=True)
class Triaged:
    """A queue item with the classifier's P(global) and why it was picked."""

    item: QueueItem
    p_global: float
    reason: str


def _stage2(recognizer: InstructionRecognizer):
    if recognizer.trained is None or recognizer.embedder is None:
        raise ValueError(
            "queue modes need a recognizer with a trained stage 2 (the shipped default or a studio version)"
        )
    return recognizer.trained, recognizer.embedder


def likely_missed(items: Sequence[QueueItem], recognizer: InstructionRecognizer) -> list[Triaged]:
    """Items stage 1 stopped (not global, no model asked) that the classifier scores as global."""
    model, embedder = _stage2(recognizer)
    stopped = [it for it in items if rule_stage(it.text)[0] == OTHER]
    if not stopped:
        return []
    p = model.p_global([it.text for it in stopped], embedder)
    found = [
        Triaged(it, float(s), f"stage 1 stopped it; classifier P(global) {s:.2f}")
        for it, s in zip(stopped, p)
        if s >= model.threshold
    ]
    return sorted(found, key=lambda t: (-t.p_global, t.item.id))


def likely_false_alarms(items: Sequence[QueueItem], recognizer: InstructionRecognizer) -> list[Triaged]:
    """Items the recognizer would store as global whose most likely class is task or ordinary."""
    model, embedder = _stage2(recognizer)
    if not items:
        return []
    verdicts = recognizer.recognize_many([it.text for it in items])
    stored = [(it, v) for it, v in zip(items, verdicts) if v.label == GLOBAL]
    if not stored:
        return []
    proba = model.proba(model.features([it.text for it, _ in stored], embedder))  # (n, n_classes)
    out = []
    for (it, v), row in zip(stored, proba):
        best = model.classes[int(row.argmax())]
        if best != GLOBAL:
            p = float(row[model.classes.index(GLOBAL)]) if GLOBAL in model.classes else 0.0
            out.append(Triaged(it, p, f"entered IM by {v.stage}; looks {best} (P {row.max():.2f})"))
    return sorted(out, key=lambda t: (t.p_global, t.item.id))


def next_in_mode(db: Session, annotator: str, mode: str, recognizer: InstructionRecognizer) -> Triaged | None:
    """The annotator's next item in a triage mode (the default queue is ``store_items.next_item``)."""
    if mode not in (MISSED, FALSE_ALARM):
        raise ValueError(f"queue mode must be one of {QUEUE_MODES[1:]}; got {mode!r}")
    items = store_items.open_items(db, annotator)
    found = likely_missed(items, recognizer) if mode == MISSED else likely_false_alarms(items, recognizer)
    return found[0] if found else None


def missed_globals(recognizer: InstructionRecognizer, texts: Sequence[str]) -> list[str]:
    """The global-labeled ``texts`` the recognizer does not store."""
    return [t for t, v in zip(texts, recognizer.recognize_many(list(texts))) if v.label != GLOBAL]


def caught_misses(
    before: InstructionRecognizer, after: InstructionRecognizer, global_texts: Sequence[str]
) -> tuple[int, int]:
    """(globals ``before`` missed, how many of them ``after`` stores): what a new version fixed."""
    missed = missed_globals(before, global_texts)
    return len(missed), len(missed) - len(missed_globals(after, missed)) if missed else 0


def metrics_by_source(
    recognizer: InstructionRecognizer, rows: Sequence[tuple[str, str, str]]
) -> dict[str, dict[str, Any]]:
    """Recall and precision of the class global per label source, from (text, final label, source) rows."""
    out = {}
    for source in sorted({s for _, _, s in rows}):
        part = [(t, lab) for t, lab, s in rows if s == source]
        out[source] = evaluate_recognizer(recognizer, [t for t, _ in part], [lab for _, lab in part])
    return out
