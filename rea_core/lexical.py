"""Incremental BM25 over stored exchanges, with a query-normalized score for HCR thresholds.

Why our own index and not ``bm25s``: HCR adds one exchange per turn and scores every query over
all of them, so the index must grow by appending (bm25s re-indexes the corpus). Postings are
append-only per term; document frequencies and lengths are kept as counts, so IDF and length
normalization always reflect the current memory. Scoring a query touches only the postings of
its terms (a few numpy gathers).

``normalized`` divides BM25 by the score an ideal document would reach for the same query (every
query term present and saturated, average length): a number in [0, 1] that means "how much of
the query's weight this exchange carries" and does not depend on the other exchanges' scores,
so the same thresholds keep their meaning as memory grows.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from functools import lru_cache
from typing import Iterable

import numpy as np

# Lucene's English stop words plus conversational fillers; a query made only of these scores 0.
STOPWORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their then there these
    they this to was will with i me my you your we our he she him her his its them do does did so what when
    where which who whom how why can could would should shall may might must have has had am were been being
    just about also than too very from up out over again any all both each few more most other some own same
    only here s t don now let lets ok okay yes yeah oh""".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


_SUFFIXES = ("'s", "ies", "sses", "ing", "edly", "ed", "ly", "es", "s")  # tried in this order


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    """Light English suffix stripping (plural, -ing, -ed, -ly): enough to match 'paintings' with 'painted'."""
    for suffix in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < 3:
            continue
        if suffix == "ies":
            return word[:-3] + "y"
        if suffix == "sses":
            return word[:-2]  # 'classes' -> 'class'
        if suffix == "es" and not word[:-2].endswith(("sh", "ch", "x", "z", "s")):
            return word[:-1]  # 'names' -> 'name', while 'boxes' -> 'box'
        if suffix == "s" and word.endswith("sss"):
            return word
        return word[: -len(suffix)]
    return word


def tokenize(text: str) -> list[str]:
    """Lowercased, stop words dropped, lightly stemmed terms."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


class BM25Index:
    """Append-only BM25 (Lucene variant, k1=1.2, b=0.75) over documents added in order."""

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self._postings: dict[str, tuple[list[int], list[int]]] = {}  # term -> (doc ids, term frequencies)
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # cached numpy views, dropped on change
        self._lengths: list[int] = []
        self._length_array: np.ndarray | None = None  # numpy view of _lengths, dropped on change
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, texts: Iterable[str]) -> None:
        for text in texts:
            doc = len(self._lengths)
            counts = Counter(tokenize(text))
            for term, tf in counts.items():
                docs, tfs = self._postings.setdefault(term, ([], []))
                docs.append(doc)
                tfs.append(tf)
                self._arrays.pop(term, None)
            length = sum(counts.values())
            self._lengths.append(length)
            self._total_length += length
        self._length_array = None

    def truncate(self, n_docs: int) -> None:
        """Keep the first ``n_docs`` documents (undo of a failed or removed turn)."""
        if n_docs >= len(self._lengths):
            return
        for term in list(self._postings):
            docs, tfs = self._postings[term]
            cut = bisect_left(docs, n_docs)  # doc ids are appended in order
            if cut < len(docs):
                del docs[cut:], tfs[cut:]
                self._arrays.pop(term, None)
                if not docs:
                    del self._postings[term]
        self._total_length -= sum(self._lengths[n_docs:])
        del self._lengths[n_docs:]
        self._length_array = None

    def _term_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        if term not in self._postings:
            return None
        if term not in self._arrays:
            docs, tfs = self._postings[term]
            self._arrays[term] = (np.asarray(docs, dtype=np.int64), np.asarray(tfs, dtype=np.float64))
        return self._arrays[term]

    def _idf(self, df: int) -> float:
        n = len(self._lengths)
        return float(np.log(1.0 + (n - df + 0.5) / (df + 0.5)))

    def scores(self, query: str) -> np.ndarray:
        """Raw BM25 of every document for ``query`` (N,)."""
        return self._scores(Counter(tokenize(query)))

    def normalized(self, query: str) -> np.ndarray:
        """BM25 / the best score any document could reach for this query: in [0, 1] (N,)."""
        terms = Counter(tokenize(query))
        raw = self._scores(terms)
        if not len(self._lengths):
            return raw
        # A term no exchange holds still counts in the ideal: a query about something never said scores low.
        ideal = sum(
            qtf * (self.k1 + 1.0) * self._idf(len(self._postings[t][0]) if t in self._postings else 0)
            for t, qtf in terms.items()
        )
        return np.clip(raw / ideal, 0.0, 1.0) if ideal > 0 else raw

    def _scores(self, terms: Counter) -> np.ndarray:
        n = len(self._lengths)
        out = np.zeros(n, dtype=np.float64)
        if not n:
            return out
        if self._length_array is None:
            self._length_array = np.asarray(self._lengths, dtype=np.float64)
        avgdl = max(self._total_length / n, 1e-9)
        for term, qtf in terms.items():
            arrays = self._term_arrays(term)
            if arrays is None:
                continue
            docs, tfs = arrays
            norm = self.k1 * (1.0 - self.b + self.b * self._length_array[docs] / avgdl)
            out[docs] += qtf * self._idf(len(docs)) * tfs * (self.k1 + 1.0) / (tfs + norm)
        return out
