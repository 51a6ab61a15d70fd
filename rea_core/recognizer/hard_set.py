"""The hard recognizer set: messages as people send them, labeled per row with its kind.

``rea_core/data/recognizer_hard.jsonl`` (documented in docs/recognizer_hard_set.md) holds
hand-written inputs in template families, each family wholly in the ``dev`` or the ``test`` half.
Besides the fields of every label set (``text``, ``label``, ``split``), a row names its ``family``,
``lang`` (en, fr, de, es, it, pt) and ``kind``:

* ``mixed``: a question or task and a standing instruction in one message (global);
* ``object``: instruction-like words the user wants written, translated, summarized, quoted or
  drafted, or a rule for third parties (task);
* ``lang``: a standing instruction in another language (global), or its one-off counterpart (task);
* ``fact``: a standing user fact that constrains later answers (global);
* ``cue``: an ordinary message with cue words ("from now on I'm trying to...") (ordinary);
* ``plain``: a plain standing instruction in English (global).

A global row also gives ``instruction``: the exact sentence(s) of its text that Instructional
Memory should store (the instruction sentence(s) of a mixed message, else the whole text).

Example:
    >>> rows = load_hard_set()
    >>> test = [r for r in rows if r.split == "test"]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..conversations import read_jsonl
from ..errors import DataFormatError
from .default import data_path, load_label_set
from .labels import GLOBAL

HARD_SET = "recognizer_hard.jsonl"
KINDS = ("mixed", "object", "lang", "fact", "cue", "plain")
LANGS = ("en", "fr", "de", "es", "it", "pt")
HALVES = ("dev", "test")


@dataclass(frozen=True)
class HardInput:
    """One row of the hard set; ``instruction`` is None unless the label is global."""

    id: str
    text: str
    label: str
    family: str
    split: str
    lang: str
    kind: str
    instruction: str | None = None


def hard_set_path() -> Path:
    return data_path(HARD_SET)


def load_hard_set(path: str | Path | None = None) -> list[HardInput]:
    """Rows of the hard set, checked: the label-set fields (``load_label_set``), a split in ``HALVES``,
    a known kind and language, and for a global row an ``instruction`` found verbatim in its text.

    Raises:
        DataFormatError: naming the line of a bad row, or a family or text found in both halves.
    """
    path = hard_set_path() if path is None else Path(path)
    load_label_set(path)  # the same text/label checks as every label set
    rows, halves, texts = [], {}, {}
    for where, r in read_jsonl(path, what="labeled rows"):
        if r.get("split") not in HALVES or r.get("kind") not in KINDS or r.get("lang") not in LANGS:
            raise DataFormatError(f'{where}: needs "split" in {HALVES}, "kind" in {KINDS} and "lang" in {LANGS}')
        family = r.get("family")
        if not isinstance(family, str) or not family:
            raise DataFormatError(f'{where}: needs a "family"')
        if halves.setdefault(family, r["split"]) != r["split"]:
            raise DataFormatError(f"{where}: family {family!r} is in both the dev and the test half")
        if texts.setdefault(r["text"], r["split"]) != r["split"]:
            raise DataFormatError(f"{where}: the same text is in both the dev and the test half")
        instruction = r.get("instruction")
        if r["label"] == GLOBAL and (not isinstance(instruction, str) or instruction not in r["text"]):
            raise DataFormatError(f'{where}: a global row needs an "instruction" that is part of its text')
        rows.append(
            HardInput(
                str(r.get("id") or where),
                r["text"],
                r["label"],
                family,
                r["split"],
                r["lang"],
                r["kind"],
                instruction if r["label"] == GLOBAL else None,
            )
        )
    return rows
