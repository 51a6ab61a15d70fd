"""REA (REA paper, section 3): Instructional Memory + Episodic Memory + Heuristic Context Retrieval.

Per turn: the recognizer updates IM before answering; HCR scores every stored exchange against the
query (``retrieval.hcr_scores``) and decides raw / compressed / omitted (``retrieval.hcr``); the
hybrid prompt is IM prefix + selected exchanges + query; after the reply the exchange is embedded
once and stored. Ablation switches in ``REAConfig`` give the rows of Table 4: ``use_im`` (IM and
recognizer), ``use_hcr`` (off: every exchange at ``fixed_resolution``).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Iterator, Sequence

import numpy as np

from ...backends.base import OUTPUT_RULES, Embedder, Generator, has
from ...compression.background import EncodeWriter, LatentWriter
from ...compression.codec import GENERATE, DualLoRACodec
from ...compression.forms import LATENT, FormChoice, choose_form
from ...compression.optimize import OptimizeWriter
from ...memory.episodic import EpisodicMemory, Exchange
from ...memory.instructional import InstructionalMemory
from ...memory.output_rules import output_rules, rules_note
from ...prompt_layout import Placement, stable_placements
from ...recognizer import GLOBAL, PROHIBITION, REVOKE, Recognizer, build_recognizer, is_replacement
from ...reconstruction import (
    TEMPLATE_TOKENS_PER_MESSAGE,
    build_prompt_plan,
    exchange_segment,
    latent_turns,
    plan_length,
    rendered_sources,
)
from ...retrieval.hcr import (
    fit_budget,
    fixed_decisions,
    hold_in_im,
    keep_best,
    keep_window,
    plan_context,
    recent_tokens,
)
from ...retrieval.hcr_scores import latent_scores, score_exchanges
from ...retrieval.rewrite import rewrite_query
from ...retrieval.thresholds import Thresholds
from ...runtime import RuntimeConfig
from ...session import ChatSession
from ...types import (
    Decision,
    Generation,
    InstructionEntry,
    PromptPlan,
    Recognition,
    Resolution,
    Segment,
    SegmentKind,
    TurnResult,
)
from ..base import Strategy
from ..registry import register_strategy
from . import SPEC
from .config import REAConfig


@register_strategy(SPEC.name)
class REAStrategy(Strategy):
    def __init__(
        self,
        generator: Generator,
        embedder: Embedder | None = None,
        config: REAConfig | None = None,
        *,
        runtime: RuntimeConfig | None = None,
        recognizer: Recognizer | None = None,
        codec: DualLoRACodec | None = None,
    ):
        if embedder is None:
            raise ValueError("REA needs an Embedder for Heuristic Context Retrieval")
        super().__init__(generator, embedder, config, runtime=runtime)
        self.recognizer = recognizer or build_recognizer(generator, embedder, self.config.recognizer_stage2)
        self.codec = codec

    @classmethod
    def from_models(
        cls,
        models,
        config: REAConfig | None = None,
        *,
        runtime: RuntimeConfig | None = None,
        recognizer: Recognizer | None = None,
    ) -> "REAStrategy":
        """REA on the shared models; ``recognizer`` replaces the one ``config`` names (an evaluation arm's labels)."""
        config = config or REAConfig()
        recognizer = recognizer or build_recognizer(
            models.recognizer_llm or models.generator, models.embedder, config.recognizer_stage2
        )
        return cls(
            models.generator, models.embedder, config, runtime=runtime, recognizer=recognizer, codec=models.codec
        )

    def parts(self) -> dict:
        return {"recognizer": self.recognizer, "codec": self.codec}

    def with_thresholds(self, thresholds: Thresholds) -> REAStrategy:
        return self._deciding(self.config.with_thresholds(thresholds))

    def with_reply_form(self, form: str) -> REAStrategy:
        return self._deciding(replace(self.config, reply_form=form))

    def _deciding(self, config: REAConfig) -> REAStrategy:
        """This strategy under ``config``, which differs from its own only in how a turn is decided and
        laid out: a shallow copy on the same models, recognizer and codec, nothing rebuilt (a session
        holds the memory, so that is shared as it was). Itself when nothing changed."""
        if config == self.config:
            return self
        twin = copy.copy(self)
        twin.config = config
        return twin

    def new_session(self) -> ChatSession:
        return ChatSession(
            strategy=self.name,
            instructions=InstructionalMemory(self.config.im_capacity),
            episodes=EpisodicMemory(self.config.max_reply_units, self.config.unit_mode),
        )

    # -- latent replies (section 3.2) --------------------------------------------------------------

    @property
    def latent_writer(self) -> LatentWriter | None:
        """How reply latents are made under ``config.codec_mode``: the codec's encoder, or per-reply fitting."""
        if self.codec is None:
            return None
        if self.config.codec_mode == "optimize":
            return OptimizeWriter(
                self.codec, replace(self.config.latent_fit, system_prompt=self.runtime.system_prompt)
            )
        return EncodeWriter(self.codec)

    @property
    def reply_form(self) -> FormChoice | None:
        """The form of REA's compressed replies and why (None without a codec: text-compressed, nothing to choose)."""
        if self.codec is None:
            return None
        return choose_form(
            self.codec.measurements,
            writer_key=self.latent_writer.key,
            text_form=self.config.text_compression,
            forced=self.config.reply_form,
        )

    @property
    def uses_latents(self) -> bool:
        """Compressed replies are latent vectors: a codec is loaded and the config (or its measurements)
        chooses them."""
        return self.codec is not None and self.reply_form.form == LATENT

    @property
    def latent_scoring(self) -> bool:
        return self.codec is not None and self.config.scorer == "latent"

    @property
    def _generate_adapter(self) -> str | None:
        """Optimized latents fitted on the plain backbone are read by the plain backbone."""
        return None if self.config.codec_mode == "optimize" and self.config.latent_fit.adapter == "none" else GENERATE

    def _ensure_latents(self, session: ChatSession, *, finish: bool = False) -> None:
        if self.uses_latents or self.latent_scoring:
            self.codec.background().ensure(
                session.episodes.exchanges, self.latent_writer, with_user=self.latent_scoring, finish=finish
            )

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
        return self.codec.stream(
            messages,
            self._latent_blocks(session, plan),
            max_new_tokens=self.runtime.max_new_tokens,
            max_prompt_tokens=self.max_prompt_tokens,
            cache_key=self.cache_key(session),
            adapter=self._generate_adapter,
            budget_s=self.runtime.reply_budget_s,
            **self.rule_kwargs(plan),
        )

    def prompt_length(self, session: ChatSession, plan: PromptPlan, messages: list[dict]) -> int:
        if not self.uses_latents:
            return super().prompt_length(session, plan, messages)
        return self.codec.hybrid_length(messages, self._latent_blocks(session, plan))

    @property
    def uses_instructional_memory(self) -> bool:
        return self.config.use_im

    @property
    def score_label(self) -> str:
        return self.config.score_label

    def update_instructions(self, session: ChatSession, user_text: str) -> Recognition | None:
        if not self.config.use_im:
            return None
        recognition = self.recognizer.recognize(user_text)
        entry = InstructionEntry(
            text=recognition.instruction(user_text),  # the instruction sentence(s), not the whole message
            turn=session.n_turns,
            source="recognizer",
            stage=recognition.stage,
            score=recognition.score,
        )
        if recognition.label == REVOKE:
            session.instructions.revoke(user_text, self._similarity)
        elif PROHIBITION in recognition.cues and session.instructions.lift(user_text, self._similarity):
            # "stop starting your replies with r" after "start your replies with r": it lifts that wish
            recognition = Recognition(
                label=REVOKE, score=1.0, stage="rules", cues=(*recognition.cues, "lifts an instruction")
            )
        elif (
            len(session.instructions)
            and is_replacement(user_text)
            and session.instructions.replace(replace(entry, stage="replacement", score=1.0), self._similarity)
        ):
            # "actually, use capitals again": global because it swaps a held instruction
            recognition = Recognition(
                label=GLOBAL, score=1.0, stage="replacement", cues=(*recognition.cues, "replaces an instruction")
            )
        elif recognition.label == GLOBAL:
            session.instructions.add(entry)
        return recognition

    def _similarity(self, message: str, texts) -> np.ndarray:
        """(n,) cosine of ``message`` with each text: picks the instruction a revocation refers to."""
        vectors = self.embedder.encode([message, *texts])  # (1 + n, dim), unit rows
        return vectors[1:] @ vectors[0]

    def score(self, session: ChatSession, query: str) -> np.ndarray:
        """HCR score of every stored exchange for ``query`` (``retrieval.hcr_scores``), with the query's
        standalone rewrite as a second variant under ``config.query_rewrite``."""
        if self.latent_scoring:
            return latent_scores(session.episodes, self.codec.compress(query))
        return score_exchanges(
            session.episodes, query, self.embedder, self.config.scoring, variants=self._rewritten(session, query)
        )

    def _rewritten(self, session: ChatSession, query: str) -> list[str]:
        """``query`` rewritten by the generator from the latest exchanges, as a list of 0 or 1 extra
        query variants; the original stays a variant, so a bad rewrite cannot lose what it finds.
        The result, fallback included, is kept on ``session.last_rewrite`` for views and traces."""
        if not self.config.query_rewrite or not len(session.episodes):
            return []
        rewrite = rewrite_query(self.generator, session.episodes.exchanges, query, turns=self.config.rewrite_turns)
        session.last_rewrite = rewrite
        return [rewrite.text] if rewrite.rewritten else []

    def replan(
        self,
        query: str,
        exchanges: Sequence[Exchange],
        instructions: Sequence[str],
        scores: np.ndarray,
        thresholds: Thresholds,
        *,
        anchor: Sequence[Placement] = (),
        held_turns: Sequence[int] = (),
    ) -> tuple[PromptPlan, tuple[Decision, ...]]:
        """Decisions and plan from already computed ``scores`` at ``thresholds``: no model call.
        ``anchor``: the previous prompt's kept older exchanges, which the layout keeps first (``prompt_layout``).
        ``held_turns``: the exchanges whose whole message IM reads verbatim (``REAStrategy.held_turns``),
        left out of the turns."""
        turns = [ex.turn for ex in exchanges]
        if self.config.use_hcr:
            decisions = hold_in_im(plan_context(turns, scores, thresholds), held_turns)
            recent = recent_tokens(exchanges, self.config.recent_raw, self.generator.count_tokens)
            decisions = keep_window(
                decisions, recent, raw_tokens=self.config.recent_raw_tokens, band=self.config.recent_compressed
            )
            # the best omitted exchanges beyond the window: a referent ranks high far more often than it
            # clears a threshold
            decisions = keep_best(decisions, self.config.referent_top_k)
        else:
            decisions = fixed_decisions(turns, self.config.fixed_resolution, list(scores))
        forms = self._forms(query)
        layout = tuple(anchor) if self.config.layout != "chronological" else None
        plan = self._plan(exchanges, decisions, instructions, forms, layout)
        excess = plan_length(plan) - self.max_prompt_tokens
        if excess > 0:  # over the window: demote the lowest-scored exchanges rather than lose IM
            count = self.generator.count_tokens

            def cost(i: int, resolution: Resolution) -> int:
                if resolution is Resolution.OMIT:
                    return 0
                segment = exchange_segment(
                    exchanges[i],
                    Decision(turn=turns[i], score=None, resolution=resolution),
                    count,
                    **forms,
                )
                return segment.tokens + 2 * TEMPLATE_TOKENS_PER_MESSAGE

            decisions, _ = fit_budget(decisions, cost, excess)
            plan = self._plan(exchanges, decisions, instructions, forms, layout)
        return self._with_rules(replace(plan, budget=self.max_prompt_tokens), instructions), decisions

    def _with_rules(self, plan: PromptPlan, instructions: Sequence[str]) -> PromptPlan:
        """``plan`` with the output rules IM asks decoding to keep (``output_rules`` on), and a note saying
        whether this generator keeps them."""
        if not (self.config.output_rules and self.config.use_im):
            return plan
        rules = output_rules(instructions)
        if not rules:
            return plan
        note = rules_note(rules, enforced=has(self.generator, OUTPUT_RULES))
        return replace(plan, rules=rules, notes=plan.notes + (note,))

    def _forms(self, query: str) -> dict:
        """How this config writes kept exchanges for ``query`` (``build_prompt_plan``'s form arguments)."""
        return dict(
            query=query,
            text_compress_words=self.config.text_compress_words,
            text_compression=self.config.text_compression,
            use_latents=self.uses_latents,
            show_time=self.runtime.show_time,
        )

    def _plan(self, exchanges, decisions, instructions, forms: dict, anchor) -> PromptPlan:
        return build_prompt_plan(
            anchor=anchor,
            exchanges=exchanges,
            decisions=decisions,
            instructions=instructions if self.config.use_im else (),
            count_tokens=self.generator.count_tokens,
            system_prompt=self.runtime.system_prompt,
            im_placement=self.config.im_placement,
            window_first=self.config.layout == "window-first",
            **forms,
        )

    def next_opening(self, session: ChatSession) -> list[tuple[dict, tuple[Segment, ...]]]:
        """Under the ``window-first`` layout: system, IM, the raw working-memory window and its band,
        which open every next prompt whatever its message (HCR keeps the window raw and the band at
        least compressed at any score). The band only where its compressed text does not depend on the
        message (``first_words``). Empty elsewhere, and with latent replies (their prompt is not plain
        text)."""
        if self.config.layout != "window-first" or not self.config.use_hcr or self.uses_latents:
            return []
        exchanges = session.episodes.exchanges
        recent = recent_tokens(exchanges, self.config.recent_raw, self.generator.count_tokens)
        omitted = tuple(Decision(turn=ex.turn, score=None, resolution=Resolution.OMIT) for ex in exchanges)
        instructions = session.instructions.texts()
        omitted = hold_in_im(omitted, self.held_turns(session, exchanges))
        band = self.config.recent_compressed if self.config.text_compression == "first_words" else 0
        window = keep_window(omitted, recent, raw_tokens=self.config.recent_raw_tokens, band=band)
        plan = self._plan(exchanges, window, instructions, self._forms(""), ())
        return [(m, segs) for m, segs in rendered_sources(plan) if segs[-1].kind is not SegmentKind.QUERY]

    def held_turns(self, session: ChatSession, exchanges: Sequence[Exchange]) -> list[int]:
        """The turns of ``exchanges`` whose whole message IM reads verbatim
        (``InstructionalMemory.bare_turns``): not repeated among the turns. None without IM."""
        return session.instructions.bare_turns(exchanges) if self.config.use_im else []

    def build_context(self, session: ChatSession, query: str) -> tuple[PromptPlan, tuple[Decision, ...]]:
        self._ensure_latents(session)  # the previous reply's latents: a slow writer stops at its best so far
        scores = self.score(session, query)
        return self.replan(
            query,
            session.episodes.exchanges,
            session.instructions.texts(),
            scores,
            self.config.thresholds,
            anchor=self.anchor(session.memory),
            held_turns=self.held_turns(session, session.episodes.exchanges),
        )

    @staticmethod
    def anchor(memory: dict) -> tuple[Placement, ...]:
        """From REA's session ``memory``: the kept older exchanges of the latest turn's prompt, in its
        order (none before a first turn)."""
        return tuple(Placement.from_list(item) for item in memory.get("layout", ()))

    def memory_problem(self, memory: dict, n_turns: int) -> str | None:
        layout = memory.get("layout", [])
        if not isinstance(layout, list) or len(layout) > n_turns:
            return f'"layout" must be a list of at most {n_turns} placements'
        try:
            turns = [Placement.from_list(item).turn for item in layout]
        except (TypeError, ValueError) as exc:
            return f'"layout" holds a placement that is not [turn, resolution, reply form]: {exc}'
        if any(t >= n_turns for t in turns) or len(set(turns)) != len(turns):
            return f'"layout" must name distinct turns below {n_turns}'
        return None

    def redecide(
        self, session: ChatSession, last: TurnResult, thresholds: Thresholds
    ) -> tuple[PromptPlan, tuple[Decision, ...]]:
        """Re-decide the latest turn under other thresholds from its cached scores (live sliders)."""
        scores = np.array([d.score for d in last.decisions], dtype=np.float64)
        earlier = session.episodes.exchanges[: len(last.decisions)]
        undo = session.memory.get("undo") or {}
        before = undo.get("state", {}) if undo.get("turn") == last.turn else session.memory  # the anchor it used
        return self.replan(
            last.plan.query,
            earlier,
            session.instructions.texts(),
            scores,
            thresholds,
            anchor=self.anchor(before),
            held_turns=self.held_turns(session, earlier),
        )

    def store(
        self,
        session: ChatSession,
        user_text: str,
        reply: str,
        *,
        time: str | None = None,
        plan: PromptPlan | None = None,
    ) -> None:
        # embedded once, here
        exchange = session.episodes.append(user_text, reply, embedder=self.embedder, time=time)
        if plan is not None:  # the next prompt is laid out after this one
            layout = [p.to_list() for p in stable_placements(plan)]
            self.commit_memory(session, exchange.turn, {**session.memory, "layout": layout})
        if self.uses_latents or self.latent_scoring:
            worker, writer = self.codec.background(), self.latent_writer
            worker.submit(exchange, writer, with_user=self.latent_scoring)  # after the reply, off its path
            for earlier in session.episodes.exchanges[:-1]:  # an optimization stopped for the last turn continues
                if writer.needs(earlier):
                    worker.submit(earlier, writer, with_user=self.latent_scoring)
