"""The gold answer's NLL after a prompt: one rule for ``rea eval qa`` and the app's Inspect answers.

A prompt that with the answer does not fit the generator's context window is refused, never cut: a
prompt that lost its oldest tokens is not the arm's prompt, so its NLL would describe a prompt that no
arm built (and the gap share would credit or blame the arm for it). A refused NLL is None with a note
saying why, and the summaries count the questions scored (``nll_scored``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...backends.base import ANSWER_LOGPROBS, has
from ...reconstruction import render_messages
from ..cases import RetrievalCase
from .metrics import mean_nll
from .prompts import none_plan, subset_plan, with_question


@dataclass(frozen=True)
class AnswerNLL:
    """Mean NLL per gold answer token after a prompt, or why there is none."""

    nll: float | None
    note: str | None = None  # why ``nll`` is None (no log-probabilities, or the prompt and answer overflow)


def answer_nll(generator, messages, answer: str, *, cache_key: str | None = None) -> AnswerNLL:
    """The gold ``answer``'s mean NLL teacher-forced after ``messages``; refused (None with a note) where the
    generator gives no log-probabilities of a given reply, or where prompt and answer overflow its context
    window (positions beyond it would score nothing meaningful, and a cut prompt is another prompt)."""
    if not has(generator, ANSWER_LOGPROBS):
        return AnswerNLL(None, f"not available: '{generator.name}' gives no log-probabilities of a given reply")
    window = generator.context_window
    if generator.prompt_tokens(messages) + generator.count_tokens(answer) > window:
        return AnswerNLL(None, f"not scored: the prompt and answer exceed the generator's {window:,}-token window")
    return AnswerNLL(mean_nll(generator.answer_logprobs(messages, answer, cache_key=cache_key)))


def reference_nlls(strategy, case: RetrievalCase, question, step) -> tuple[float | None, float | None]:
    """The gold answer's NLL after the question alone (none) and after its evidence alone (oracle; None
    without evidence), each in one ``step``."""
    g, runtime = strategy.generator, strategy.runtime
    count = g.count_tokens
    with step():
        bare = none_plan(question.text, count_tokens=count, runtime=runtime)
        none_nll = answer_nll(g, render_messages(with_question(bare, question.text, count)), question.answer).nll
    if not question.needed:
        return none_nll, None
    with step():
        evidence_plan = subset_plan(
            case, question.position, set(question.needed), question.text, count_tokens=count, runtime=runtime
        )
        messages = render_messages(with_question(evidence_plan, question.text, count))
        oracle_nll = answer_nll(g, messages, question.answer).nll
    return none_nll, oracle_nll
