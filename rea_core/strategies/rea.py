"""REA (seed 000, section 3): Instructional Memory + Episodic Memory + Heuristic Context Retrieval.

Per turn: the recognizer updates IM before answering; HCR scores every stored exchange against the
query and decides raw / compressed / omitted; the hybrid prompt is IM prefix + selected exchanges +
query; after the reply the exchange is embedded once and stored. Ablation switches in ``REAConfig``
give the rows of Table 4: ``use_im`` (IM and recognizer), ``use_hcr`` (off: every exchange at
``fixed_resolution``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..backends.base import Embedder, Generator
from ..compression.background import background_for
from ..compression.codec import DualLoRACodec
from ..config import REAConfig
from ..memory.episodic import Exchange
from ..memory.recognizer import GLOBAL, REVOKE, InstructionRecognizer
from ..prompt.reconstruct import build_prompt_plan, latent_turns
from ..retrieval.hcr import fixed_decisions, plan_context
from ..retrieval.scoring import latent_units, max_pairwise_cosine, unit_rows
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
        recognizer: InstructionRecognizer | None = None,
        codec: DualLoRACodec | None = None,
    ):
        if embedder is None:
            raise ValueError("REA needs an Embedder for Heuristic Context Retrieval")
        super().__init__(generator, embedder, config)
        self.recognizer = recognizer or InstructionRecognizer(generator)
        self.codec = codec

    @classmethod
    def from_models(cls, models, config: REAConfig) -> "REAStrategy":
        return cls(models.generator, models.embedder, config, recognizer=InstructionRecognizer(models.recognizer_model), codec=models.codec)

    # -- latent replies (section 3.2) --------------------------------------------------------------

    @property
    def uses_latents(self) -> bool:
        """Compressed replies are latent vectors: a codec is loaded and the config does not switch it off."""
        return self.codec is not None and self.config.latent_replies

    @property
    def latent_scoring(self) -> bool:
        return self.codec is not None and self.config.scorer == "latent"

    def _ensure_latents(self, session: ChatSession) -> None:
        if self.uses_latents or self.latent_scoring:
            background_for(self.codec).ensure(session.episodes.exchanges, with_user=self.latent_scoring)

    def catch_up_cost(self, session: ChatSession) -> int:
        """Exchanges to embed (all of them under another embedder) plus latents to compute."""
        episodes = session.episodes
        stale = episodes.embedder_name not in (None, self.embedder.name)
        cost = len(episodes) if stale else len(episodes) - episodes.n_embedded
        if self.uses_latents or self.latent_scoring:
            cost += sum(ex.latents is None for ex in episodes.exchanges)
        if self.latent_scoring:
            cost += sum(ex.user_latents is None for ex in episodes.exchanges)
        return cost

    def flush(self, session: ChatSession) -> None:
        self._ensure_latents(session)

    def _latent_blocks(self, session: ChatSession, plan: PromptPlan) -> list:
        return [session.episodes.exchanges[t].latents for t in latent_turns(plan)]  # exchange i is turn i

    def generate_reply(self, session: ChatSession, plan: PromptPlan, messages: list[dict]) -> Generation:
        if not self.uses_latents:
            return super().generate_reply(session, plan, messages)
        gen, _ = self.codec.generate(
            messages, self._latent_blocks(session, plan), max_new_tokens=self.config.max_new_tokens, max_prompt_tokens=self.max_prompt_tokens
        )
        return gen

    def prompt_length(self, session: ChatSession, plan: PromptPlan, messages: list[dict]) -> int:
        if not self.uses_latents:
            return super().prompt_length(session, plan, messages)
        return self.codec.hybrid_length(messages, self._latent_blocks(session, plan))

    @property
    def uses_instructional_memory(self) -> bool:
        return self.config.use_im

    def update_instructions(self, session: ChatSession, user_text: str) -> Recognition | None:
        if not self.config.use_im:
            return None
        recognition = self.recognizer.recognize(user_text)
        if recognition.label == GLOBAL:
            session.instructions.add(
                InstructionEntry(
                    text=user_text.strip(),
                    turn=session.n_turns,
                    source="recognizer",
                    stage=recognition.stage,
                    score=recognition.score,
                )
            )
        elif recognition.label == REVOKE:
            session.instructions.revoke(user_text)
        return recognition

    def score(self, session: ChatSession, query: str) -> np.ndarray:
        """HCR score of every stored exchange for ``query`` (maximum pairwise cosine).

        The MiniLM scorer compares sentence embeddings of the query and each exchange's units;
        the latent scorer (A.1) compares the query's latents with each exchange's user and reply latents.
        """
        episodes = session.episodes
        if not len(episodes):
            return np.zeros(0)
        if self.latent_scoring:
            units, starts = latent_units([[ex.user_latents, ex.latents] for ex in episodes.exchanges])
            return max_pairwise_cosine(unit_rows(self.codec.compress(query)), units, starts)
        episodes.ensure_embedded(self.embedder)  # no-op unless the session was built without embeddings
        units, starts = episodes.unit_index()
        return max_pairwise_cosine(self.embedder.encode([query]), units, starts)

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
            use_latents=self.uses_latents,
        )
        return plan, decisions

    def build_context(self, session: ChatSession, query: str) -> tuple[PromptPlan, tuple[Decision, ...]]:
        self._ensure_latents(session)  # waits for the background compression of the previous reply
        scores = self.score(session, query)
        return self.replan(query, session.episodes.exchanges, session.instructions.texts(), scores)

    def redecide(self, session: ChatSession, last: TurnResult, *, tau_low: float, tau_high: float) -> tuple[PromptPlan, tuple[Decision, ...]]:
        """Re-decide the latest turn under other thresholds from its cached scores (live sliders)."""
        scores = np.array([d.score for d in last.decisions], dtype=np.float64)
        earlier = session.episodes.exchanges[: len(last.decisions)]
        return self.replan(last.plan.segments[-1].text, earlier, session.instructions.texts(), scores, tau_low=tau_low, tau_high=tau_high)

    def store(self, session: ChatSession, user_text: str, reply: str) -> None:
        exchange = session.episodes.append(user_text, reply, embedder=self.embedder)  # embedded once, here
        if self.uses_latents or self.latent_scoring:
            background_for(self.codec).submit(exchange, with_user=self.latent_scoring)  # after the reply, off its path
