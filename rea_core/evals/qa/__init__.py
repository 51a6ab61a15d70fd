"""Question answering from each arm's prompt: recall is not the outcome.

``rea eval retrieval`` says whether the evidence reached the prompt; this says whether the model can
answer from that prompt. Per question and arm it builds the arm's real prompt (chat messages through
``render_messages`` on the strategy's ``PromptPlan``) and measures:

* the gold answer's NLL (mean per answer token), teacher-forced after the prompt, where the
  generator has ANSWER_LOGPROBS (local transformers models; not over an OpenAI-compatible server);
  a weak model's generated answers are poor, but the likelihood it gives the gold answer still
  moves with what the prompt holds;
* a greedy short answer (``qa_question`` template), scored by SQuAD token F1 and exact match, and
  optionally CORRECT/WRONG by an LLM judge (``qa_judge`` template, Mem0/LoCoMo style);
* the prompt's tokens (and their share of the whole conversation) and wall seconds.

The NLL gap share of an arm is (none - arm) / (none - oracle) on the MEAN NLLs of a question set:
0 is no better than no history, 1 is as good as the evidence alone.

Inputs are the retrieval loader's cases (``retrieval.load_cases(..., answers=True)``): LoCoMo JSON,
or conversation JSONL whose query turns carry ``"answer"`` (and optionally ``"needed"``).

One module per job: ``inputs`` (which questions), ``prompts`` (each arm's prompt), ``nll`` (the gold answer's
NLL, one rule: an over-long prompt is refused, never cut), ``run`` (``rea eval qa``), ``answer`` (one
question for the app's Inspect tab), ``metrics`` (pure scores and summaries) and ``report``.
"""

from __future__ import annotations

from ...errors import DataFormatError  # noqa: F401  (raised by prepare_cases and answer_question)
from .answer import EvidenceDecision, QuestionAnswer, answer_question, question_label
from .inputs import CATEGORIES, prepare_cases, select_questions
from .metrics import (
    answer_scores,
    exact_match,
    first_line,
    gap_share,
    mean_nll,
    normalize_answer,
    parse_judge,
    speaker_names,
    summarize,
    summarize_arms,
    token_f1,
    without_speaker,
)
from .nll import AnswerNLL, answer_nll, reference_nlls
from .prompts import (
    ARMS,
    DEFAULT_ARMS,
    MAX_NEW_TOKENS,
    MEMORY_ARMS,
    ArmPrompt,
    QAContext,
    REAPlanner,
    arm_prompts,
    bm25_keep,
    episodes,
    kept_exchange_tokens,
    none_plan,
    question_session,
    shown_turns,
    subset_plan,
    vanilla_cut,
    vanilla_plan,
    with_question,
    wrapped_question,
)
from .report import MEM0_ORDER, mem0_table, qa_figures, qa_report
from .run import QA_TASK, QARecord, evaluate, judge_verdict, run_case

check_arms = QA_TASK.check_arms

__all__ = [
    "ARMS",
    "CATEGORIES",
    "DEFAULT_ARMS",
    "MAX_NEW_TOKENS",
    "MEM0_ORDER",
    "MEMORY_ARMS",
    "QA_TASK",
    "AnswerNLL",
    "ArmPrompt",
    "EvidenceDecision",
    "QAContext",
    "QARecord",
    "QuestionAnswer",
    "REAPlanner",
    "answer_nll",
    "answer_question",
    "answer_scores",
    "arm_prompts",
    "bm25_keep",
    "check_arms",
    "episodes",
    "evaluate",
    "exact_match",
    "first_line",
    "gap_share",
    "judge_verdict",
    "kept_exchange_tokens",
    "mean_nll",
    "mem0_table",
    "none_plan",
    "normalize_answer",
    "parse_judge",
    "prepare_cases",
    "qa_figures",
    "qa_report",
    "question_label",
    "question_session",
    "reference_nlls",
    "run_case",
    "select_questions",
    "shown_turns",
    "speaker_names",
    "subset_plan",
    "summarize",
    "summarize_arms",
    "token_f1",
    "vanilla_cut",
    "vanilla_plan",
    "with_question",
    "without_speaker",
    "wrapped_question",
]
