"""One question answered from REA's prompt for the app's Inspect tab (``answer_question``): the gold
answer's NLL and its gap share, a short answer with F1/EM, and what REA decided about each evidence
exchange, as ``rea eval qa``'s rea arm measures it."""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass

from ...backends.base import ANSWER_LOGPROBS, KV_REUSE, finish, has
from ...errors import DataFormatError
from ...limits import BudgetSpent, WorkBudget
from ...reconstruction import render_messages
from ...session import new_session_id
from ...types import PromptPlan, Reason, Resolution
from ..cases import RetrievalCase
from .inputs import CATEGORIES
from .metrics import answer_scores, first_line, gap_share, speaker_names, without_speaker
from .nll import AnswerNLL, answer_nll, reference_nlls
from .prompts import MAX_NEW_TOKENS, question_session, with_question


@dataclass(frozen=True)
class EvidenceDecision:
    """What REA decided about one of a question's evidence exchanges."""

    turn: int
    time: str | None  # stored form of rea_core.timestamps, None when the data gives none
    score: float | None
    resolution: Resolution
    reason: Reason
    user: str

    def to_dict(self) -> dict:
        return {**asdict(self), "resolution": self.resolution.value, "reason": self.reason.value}


@dataclass(frozen=True)
class QuestionAnswer:
    """One question answered from REA's prompt at given thresholds, with what the evidence became in it:
    a researcher sees whether a retrieval failure cost the answer."""

    case_id: str
    position: int
    question: str
    answer: str  # the gold answer
    category: str | None
    tau_low: float
    tau_high: float
    prediction: str | None  # first line of the greedy reply, a copied speaker name taken off (None: max_new_tokens 0)
    reply: str | None
    f1: float | None
    em: float | None
    nll: float | None  # mean NLL per gold answer token after REA's prompt; None: see nll_note
    nll_note: str | None  # why there is no NLL
    none_nll: float | None  # after the system prompt and question alone (with ``reference``)
    oracle_nll: float | None  # after the evidence exchanges alone, raw (with ``reference`` and evidence)
    gap_share: float | None  # (none - rea) / (none - oracle) for this question
    prompt_tokens: int
    evidence: tuple[EvidenceDecision, ...]
    plan: PromptPlan  # REA's prompt for the question, as the model read it (the QA wrapper in the query)
    seconds: float
    budget_note: str = ""  # what the time budget cut (the answer, or the references); "" when nothing

    @property
    def evidence_shown(self) -> float | None:
        """Share of the evidence exchanges in the prompt (None: the question names none)."""
        if not self.evidence:
            return None
        return sum(e.resolution is not Resolution.OMIT for e in self.evidence) / len(self.evidence)

    def omitted_evidence(self) -> list[int]:
        return [e.turn for e in self.evidence if e.resolution is Resolution.OMIT]

    def to_dict(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in ("plan", "evidence")}
        return {**out, "evidence": [e.to_dict() for e in self.evidence], "evidence_shown": self.evidence_shown}


def question_label(q) -> str:
    """A question as a picker shows it: "category · question", or "turn N · question" without a category."""
    where = CATEGORIES.get(q.category) if q.category is not None else None
    return f"{where or f'turn {q.position}'} · {q.text}"


def shown_answer(reply: str, case: RetrievalCase) -> str:
    """A generated reply as the short answer people read and F1/EM score: its first line, without a
    leading name of one of ``case``'s speakers (LoCoMo turns read "Kofi: ...", and the model copies the
    form: "Kofi: Biscuit" is the answer "Biscuit")."""
    return without_speaker(first_line(reply), speaker_names(text for pair in case.exchanges for text in pair))


def answer_question(
    strategy,
    case: RetrievalCase,
    question,
    *,
    sessions: dict | None = None,
    max_new_tokens: int = MAX_NEW_TOKENS,
    reference: bool = True,
    budget: WorkBudget | None = None,
) -> QuestionAnswer:
    """``question`` (a ``RetrievalQuery`` of ``case`` with a gold answer) answered from REAStrategy's real
    plan at ``strategy``'s thresholds, as ``rea eval qa``'s rea arm measures it: the gold NLL, a greedy short
    answer with F1/EM (on ``shown_answer``: a copied speaker name taken off), prompt tokens, and the
    decisions about its evidence exchanges. With ``reference``, also the NLL under the none and oracle
    prompts (short ones), so this question's gap share says how much of the evidence's gain REA kept.

    ``sessions``: a cache {case id: ChatSession} kept by the caller across questions of one conversation
    (filled here); without it the exchanges before the question are embedded anew. Compressed replies
    are text stand-ins (no latents), as in the qa evaluation and Inspect's trace.

    ``budget`` (a server's): the work runs in its steps (batches of exchanges embedded, the NLL, the
    answer, the references); the answer is cut at the time left (``budget_note`` says so), and the
    references are skipped once it is spent.

    Raises:
        DataFormatError: the question has no gold answer or lies beyond the case's exchanges.
        BudgetSpent: the budget ran out while embedding the exchanges before the question (those
            embedded so far stay in ``sessions``: the next call goes on from them).
    """
    from ...retrieval.trace import text_replies

    if not question.answer:
        raise DataFormatError(f"{case.id}: the question {question.text[:60]!r} has no gold answer")
    if not 0 <= question.position <= len(case.exchanges):
        raise DataFormatError(f"{case.id}: the question sits at turn {question.position}, past the conversation")
    t0 = time.perf_counter()
    strategy = text_replies(strategy)
    g = strategy.generator
    count = g.count_tokens
    cache = {} if sessions is None else sessions
    budget_step = budget.step if budget is not None else None
    step = budget_step or nullcontext
    session = question_session(strategy, case, question.position, cache.get(case.id), step=budget_step, cache=cache)
    plan, decisions = strategy.build_context(session, question.text)
    plan = with_question(plan, question.text, count)
    messages = render_messages(plan)
    scores_nll = has(g, ANSWER_LOGPROBS)
    scored = AnswerNLL(None) if scores_nll else answer_nll(g, messages, question.answer)  # no model call: a note
    key = f"qa-answer:{new_session_id()}" if has(g, KV_REUSE) else None  # NLL, then generation
    budget_note, reply = "", None
    try:
        with step():
            if scores_nll:
                scored = answer_nll(g, messages, question.answer, cache_key=key)
        if max_new_tokens:
            with step():
                generation = finish(
                    g.stream(
                        messages,
                        max_new_tokens=max_new_tokens,
                        max_prompt_tokens=max(1, g.context_window - max_new_tokens),
                        cache_key=key,
                        budget_s=budget and budget.left(),
                    )
                )
            reply = generation.text
            if generation.out_of_time:
                budget_note = f"the answer was cut: {budget.spent_note()}"
    except BudgetSpent as spent:
        budget_note = f"no answer: {spent.note}"
    finally:
        if key is not None:
            g.prefix_cache.drop(key)
    none_nll = oracle_nll = None
    if reference and scores_nll and not budget_note:
        try:
            none_nll, oracle_nll = reference_nlls(strategy, case, question, step)
        except BudgetSpent as spent:
            budget_note = f"references not scored: {spent.note}"
    by_turn = {d.turn: d for d in decisions}
    evidence = tuple(
        EvidenceDecision(
            turn=n,
            time=case.time_of(n),
            score=by_turn[n].score,
            resolution=by_turn[n].resolution,
            reason=by_turn[n].reason,
            user=case.exchanges[n][0],
        )
        for n in question.needed
        if n in by_turn
    )
    prediction = None if reply is None else shown_answer(reply, case)
    tau_low, tau_high = strategy.config.thresholds
    return QuestionAnswer(
        case_id=case.id,
        position=question.position,
        question=question.text,
        answer=question.answer,
        category=CATEGORIES.get(question.category) if question.category is not None else None,
        tau_low=tau_low,
        tau_high=tau_high,
        prediction=prediction,
        reply=reply,
        **answer_scores(prediction, question.answer),
        nll=scored.nll,
        nll_note=scored.note,
        none_nll=none_nll,
        oracle_nll=oracle_nll,
        gap_share=gap_share(none_nll, scored.nll, oracle_nll),
        prompt_tokens=g.prompt_tokens(messages),
        evidence=evidence,
        plan=plan,
        seconds=time.perf_counter() - t0,
        budget_note=budget_note,
    )
