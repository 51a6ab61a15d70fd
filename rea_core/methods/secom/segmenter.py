"""Conversation topic segmentation for SeCom (SeCom paper, "Conversation Segmentation").

A segmentation of turns ``first..last`` is a list of inclusive ``(start, end)`` spans that covers
every turn exactly once and in order (``p_{k+1} = q_k + 1``). Two segmenters:

* **zero-shot LLM** (the paper's GPT-4-Seg on the configured model): the turns are shown with their
  turn index and role tags (``Turn j:``, ``[user]``, ``[agent]``) and the model answers one
  ``start-end`` line per segment (``prompts/secom_segment.md``);
* **embedding** (the offline fallback for small models): a turn opens a new segment when the cosine
  between its embedding and the mean embedding of the current segment falls below a threshold.

Fallback rule: when the LLM's answer does not parse into a valid segmentation (no spans, a gap,
an overlap, a turn out of range), the embedding segmenter decides instead and the result carries
a note saying so, which the prompt view shows. The chat never breaks on a bad answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...errors import REAError
from ...templates import fill, load_template

Span = tuple[int, int]  # inclusive (first turn, last turn)
_PAIR = re.compile(r"(\d+)\s*(?:-|–|—|to|\.\.)\s*(\d+)")
_SINGLE = re.compile(r"^\W*(?:segment\s*\d+\s*:)?\s*(?:turns?\s*)?(\d+)\W*$", re.IGNORECASE)


class SegmentParseError(REAError):
    """The segmenter's answer is not a valid segmentation; the message says why."""


def format_turns(turns: Sequence[tuple[str, str]], first: int, max_words: int = 60) -> str:
    """Turns with index and role tags, as the zero-shot segmenter reads them."""

    def clip(text: str) -> str:
        words = text.split()
        return " ".join(words[:max_words]) + (" ..." if len(words) > max_words else "")

    return "\n".join(f"Turn {first + i}:\n[user]: {clip(u)}\n[agent]: {clip(r)}" for i, (u, r) in enumerate(turns))


def validate_spans(spans: Sequence[Span], first: int, last: int) -> list[Span]:
    """``spans`` if they cover ``first..last`` exactly once and in order, else SegmentParseError."""
    if not spans:
        raise SegmentParseError("no segment found in the answer")
    expected = first
    for start, end in spans:
        if start != expected:
            raise SegmentParseError(f"segment {start}-{end} should start at turn {expected} (gap or overlap)")
        if end < start:
            raise SegmentParseError(f"segment {start}-{end} ends before it starts")
        expected = end + 1
    if expected != last + 1:
        raise SegmentParseError(f"segments end at turn {expected - 1}, the conversation at turn {last}")
    return [(int(s), int(e)) for s, e in spans]


def parse_segments(answer: str, first: int, last: int) -> list[Span]:
    """Parse a segmenter answer: ``start-end`` lines (also ``a to b``, ``Turn a-b``, a lone ``a``)
    or SeCom-style JSON (``{"segments": [{"start_exchange_number": a, "end_exchange_number": b}]}``).

    Raises:
        SegmentParseError: nothing parseable, or the spans are not a valid segmentation.
    """
    spans: list[Span] = []
    text = answer.strip()
    if text.startswith("{") or text.startswith("["):
        try:
            data = json.loads(text)
            items = data.get("segments", []) if isinstance(data, dict) else data
            for item in items:
                keys = [k for k in item if "start" in k], [k for k in item if "end" in k]
                spans.append((int(item[keys[0][0]]), int(item[keys[1][0]])))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            spans = []
    if not spans:
        for line in text.splitlines():
            pair = _PAIR.search(line)
            if pair:
                spans.append((int(pair.group(1)), int(pair.group(2))))
                continue
            single = _SINGLE.match(line.strip())
            if single:
                n = int(single.group(1))
                spans.append((n, n))
    # a model often repeats or runs past the last turn: keep the spans up to the one ending at ``last``
    for i, (_, end) in enumerate(spans):
        if end == last:
            spans = spans[: i + 1]
            break
    return validate_spans(spans, first, last)


def embedding_segments(vectors: np.ndarray, threshold: float, first: int = 0) -> list[Span]:
    """Greedy embedding segmentation of unit-norm turn vectors (N, dim).

    Turn i opens a new segment when cos(v_i, mean of the current segment's vectors) < threshold.
    """
    n = len(vectors)
    if n == 0:
        return []
    spans: list[Span] = []
    start, total = 0, vectors[0].astype(np.float64).copy()  # (dim,) running sum of the open segment
    for i in range(1, n):
        centroid = total / (np.linalg.norm(total) or 1.0)
        if float(vectors[i] @ centroid) < threshold:
            spans.append((first + start, first + i - 1))
            start, total = i, vectors[i].astype(np.float64).copy()
        else:
            total += vectors[i]
    spans.append((first + start, first + n - 1))
    return spans


def boundaries(spans: Sequence[Span]) -> list[int]:
    """The turn indices that open a segment, except the first: the form the metrics compare."""
    return [start for start, _ in spans[1:]]


@dataclass(frozen=True)
class Segmentation:
    spans: tuple[Span, ...]
    method: str  # "llm" or "embedding"
    note: str = ""  # set when the LLM answer did not parse and the embedding rule decided


class TopicSegmenter:
    """Segments turns with the zero-shot LLM (falling back to embeddings) or embeddings alone.

    Args:
        generator: the backbone (``Generator``), for the zero-shot segmenter.
        embedder: the sentence embedder (``Embedder``), for the fallback.
        mode: "llm" or "embedding".
        threshold: cosine threshold of the embedding segmenter.
    """

    def __init__(self, generator, embedder, *, mode: str = "llm", threshold: float = 0.15):
        self.generator, self.embedder, self.mode, self.threshold = generator, embedder, mode, threshold

    def by_embedding(self, turns: Sequence[tuple[str, str]], first: int) -> list[Span]:
        vectors = self.embedder.encode([f"{u}\n{r}" for u, r in turns])  # (N, dim)
        return embedding_segments(vectors, self.threshold, first)

    def by_llm(self, turns: Sequence[tuple[str, str]], first: int) -> list[Span]:
        """Raises SegmentParseError when the answer is not a valid segmentation."""
        last = first + len(turns) - 1
        prompt = fill(
            load_template("secom_segment"), conversation=format_turns(turns, first), first=str(first), last=str(last)
        )
        answer = self.generator.generate([{"role": "user", "content": prompt}], max_new_tokens=8 * len(turns) + 8).text
        try:
            return parse_segments(answer, first, last)
        except SegmentParseError as exc:
            raise SegmentParseError(f"{exc} (answer: {answer[:80]!r})") from exc

    def segment(self, turns: Sequence[tuple[str, str]], first: int = 0) -> Segmentation:
        if not turns:
            return Segmentation((), self.mode)
        if len(turns) == 1:
            return Segmentation(((first, first),), self.mode)
        if self.mode == "llm":
            try:
                return Segmentation(tuple(self.by_llm(turns, first)), "llm")
            except SegmentParseError as exc:
                note = (
                    f"LLM segmenter output for turns {first}-{first + len(turns) - 1} "
                    f"did not parse ({exc}); the embedding segmenter decided."
                )
                return Segmentation(tuple(self.by_embedding(turns, first)), "embedding", note)
        return Segmentation(tuple(self.by_embedding(turns, first)), "embedding")
