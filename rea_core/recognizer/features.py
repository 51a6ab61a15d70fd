"""Lexical features beside the sentence embedding, for the trained recognizer stage 2.

Why: a MiniLM sentence embedding says what an input is *about* (French, tone, a pirate) far more
than how long the wish should *last*; "For this answer only, reply in French" and "From now on,
reply in French" sit close together. Scope is carried by a few words, so the classifier also
sees (a) which stage-1 cue families fired (the recognizer's own regexes, so stage 1 and stage 2
read the same cues) plus one-off markers and a question mark, and (b) hashed word uni- and
bigrams (scikit-learn's ``HashingVectorizer``: no vocabulary to store, the same hash everywhere).

Pure: no model, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .gate import GATE_FAMILIES
from .rules import CONSTRAINT_CUES, DIRECTIVE_CUES, PERSISTENCE_CUES, matching

# Wording that ties a constraint to one reply: the counterpart of the persistence cues.
ONE_OFF_CUES = re.compile(
    r"\b(this (one|answer|reply|response|time|question|request|email"
    r"|text)|just this once|(your |the )?next (reply|answer|response)|"
    r"only for this|for this|in this (reply|answer|response)|below|following (text|paragraph|sentence))\b",
    re.IGNORECASE,
)
CUE_NAMES = (*GATE_FAMILIES, "persistence", "directive", "constraint", "one_off", "question")


def cue_flags(texts: Sequence[str]) -> np.ndarray:
    """(n, len(CUE_NAMES)) 0/1 flags: which cue families occur in each text."""
    rows = []
    for text in texts:
        flags = [bool(rx.search(text)) for rx in GATE_FAMILIES.values()]
        flags += [
            bool(matching(PERSISTENCE_CUES, text)),
            bool(matching(DIRECTIVE_CUES, text)),
            bool(matching(CONSTRAINT_CUES, text)),
            bool(ONE_OFF_CUES.search(text)),
            text.strip().endswith("?"),
        ]
        rows.append(flags)
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(CUE_NAMES))


def hashed_ngrams(texts: Sequence[str], n_features: int) -> np.ndarray:
    """(n, n_features) L2-normalized counts of hashed lowercase word uni- and bigrams."""
    from sklearn.feature_extraction.text import HashingVectorizer

    vectorizer = HashingVectorizer(
        n_features=n_features, ngram_range=(1, 2), alternate_sign=False, norm="l2", lowercase=True
    )
    return vectorizer.transform(list(texts)).toarray()


def lexical_features(texts: Sequence[str], n_hash: int) -> np.ndarray:
    """(n, len(CUE_NAMES) + n_hash): the cue flags, then the hashed n-grams."""
    return np.hstack([cue_flags(texts), hashed_ngrams(texts, n_hash)])
