"""HCR scores of every stored exchange for a new message (REA paper, section 3.4), as pure functions.

Episodes, the query (and any variants of it, such as a standalone rewrite), the embedder and only the
settings scoring reads go in; one score per exchange comes out. The strategy decides which variants
to ask for and what to do with the scores (``retrieval.hcr``): nothing here keeps state, and the
only model call is one ``embedder.encode`` of the query variants.

Dense scorers take the maximum pairwise cosine between the query's vectors and each exchange's units;
``hybrid`` fuses it with normalized BM25. A message that reads as a follow-up (``retrieval.followup``)
adds the referent prior, weighted by its follow-up probability, and may also be scored joined with
the previous user turns or inherit the previous turn's scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..backends.base import Embedder
from ..memory.episodic import EpisodicMemory
from .followup import carry_forward, follow_up_probability, follow_up_threshold, referent_prior
from .scoring import fuse, latent_units, max_pairwise_cosine, smooth_neighbors, unit_rows


@dataclass(frozen=True)
class HCRScoring:
    """What HCR scoring reads (``REAConfig.scoring`` builds it): the scorer and its weights."""

    scorer: str = "hybrid"
    dense_weight: float = 0.3
    neighbor_weight: float = 0.2
    context_turns: int = 0
    follow_up_decay: float = 0.0
    follow_up_prior: float = 0.2

    @property
    def unit_mode(self) -> str:
        """How Episodic Memory cuts exchanges into embedded units for this scorer."""
        return {"hybrid": "exchange", "exchange": "exchange", "sentence": "sentence"}.get(self.scorer, "units")


def score_exchanges(
    episodes: EpisodicMemory,
    query: str,
    embedder: Embedder,
    scoring: HCRScoring,
    *,
    variants: Sequence[str] = (),
) -> np.ndarray:
    """(n_exchanges,) scores of ``episodes`` for ``query``; the best of the query and its ``variants`` counts."""
    if not len(episodes):
        return np.zeros(0)
    probability = follow_up_probability(query)  # graded: how much the message leans on earlier turns
    follow_up = bool(query.split()) and probability >= follow_up_threshold()
    exchanges = episodes.exchanges
    previous_users = (
        [ex.user for ex in exchanges[-scoring.context_turns :]] if scoring.context_turns and follow_up else []
    )
    queries = [query] + (["\n".join(previous_users + [query])] if previous_users else []) + list(variants)
    n_variants = len(queries)
    carry = follow_up and scoring.follow_up_decay > 0
    if carry:
        queries.append(exchanges[-1].user)  # the previous turn's own query, for carry_forward
    vectors = embedder.encode(queries)  # the only embedding done per query
    current = _dense_scores(episodes, embedder, scoring, vectors[:n_variants], queries[:n_variants])
    if carry:
        previous = _dense_scores(episodes, embedder, scoring, vectors[-1:], queries[-1:])[:-1]
        current = carry_forward(current, previous, scoring.follow_up_decay)
    weight = scoring.follow_up_prior * probability
    if weight > 0:
        current = np.minimum(current + weight * referent_prior(exchanges), 1.0)
    return current


def latent_scores(episodes: EpisodicMemory, query_latents: np.ndarray) -> np.ndarray:
    """Scores by the codec's latents (REA paper, A.1): the query's latents against each exchange's user
    and reply latents."""
    if not len(episodes):
        return np.zeros(0)
    units, starts = latent_units([[ex.user_latents, ex.latents] for ex in episodes.exchanges])
    return max_pairwise_cosine(unit_rows(query_latents), units, starts)


def _dense_scores(
    episodes: EpisodicMemory,
    embedder: Embedder,
    scoring: HCRScoring,
    query_vectors: np.ndarray,
    query_texts: Sequence[str],
) -> np.ndarray:
    """Scores of every exchange for a set of query variants (the best variant counts)."""
    episodes.use_unit_mode(scoring.unit_mode)
    episodes.ensure_embedded(embedder)  # no-op unless the session was built without embeddings
    units, starts = episodes.unit_index()
    scores = max_pairwise_cosine(query_vectors, units, starts)
    if scoring.scorer == "hybrid":
        index = episodes.lexical_index()
        scores = fuse(scores, np.max([index.normalized(q) for q in query_texts], axis=0), scoring.dense_weight)
    return smooth_neighbors(scores, scoring.neighbor_weight)
