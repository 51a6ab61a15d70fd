"""Stage 2 for French, German, Spanish, Italian and Portuguese: a classifier on word classes.

The English stage 2 reads MiniLM embeddings, which carry no meaning in these languages, and no
multilingual encoder installs offline here. So a message that langdetect reads as one of these
languages is decided by logistic regression over language-independent features: which closed
word classes of ``lexicons.py`` fire in it (persistence, frequency, reply scope, second person,
imperative, request frame, keep-in-mind, first-person state, one-off, self statement, ...), the
addressee frame of ``addressee.py``, a question mark, and the pairwise products of those flags (a
first-person state *and* a keep-in-mind is a standing fact; either alone is not). The weights are
fitted on the hard set's dev half (scripts/train_multilingual_recognizer.py, thresholds by grouped
cross-validation over template families) and ship as ``rea_core/data/recognizer_multilingual.json``.

The rule stage never decides alone in these languages: every such input comes here.

The same model class, with an embedding before the English word classes, is the English second
opinion (``ENGLISH_MODEL``, stage "word-classes" in ``recognize.py``): the embedding is MiniLM's with a
LoRA adapter fine-tuned for the task (``adapter``); trained on the hard set's English dev rows and the
embedding stage 2's own label set, it may add a global verdict where that stage scores an English
message low (``training/english_adapter.py``).

Example:
    >>> model = load_multilingual()
    >>> model.p_global(["Désormais, réponds-moi toujours en français."], "fr")
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .addressee import content_frame
from .lexicons import CLASSES, LANGS, class_spans

if TYPE_CHECKING:
    from ..backends.base import Embedder

MULTILINGUAL_MODEL = "recognizer_multilingual.json"
ENGLISH_MODEL = "recognizer_english_word_classes.json"  # the English second opinion (``recognize.py``)
ADAPTER_MAX_TOKENS = 128  # what the adapted encoder reads, in training and use alike
FLAG_NAMES = (*CLASSES, "content_frame", "question")
_PAIRS = tuple(combinations(range(len(FLAG_NAMES)), 2))
FEATURE_NAMES = (*FLAG_NAMES, *(f"{FLAG_NAMES[a]}*{FLAG_NAMES[b]}" for a, b in _PAIRS))
# Classes whose spans are the "standing" cues an addressee frame can make content ("a rule that from now on ...").
_STANDING = ("persistence", "frequency", "reply_scope")


def flags(text: str, lang: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """(len(FLAG_NAMES),) 0/1 flags of ``text`` read as ``lang``, and the names of those that fired."""
    found = class_spans(text, lang)
    frame = content_frame(text, [s for name in _STANDING for s in found.get(name, [])])
    on = [name in found for name in CLASSES] + [frame is not None, "?" in text]
    names = tuple(name for name, is_on in zip(FLAG_NAMES, on) if is_on)
    if frame is not None:
        names = (*[n for n in names if n != "content_frame"], f"frame:{frame}")
    return np.asarray(on, dtype=np.float64), names


def features(texts: Sequence[str], lang: str | Sequence[str]) -> np.ndarray:
    """(n, len(FEATURE_NAMES)): the flags of each text, then their pairwise products."""
    langs = [lang] * len(texts) if isinstance(lang, str) else list(lang)
    F = np.stack([flags(t, lg)[0] for t, lg in zip(texts, langs)]) if texts else np.zeros((0, len(FLAG_NAMES)))
    pairs = np.stack([F[:, a] * F[:, b] for a, b in _PAIRS], axis=1) if len(F) else np.zeros((0, len(_PAIRS)))
    return np.hstack([F, pairs])


@dataclass
class WordClassRecognizer:
    """Logistic regression over ``FEATURE_NAMES`` (after a sentence embedding, when ``embedder_name``);
    ``p_global`` is its stage-2 score.

    Attributes:
        coef: (n_embedding + len(FEATURE_NAMES),) weights: the embedding's dims first, if any.
        intercept: The bias.
        threshold: P(global) at or above which it says global of a whole message.
        sentence_threshold: The same for one sentence of a message of several (chosen per message, with
            ``threshold``, by the training's cross-validation).
        provenance: Training rows, languages, regularization and cross-validated metrics.
        languages: The languages it was trained on (the word classes are read in the text's language).
        embedder_name: The embedder whose unit vectors precede the word classes ("" for none: the
            multilingual model, since MiniLM is an English model).
        adapter: A LoRA adapter folder fine-tuned on that embedder (``training/english_adapter.py``): the
            vectors are then the adapted encoder's (``encoder()``), not the shared embedder's. The JSON
            records it relative to its own folder.
    """

    coef: np.ndarray
    intercept: float
    threshold: float = 0.5
    sentence_threshold: float = 0.5
    provenance: dict[str, Any] = field(default_factory=dict)
    languages: tuple[str, ...] = LANGS
    embedder_name: str = ""
    adapter: str = ""

    @property
    def n_embedding(self) -> int:
        return len(self.coef) - len(FEATURE_NAMES)

    def encoder(self) -> "Embedder":
        """The adapted encoder whose vectors this model reads (loaded once per process)."""
        if not self.adapter:
            from ..errors import InputError

            raise InputError("this word-class model has no adapter: it reads the shared embedder's vectors")
        return adapter_encoder(self.embedder_name, self.adapter)

    def p_global(
        self, texts: Sequence[str], lang: str | Sequence[str], embeddings: np.ndarray | None = None
    ) -> np.ndarray:
        """(n,) P(global) of ``texts``, each read as ``lang`` (one code for all, or one per text);
        ``embeddings``: their (n, dim) unit vectors from ``embedder_name``, which a model with one needs."""
        X = features(texts, lang)
        if self.n_embedding:
            if embeddings is None or embeddings.shape != (len(texts), self.n_embedding):
                from ..errors import InputError

                raise InputError(f"this word-class model also reads {self.embedder_name!r} embeddings of the texts")
            X = np.hstack([embeddings, X])
        return self.p_global_features(X)

    def p_global_features(self, X: np.ndarray) -> np.ndarray:
        """(n,) P(global) of precomputed (n, n_embedding + len(FEATURE_NAMES)) inputs."""
        return 1.0 / (1.0 + np.exp(-(X @ self.coef + self.intercept)))

    def to_dict(self, folder: str | Path | None = None) -> dict[str, Any]:
        """The JSON form; ``folder``: where it is written (an adapter is recorded relative to it)."""
        return {
            "kind": "logreg-word-classes",
            "features": list(FEATURE_NAMES),
            "languages": list(self.languages),
            "embedder_name": self.embedder_name,
            "adapter": os.path.relpath(self.adapter, folder) if self.adapter and folder else self.adapter,
            "coef": [round(float(w), 6) for w in self.coef],
            "intercept": round(float(self.intercept), 6),
            "threshold": self.threshold,
            "sentence_threshold": self.sentence_threshold,
            "provenance": self.provenance,
        }

    def save(self, path: str | Path) -> None:
        text = json.dumps(self.to_dict(Path(path).resolve().parent), indent=1, ensure_ascii=False)
        Path(path).write_text(text + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: dict[str, Any], folder: str | Path | None = None) -> "WordClassRecognizer":
        from ..errors import DataFormatError

        if data.get("features") != list(FEATURE_NAMES):
            raise DataFormatError("word-class recognizer: its features are not this version's; retrain it")
        model = cls(
            np.asarray(data["coef"], dtype=np.float64),
            float(data["intercept"]),
            float(data["threshold"]),
            float(data.get("sentence_threshold", data["threshold"])),
            data.get("provenance", {}),
            tuple(data.get("languages", LANGS)),
            str(data.get("embedder_name", "")),
            str(Path(folder or ".") / data["adapter"]) if data.get("adapter") else "",
        )
        if model.n_embedding < 0 or bool(model.n_embedding) != bool(model.embedder_name):
            raise DataFormatError(f"word-class recognizer: {len(model.coef)} weights do not fit its features")
        return model


def fit_multilingual(
    texts: Sequence[str], langs: Sequence[str], is_global: Sequence[bool], c: float, threshold: float = 0.5
) -> WordClassRecognizer:
    """Fit the weights (L2-regularized logistic regression, balanced classes) on labeled texts."""
    return fit_multilingual_features(features(texts, langs), is_global, c, threshold)


def fit_multilingual_features(
    X: np.ndarray, is_global: Sequence[bool], c: float, threshold: float = 0.5
) -> WordClassRecognizer:
    """``fit_multilingual`` on precomputed features (cross-validation computes them once)."""
    from sklearn.linear_model import LogisticRegression

    y = np.asarray(is_global, dtype=int)
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(X, y)
    return WordClassRecognizer(model.coef_[0].copy(), float(model.intercept_[0]), threshold)


@lru_cache(maxsize=2)
def load_word_classes(name: str = MULTILINGUAL_MODEL) -> WordClassRecognizer:
    """A shipped word-class model: the multilingual stage 2 (default) or the English one (``ENGLISH_MODEL``)."""
    from .default import data_path

    path = data_path(name)
    return WordClassRecognizer.from_dict(json.loads(path.read_text(encoding="utf-8")), path.parent)


@lru_cache(maxsize=2)
def adapter_encoder(embedder_name: str, adapter: str) -> "Embedder":
    """``embedder_name``'s encoder (the packaged MiniLM by its name) with the LoRA adapter folder merged in."""
    from ..backends.packaged import PACKAGED, PACKAGED_EMBEDDER_NAME
    from ..backends.sentence import SentenceEmbedder

    spec = PACKAGED if embedder_name == PACKAGED_EMBEDDER_NAME else embedder_name
    return SentenceEmbedder.load_with_adapter(spec, adapter, max_tokens=ADAPTER_MAX_TOKENS)


def load_multilingual() -> WordClassRecognizer:
    """The shipped multilingual stage 2 (``rea_core/data/recognizer_multilingual.json``)."""
    return load_word_classes(MULTILINGUAL_MODEL)
