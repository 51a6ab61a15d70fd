"""The prompt each ``rea eval qa`` arm shows the model for a question: no history, the evidence alone,
vanilla's window, REA's plan (with and without times), BM25 at REA's budget, or a memory strategy's own.
The arms themselves (names, descriptions) are rows of the one table, ``evals.arms``.

Every arm's prompt is a ``PromptPlan`` rendered with ``render_messages``, so it is the prompt the
strategy would really send; the model reads the question through the ``qa_question`` wrapper.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from ...memory.episodic import EpisodicMemory, exchange_text
from ...reconstruction import assemble_plan, build_prompt_plan, render_messages
from ...settings import Settings
from ...templates import fill, load_template
from ...types import Decision, PromptPlan, Resolution, SegmentKind
from ..arms import QA, arms_for
from ..cases import RetrievalCase
from ..retrieval import exchange_tokens, store_exchanges

MAX_NEW_TOKENS = 24  # a short phrase

ARMS: dict[str, str] = {n: a.describe_for(QA) for n, a in arms_for(QA).items()}  # name -> description
DEFAULT_ARMS = ("none", "oracle", "vanilla", "rea", "rea-no-time", "bm25")  # secom/comedy: minutes of memory building
MEMORY_ARMS = ("secom", "comedy")


@dataclass
class QAContext:
    """What every arm shares: the models, the settings, the answer budget and the optional judge."""

    models: object  # loading.Models
    settings: Settings
    max_new_tokens: int = MAX_NEW_TOKENS
    judge: object | None = None  # a Generator
    _whole: dict = field(default_factory=dict)  # (case, position) -> the history's templated prompt tokens
    _histories: dict = field(default_factory=dict)  # (case, start, end) -> vanilla's plan of those exchanges

    def whole_tokens(self, case: RetrievalCase, q) -> int:
        """Tokens of the prompt holding the whole conversation before ``q`` raw (vanilla without a window):
        the denominator of the prompt share, so vanilla uncut is 100%. The history's templated prompt is
        counted once per position (LoCoMo asks every question after the whole conversation), the
        wrapped question's tokens added to it."""
        g = self.models.generator
        key = (case.id, q.position)
        if key not in self._whole:
            self._whole[key] = g.prompt_tokens(render_messages(self.history_plan(case, 0, q.position)))
        return self._whole[key] + g.count_tokens(wrapped_question(q.text))

    def history_plan(self, case: RetrievalCase, start: int, end: int) -> PromptPlan:
        """Vanilla's plan of exchanges ``start`` to ``end`` with an empty query, built once: every question
        at one position reads the same history (``with_question`` sets the query)."""
        key = (case.id, start, end)
        if key not in self._histories:
            self._histories[key] = vanilla_plan(case, start, end, self)
        return self._histories[key]

    @property
    def runtime(self):
        return replace(self.settings.runtime, max_new_tokens=max(1, self.max_new_tokens))  # 0: NLL only


@dataclass(frozen=True)
class ArmPrompt:
    plan: PromptPlan
    shown: frozenset[int] | None  # exchange indices in the prompt (None: a memory arm)
    memory_s: float = 0.0
    cut: int = 0


def wrapped_question(question: str) -> str:
    return fill(load_template("qa_question"), question=question)


def with_question(plan: PromptPlan, question: str, count) -> PromptPlan:
    """``plan`` with its query segment replaced by the QA wrapper: arms retrieve with the bare question,
    the model reads the wrapped one."""
    text = wrapped_question(question)
    segments = tuple(
        replace(s, text=text, tokens=count(text)) if s.kind is SegmentKind.QUERY else s for s in plan.segments
    )
    return replace(plan, segments=segments)


def shown_turns(plan: PromptPlan) -> frozenset[int]:
    return frozenset(
        s.turn
        for s in plan.segments
        if s.kind is SegmentKind.EXCHANGE and s.resolution is not Resolution.OMIT and s.turn is not None
    )


def episodes(case: RetrievalCase, start: int, end: int) -> EpisodicMemory:
    memory = EpisodicMemory()
    for i in range(start, end):
        memory.append(*case.exchanges[i], time=case.time_of(i))
    return memory


def none_plan(query: str, *, count_tokens, runtime) -> PromptPlan:
    """The ``none`` arm: the system prompt and the question, no history."""
    return assemble_plan(query=query, count_tokens=count_tokens, system_prompt=runtime.system_prompt)


def subset_plan(case: RetrievalCase, n: int, keep: set[int], query: str, *, count_tokens, runtime) -> PromptPlan:
    """Exchanges ``keep`` of the first ``n`` raw in turn order, the rest omitted (oracle, bm25)."""
    exchanges = episodes(case, 0, n).exchanges
    decisions = tuple(
        Decision(turn=ex.turn, score=None, resolution=Resolution.RAW if ex.turn in keep else Resolution.OMIT)
        for ex in exchanges
    )
    return build_prompt_plan(
        query=query,
        exchanges=exchanges,
        decisions=decisions,
        instructions=(),
        count_tokens=count_tokens,
        system_prompt=runtime.system_prompt,
        show_time=runtime.show_time,
    )


def vanilla_cut(case: RetrievalCase, ctx: QAContext) -> int:
    """How many oldest exchanges vanilla drops, once per conversation: the history up to the last question
    plus a reserve for the longest question and answer fits ``context_window - max_new_tokens``."""
    g = ctx.models.generator
    end = max(q.position for q in case.queries)
    reserve = max(g.count_tokens(wrapped_question(q.text)) + g.count_tokens(q.answer or "") for q in case.queries) + 16
    budget = g.context_window - ctx.max_new_tokens - reserve
    per = exchange_tokens(case, g.count_tokens)[:end] + 10  # text plus chat markup of two messages (estimate)
    start = 0
    total = int(per.sum()) + g.count_tokens(ctx.runtime.system_prompt) + 10
    while start < end and total > budget:
        total -= int(per[start])
        start += 1
    while start < end:  # the estimate checked against the real templated prompt
        plan = ctx.history_plan(case, start, end)  # the fitting one is the plan the vanilla arm reads
        if g.prompt_tokens(render_messages(plan)) <= budget:
            break
        start += 1
    return start


def vanilla_plan(case: RetrievalCase, start: int, end: int, ctx: QAContext) -> PromptPlan:
    """The vanilla strategy's own plan of exchanges ``start`` to ``end`` (every one raw), with an empty query."""
    from ...loading import build_strategy

    strategy = build_strategy("vanilla", ctx.models, runtime=ctx.runtime)
    session = strategy.new_session()
    session.episodes = episodes(case, start, end)
    plan, _ = strategy.build_context(session, "")
    return plan


class REAPlanner:
    """REAStrategy's real plan for each question (scores from the bare question, at its thresholds), the
    session filled exchange by exchange as ``retrieval.rea_records`` does."""

    def __init__(self, case: RetrievalCase, ctx: QAContext, *, show_time: bool = True):
        from ...methods.rea.strategy import REAStrategy

        self.case = case
        self.strategy = REAStrategy(
            ctx.models.generator,
            ctx.models.embedder,
            ctx.settings.rea,
            runtime=replace(ctx.runtime, show_time=show_time),
            recognizer=None,
            codec=None,  # text reply stand-ins, as in `rea eval retrieval`
        )
        self.session = self.strategy.new_session()

    def plan(self, q) -> tuple[PromptPlan, float]:
        t0 = time.perf_counter()
        self.session = question_session(self.strategy, self.case, q.position, self.session)
        memory_s = time.perf_counter() - t0
        scores = self.strategy.score(self.session, q.text)
        plan, _ = self.strategy.replan(
            q.text, self.session.episodes.exchanges, (), scores, self.strategy.config.thresholds
        )
        return plan, memory_s


def kept_exchange_tokens(plan: PromptPlan) -> int:
    return sum(
        s.tokens for s in plan.segments if s.kind is SegmentKind.EXCHANGE and s.resolution is not Resolution.OMIT
    )


def bm25_keep(question: str, texts: Sequence[str], tokens: Sequence[int], budget: int) -> set[int]:
    """BM25's best exchanges in rank order until their tokens reach ``budget`` (pure but for the scorer)."""
    from ...methods.secom.retriever import bm25_scores

    if not texts or budget <= 0:
        return set()
    order = np.argsort(-np.asarray(bm25_scores(question, list(texts))), kind="stable")
    keep, total = set(), 0
    for i in order:
        if total >= budget:
            break
        keep.add(int(i))
        total += int(tokens[i])
    return keep


def arm_prompts(arm: str, case: RetrievalCase, ctx: QAContext):
    """A function from a question to its ``ArmPrompt`` under ``arm`` (state kept across the case's questions)."""
    g = ctx.models.generator
    count = g.count_tokens
    forms = {"count_tokens": count, "runtime": ctx.runtime}
    if arm == "none":
        return lambda q: ArmPrompt(none_plan(q.text, **forms), frozenset())
    if arm == "oracle":
        return lambda q: ArmPrompt(subset_plan(case, q.position, set(q.needed), q.text, **forms), frozenset(q.needed))
    if arm == "vanilla":
        start = vanilla_cut(case, ctx)
        return lambda q: ArmPrompt(
            ctx.history_plan(case, min(start, q.position), q.position),  # the query is set by ``with_question``
            frozenset(range(min(start, q.position), q.position)),
            cut=start,
        )
    if arm in ("rea", "rea-no-time"):
        planner = REAPlanner(case, ctx, show_time=arm == "rea")

        def rea(q) -> ArmPrompt:
            plan, memory_s = planner.plan(q)
            return ArmPrompt(plan, shown_turns(plan), memory_s=memory_s)

        return rea
    if arm == "bm25":
        planner = REAPlanner(case, ctx)
        texts = [exchange_text(u, r) for u, r in case.exchanges]
        tokens = exchange_tokens(case, count)

        def bm25(q) -> ArmPrompt:
            rea_plan, memory_s = planner.plan(q)
            keep = bm25_keep(q.text, texts[: q.position], tokens[: q.position], kept_exchange_tokens(rea_plan))
            plan = subset_plan(case, q.position, keep, q.text, **forms)
            return ArmPrompt(plan, frozenset(keep), memory_s=memory_s)

        return bm25
    if arm in MEMORY_ARMS:
        from ...loading import build_strategy

        strategy = build_strategy(arm, ctx.models, ctx.settings.method_config(arm), runtime=ctx.runtime)
        session = strategy.new_session()

        def memory(q) -> ArmPrompt:
            t0 = time.perf_counter()
            for i in range(len(session.episodes), q.position):
                if i and case.times and case.time_of(i) != case.time_of(i - 1):
                    strategy.end_sitting(session)  # a new conversation session (LoCoMo's dated sessions)
                strategy.store(session, *case.exchanges[i], time=case.time_of(i))
            memory_s = time.perf_counter() - t0
            plan, _ = strategy.build_context(session, q.text)
            return ArmPrompt(plan, None, memory_s=memory_s)

        return memory
    raise ValueError(f"unknown qa arm {arm!r}")


def question_session(strategy, case: RetrievalCase, position: int, session=None, *, step=None, cache=None):
    """A ChatSession of ``strategy`` holding exactly the first ``position`` exchanges of ``case`` (with times),
    embedded: ``session`` (an earlier one of this case and strategy) extended or cut back where given, so
    the questions of one conversation embed its exchanges once.

    ``step`` (``limits.WorkBudget.step``): entered around each batch of ``EMBED_STEP`` exchanges, so a
    server can end a long embedding between batches; ``cache`` ({case id: session}) holds the session
    from the start, so the batches embedded before such an end are kept for the next question. Without
    ``step`` the exchanges are embedded in one batch."""
    if session is None:
        session = strategy.new_session()
    if cache is not None:
        cache[case.id] = session
    if len(session.episodes) > position:
        session.episodes.truncate(position)
    store_exchanges(strategy, case, session, position, step=step)
    return session
