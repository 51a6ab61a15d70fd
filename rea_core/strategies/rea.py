"""REA (seed 000, section 3): Instructional Memory + Episodic Memory + Heuristic Context Retrieval.

Per turn: the recognizer updates IM before answering; HCR scores every stored exchange against the
query and decides raw / compressed / omitted; the hybrid prompt is IM prefix + selected exchanges +
query; after the reply the exchange is embedded once and stored. Ablation switches in ``REAConfig``
give the rows of Table 4: ``use_im`` (IM and recognizer), ``use_hcr`` (off: every exchange at
``fixed_resolution``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator, Sequence

import numpy as np

from ..backends.base import Embedder, Generator
from ..compression.background import EncodeWriter, LatentWriter
from ..compression.codec import DualLoRACodec
from ..compression.forms import LATENT, FormChoice, choose_form
from ..config import REAConfig, scorer_label
from ..memory.episodic import Exchange
from ..recognizer import GLOBAL, REVOKE, Recognizer, build_recognizer, is_replacement
from ..reconstruction import build_prompt_plan, latent_turns
from ..retrieval.hcr import fixed_decisions, keep_best, keep_window, plan_context, recent_tokens
from ..retrieval.followup import carry_forward, follow_up_probability, follow_up_threshold, referent_prior
from ..retrieval.rewrite import rewrite_query
from ..retrieval.scoring import fuse, latent_units, max_pairwise_cosine, smooth_neighbors, unit_rows
from ..session import ChatSession
from ..types import Decision, Generation, InstructionEntry, PromptPlan, Recognition, TurnResult
from .base import Strategy
from .registry import register_strategy


@register_strategy("rea")
class REAStrategy(Strategy):
    def __init__(
        self,
        generator: Generator,
        embedder: Embedder | None = None,
        config: REAConfig | None = None,
        recognizer: Recognizer | None = None,
        codec: DualLoRACodec | None = None,
    ):
        if embedder is None:
            raise ValueError("REA needs an Embedder for Heuristic Context Retrieval")
        super().__init__(generator, embedder, config)
        self.recognizer = recognizer or build_recognizer(generator, embedder, self.config.recognizer_stage2)
        self.codec = codec

    @classmethod
    def from_models(cls, models, config: REAConfig, recognizer: Recognizer | None = None) -> "REAStrategy":
        """REA on the shared models; ``recognizer`` replaces the one ``config`` names (an evaluation arm's labels)."""
        recognizer = recognizer or build_recognizer(models.recognizer_model, models.embedder, config.recognizer_stage2)
        return cls(models.generator, models.embedder, config, recognizer=recognizer, codec=models.codec)

    # -- latent replies (section 3.2) --------------------------------------------------------------

    @property
    def latent_writer(self) -> LatentWriter | None:
        """How reply latents are made under ``config.codec_mode``: the codec's encoder, or per-reply optimization."""
        if self.codec is None:
            return None
        if self.config.codec_mode == "optimize":
            from ..compression.optimize import OptimizeConfig, OptimizeWriter

            cfg = self.config
            return OptimizeWriter(self.codec, OptimizeConfig(max_steps=cfg.optimize_steps, lr=cfg.optimize_lr, target_accuracy=cfg.optimize_target_accuracy,
                                                             adapter=cfg.optimize_adapter, system_prompt=cfg.system_prompt))
        return EncodeWriter(self.codec)

    @property
    def compressed_form(self) -> FormChoice | None:
        """REA's compressed form and why (None without a codec: text-compressed, nothing to choose)."""
        if self.codec is None:
            return None
        return choose_form(self.codec.measurements, writer_key=self.latent_writer.key, text_form=self.config.compressed_form,
                           forced=self.config.latent_replies)

    @property
    def uses_latents(self) -> bool:
        """Compressed replies are latent vectors: a codec is loaded and the config (or its measurements) chooses them."""
        return self.codec is not None and self.compressed_form.form == LATENT

    @property
    def latent_scoring(self) -> bool:
        return self.codec is not None and self.config.scorer == "latent"

    @property
    def _generate_adapter(self) -> str | None:
        """Optimized latents fitted on the plain backbone are read by the plain backbone."""
        from ..compression.codec import GENERATE

        return None if self.config.codec_mode == "optimize" and self.config.optimize_adapter == "none" else GENERATE

    def _ensure_latents(self, session: ChatSession, *, finish: bool = False) -> None:
        if self.uses_latents or self.latent_scoring:
            self.codec.background().ensure(session.episodes.exchanges, self.latent_writer, with_user=self.latent_scoring, finish=finish)

    def catch_up_cost(self, session: ChatSession) -> int:
        """Exchanges to embed (all of them under another embedder or unit mode) plus latents to compute."""
        episodes = session.episodes
        stale = episodes.embedder_name not in (None, self.embedder.name) or episodes.unit_mode != self.config.unit_mode
        cost = len(episodes) if stale else len(episodes) - episodes.n_embedded
        if self.uses_latents or self.latent_scoring:
            writer = self.latent_writer
            cost += sum(writer.needs(ex) for ex in episodes.exchanges)
        if self.latent_scoring:
            cost += sum(ex.user_latents is None for ex in episodes.exchanges)
        return cost

    def flush(self, session: ChatSession) -> None:
        self._ensure_latents(session, finish=True)  # a save holds finished latents, at the whole budget

    def _latent_blocks(self, session: ChatSession, plan: PromptPlan) -> list:
        return [session.episodes.exchanges[t].latents for t in latent_turns(plan)]  # exchange i is turn i

    def stream_reply(self, session: ChatSession, plan: PromptPlan, messages: list[dict]) -> Iterator[str | Generation]:
        if not self.uses_latents:
            return super().stream_reply(session, plan, messages)
        return self.codec.stream(messages, self._latent_blocks(session, plan), max_new_tokens=self.config.max_new_tokens,
                                 max_prompt_tokens=self.max_prompt_tokens, cache_key=self.cache_key(session), adapter=self._generate_adapter)

    def prompt_length(self, session: ChatSession, plan: PromptPlan, messages: list[dict]) -> int:
        if not self.uses_latents:
            return super().prompt_length(session, plan, messages)
        return self.codec.hybrid_length(messages, self._latent_blocks(session, plan))

    @property
    def uses_instructional_memory(self) -> bool:
        return self.config.use_im

    @property
    def score_label(self) -> str:
        return scorer_label(self.config)

    def update_instructions(self, session: ChatSession, user_text: str) -> Recognition | None:
        if not self.config.use_im:
            return None
        recognition = self.recognizer.recognize(user_text)
        entry = InstructionEntry(text=user_text.strip(), turn=session.n_turns, source="recognizer", stage=recognition.stage, score=recognition.score)
        if recognition.label == REVOKE:
            session.instructions.revoke(user_text, self._similarity)
        elif len(session.instructions) and is_replacement(user_text) and session.instructions.replace(
                replace(entry, stage="replacement", score=1.0), self._similarity):
            # "actually, use capitals again": global because it swaps a held instruction (issue 16)
            recognition = Recognition(label=GLOBAL, score=1.0, stage="replacement", cues=(*recognition.cues, "replaces an instruction"))
        elif recognition.label == GLOBAL:
            session.instructions.add(entry)
        return recognition

    def _similarity(self, message: str, texts) -> np.ndarray:
        """(n,) cosine of ``message`` with each text: picks the instruction a revocation refers to."""
        vectors = self.embedder.encode([message, *texts])  # (1 + n, dim), unit rows
        return vectors[1:] @ vectors[0]

    def score(self, session: ChatSession, query: str) -> np.ndarray:
        """HCR score of every stored exchange for ``query``, by ``config.scorer``.

        Dense scorers take the maximum pairwise cosine between the query's vectors and each
        exchange's units; ``hybrid`` fuses it with normalized BM25. The query is scored alone and
        joined with the previous user turn(s) and inherits the previous turn's scores when it reads
        as a follow-up (``retrieval.followup``), and with its standalone rewrite under
        ``config.query_rewrite`` (``retrieval.rewrite``). The latent scorer (A.1) compares codec latents.
        """
        episodes = session.episodes
        if not len(episodes):
            return np.zeros(0)
        if self.latent_scoring:
            units, starts = latent_units([[ex.user_latents, ex.latents] for ex in episodes.exchanges])
            return max_pairwise_cosine(unit_rows(self.codec.compress(query)), units, starts)
        cfg = self.config
        probability = follow_up_probability(query)  # graded: how much the message leans on earlier turns
        follow_up = bool(query.split()) and probability >= follow_up_threshold()
        previous_users = [ex.user for ex in episodes.exchanges[-cfg.context_turns :]] if cfg.context_turns and follow_up else []
        queries = [query] + (["\n".join(previous_users + [query])] if previous_users else [])
        queries += self._rewritten(session, query)  # a standalone restatement, another variant (config.query_rewrite)
        n_variants = len(queries)
        carry = follow_up and cfg.follow_up_decay > 0
        if carry:
            queries.append(episodes.exchanges[-1].user)  # the previous turn's own query, for carry_forward
        vectors = self.embedder.encode(queries)  # the only embedding done per query
        current = self._exchange_scores(episodes, vectors[:n_variants], queries[:n_variants])
        if carry:
            previous = self._exchange_scores(episodes, vectors[-1:], queries[-1:])[:-1]
            current = carry_forward(current, previous, cfg.follow_up_decay)
        weight = cfg.follow_up_prior * probability
        if weight > 0:
            current = np.minimum(current + weight * referent_prior(episodes.exchanges), 1.0)
        return current

    def _rewritten(self, session: ChatSession, query: str) -> list[str]:
        """``query`` rewritten by the generator from the latest exchanges, as a list of 0 or 1 extra
        query variants; the original stays a variant, so a bad rewrite cannot lose what it finds.
        The result, fallback included, is kept on ``session.last_rewrite`` for views and traces."""
        if not self.config.query_rewrite:
            return []
        rewrite = rewrite_query(self.generator, session.episodes.exchanges, query, turns=self.config.rewrite_turns)
        session.last_rewrite = rewrite
        return [rewrite.text] if rewrite.rewritten else []

    def _exchange_scores(self, episodes, query_vectors: np.ndarray, query_texts: Sequence[str]) -> np.ndarray:
        """Scores of every exchange for a set of query variants (the best variant counts)."""
        cfg = self.config
        episodes.use_unit_mode(cfg.unit_mode)
        episodes.ensure_embedded(self.embedder)  # no-op unless the session was built without embeddings
        units, starts = episodes.unit_index()
        scores = max_pairwise_cosine(query_vectors, units, starts)
        if cfg.scorer == "hybrid":
            index = episodes.lexical_index()
            scores = fuse(scores, np.max([index.normalized(q) for q in query_texts], axis=0), cfg.dense_weight)
        return smooth_neighbors(scores, cfg.neighbor_weight)

    def replan(
        self,
        query: str,
        exchanges: Sequence[Exchange],
        instructions: Sequence[str],
        scores: np.ndarray,
        *,
        tau_low: float | None = None,
        tau_high: float | None = None,
    ) -> tuple[PromptPlan, tuple[Decision, ...]]:
        """Decisions and plan from already computed ``scores``: no model call."""
        turns = [ex.turn for ex in exchanges]
        if self.config.use_hcr:
            decisions = plan_context(
                turns,
                scores,
                tau_low=self.config.tau_low if tau_low is None else tau_low,
                tau_high=self.config.tau_high if tau_high is None else tau_high,
            )
            recent = recent_tokens(exchanges, self.config.recent_raw, self.generator.count_tokens)
            decisions = keep_window(decisions, recent, raw_tokens=self.config.recent_raw_tokens,
                                    band=self.config.recent_compressed)
            # the best omitted exchanges beyond the window: a referent ranks high far more often than it clears a threshold
            decisions = keep_best(decisions, self.config.referent_top_k)
        else:
            decisions = fixed_decisions(turns, self.config.fixed_resolution, list(scores))
        plan = build_prompt_plan(
            query=query,
            exchanges=exchanges,
            decisions=decisions,
            instructions=instructions if self.config.use_im else (),
            count_tokens=self.generator.count_tokens,
            system_prompt=self.config.system_prompt,
            text_compress_words=self.config.text_compress_words,
            compressed_form=self.config.compressed_form,
            im_placement=self.config.im_placement,
            use_latents=self.uses_latents,
        )
        return plan, decisions

    def build_context(self, session: ChatSession, query: str) -> tuple[PromptPlan, tuple[Decision, ...]]:
        self._ensure_latents(session)  # the previous reply's latents: a slow writer stops at its best so far
        scores = self.score(session, query)
        return self.replan(query, session.episodes.exchanges, session.instructions.texts(), scores)

    def redecide(self, session: ChatSession, last: TurnResult, *, tau_low: float, tau_high: float) -> tuple[PromptPlan, tuple[Decision, ...]]:
        """Re-decide the latest turn under other thresholds from its cached scores (live sliders)."""
        scores = np.array([d.score for d in last.decisions], dtype=np.float64)
        earlier = session.episodes.exchanges[: len(last.decisions)]
        return self.replan(last.plan.query, earlier, session.instructions.texts(), scores, tau_low=tau_low, tau_high=tau_high)

    def store(self, session: ChatSession, user_text: str, reply: str) -> None:
        exchange = session.episodes.append(user_text, reply, embedder=self.embedder)  # embedded once, here
        if self.uses_latents or self.latent_scoring:
            worker, writer = self.codec.background(), self.latent_writer
            worker.submit(exchange, writer, with_user=self.latent_scoring)  # after the reply, off its path
            for earlier in session.episodes.exchanges[:-1]:  # an optimization stopped for the last turn continues
                if writer.needs(earlier):
                    worker.submit(earlier, writer, with_user=self.latent_scoring)
