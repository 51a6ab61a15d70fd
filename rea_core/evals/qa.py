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
"""

from __future__ import annotations

import re
import string
import sys
import time
from collections import Counter
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from tqdm.auto import tqdm

from ..backends.base import ANSWER_LOGPROBS, KV_REUSE, finish, has
from ..errors import DataFormatError
from ..limits import BudgetSpent, WorkBudget
from ..memory.episodic import EpisodicMemory, exchange_text
from ..reconstruction import assemble_plan, build_prompt_plan, render_messages
from ..session import new_session_id
from ..settings import Settings
from ..templates import fill, load_template
from ..types import Decision, PromptPlan, Reason, Resolution, SegmentKind
from .retrieval import RetrievalCase, exchange_tokens, store_exchanges

MAX_NEW_TOKENS = 24  # a short phrase
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}  # LoCoMo's numbering
MEM0_ORDER = ("single-hop", "multi-hop", "open-domain", "temporal")  # the Mem0 paper's column order

ARMS: dict[str, str] = {
    "none": "system prompt and question only",
    "oracle": "the question's evidence exchanges only, raw, in turn order",
    "vanilla": "the vanilla strategy's full history, oldest whole exchanges dropped once per conversation to fit "
    "the window (context window - max new tokens, with a reserve for the question and answer)",
    "rea": "REAStrategy's plan at its configured thresholds (no latent codec: compressed replies are text "
    "stand-ins; no Instructional Memory)",
    "rea-no-time": "as rea, with RuntimeConfig.show_time off",
    "bm25": "BM25 (bm25s) top exchanges, added in rank order until their tokens reach what rea kept for that "
    "question, shown raw in turn order",
    "secom": "the SeCom strategy (segments, compression, retrieval), memory built exchange by exchange",
    "comedy": "the COMEDY strategy (session memories, compressive memory), memory built exchange by exchange",
}
DEFAULT_ARMS = ("none", "oracle", "vanilla", "rea", "rea-no-time", "bm25")  # secom/comedy: minutes of memory building
MEMORY_ARMS = ("secom", "comedy")


@dataclass(frozen=True)
class QARecord:
    """One question under one arm."""

    case_id: str
    position: int  # exchanges before the question
    question: str
    answer: str
    category: str | None
    nll: float | None  # mean NLL per gold answer token; None where the generator has no ANSWER_LOGPROBS
    answer_tokens: int
    prediction: str | None  # the first line of the generated reply (None: NLL-only run, max_new_tokens 0)
    reply: str | None
    f1: float | None
    em: float | None
    judge: bool | None  # None: no judge ran, or its verdict was unreadable
    judge_raw: str | None
    prompt_tokens: int  # templated prompt, as the generator reads it
    history_tokens: int  # the templated prompt of every exchange before the question, raw, plus the question
    prompt_share: float
    evidence_shown: float | None  # share of the needed exchanges in the prompt (None: memory arm or no evidence)
    seconds: float  # prompt building + NLL + generation (memory building and the judge apart)
    memory_s: float  # memory building before this question (secom, comedy; exchange embedding for rea)
    judge_s: float
    cut_exchanges: int = 0  # vanilla: oldest exchanges dropped to fit the window


# -- metrics (pure) --------------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """SQuAD normalization: lowercase, punctuation and articles removed, whitespace collapsed."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 between normalized answers (both empty: 1)."""
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def answer_scores(prediction: str | None, gold: str) -> dict:
    """``f1`` and ``em`` of a generated answer against the gold (both None where none was generated)."""
    if prediction is None:
        return {"f1": None, "em": None}
    return {"f1": token_f1(prediction, gold), "em": exact_match(prediction, gold)}


def mean_nll(logprobs: Sequence[float]) -> float | None:
    """Mean negative log-likelihood per token (None for no tokens)."""
    return -float(np.mean(logprobs)) if len(logprobs) else None


def gap_share(none: float | None, arm: float | None, oracle: float | None) -> float | None:
    """(none - arm) / (none - oracle), on mean NLLs: the share of the evidence's NLL gain an arm keeps.
    None when a term is missing or the evidence gains nothing (the share has no meaning then)."""
    if none is None or arm is None or oracle is None or none - oracle <= 1e-9:
        return None
    return (none - arm) / (none - oracle)


def parse_judge(text: str) -> bool | None:
    """The judge's label: the last CORRECT or WRONG in its reply (None when there is neither)."""
    labels = re.findall(r"\b(CORRECT|WRONG)\b", text.upper())
    return None if not labels else labels[-1] == "CORRECT"


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def summarize(records: Sequence[dict]) -> dict:
    """Means over one arm's records (NLL and judge over the records that have them)."""
    if not records:
        return {"questions": 0}

    def mean(key: str) -> float | None:
        values = [r[key] for r in records if r.get(key) is not None]
        return float(np.mean(values)) if values else None

    return {
        "questions": len(records),
        "nll": mean("nll"),
        "f1": mean("f1"),
        "em": mean("em"),
        "judge": mean("judge"),
        "judged": sum(r.get("judge") is not None for r in records),
        "prompt_tokens": mean("prompt_tokens"),
        "prompt_share": mean("prompt_share"),
        "evidence_shown": mean("evidence_shown"),
        "seconds": mean("seconds"),
        "memory_s_per_question": mean("memory_s"),
    }


def summarize_arms(records: dict[str, list[dict]]) -> dict[str, dict]:
    """Per arm, the summary over all its questions and per LoCoMo category, each with the NLL gap share
    from the group's mean NLLs under ``none`` and ``oracle`` (None where either arm did not run)."""
    groups: dict[str, Callable[[dict], bool]] = {"all": lambda r: True}
    cats = sorted({r["category"] for recs in records.values() for r in recs if r.get("category")})
    groups.update({c: (lambda r, c=c: r.get("category") == c) for c in cats})
    out = {
        arm: {g: summarize([r for r in recs if keep(r)]) for g, keep in groups.items()}
        for arm, recs in records.items()
    }
    for arm in out:
        for g in groups:
            none = out.get("none", {}).get(g, {}).get("nll")
            oracle = out.get("oracle", {}).get(g, {}).get("nll")
            out[arm][g]["gap_share"] = gap_share(none, out[arm][g].get("nll"), oracle)
    return out


# -- inputs ----------------------------------------------------------------------------------------


def check_arms(names: Sequence[str]) -> list[str]:
    unknown = [n for n in names if n not in ARMS]
    if unknown:
        raise DataFormatError(f"unknown qa arm {', '.join(unknown)}; choose from {', '.join(ARMS)}")
    if not names:
        raise DataFormatError(f"no qa arm given; choose from {', '.join(ARMS)}")
    return list(dict.fromkeys(names))


def select_questions(cases: Sequence[RetrievalCase], limit: int | None) -> list[RetrievalCase]:
    """``limit`` questions spread across conversations (round robin) and, within one, evenly over its
    question list (so LoCoMo's categories mix). Deterministic: the same call picks the same questions."""
    if limit is None:
        return list(cases)
    caps = [len(c.queries) for c in cases]
    quotas = [0] * len(cases)
    left = min(limit, sum(caps))
    while left:
        for i in range(len(cases)):
            if left and quotas[i] < caps[i]:
                quotas[i] += 1
                left -= 1
    picked = []
    for case, k in zip(cases, quotas):
        if k:
            idx = np.linspace(0, len(case.queries) - 1, k).round().astype(int) if k > 1 else [0]
            picked.append(replace(case, queries=tuple(case.queries[i] for i in sorted(set(int(j) for j in idx)))))
    return picked


def prepare_cases(
    cases: Sequence[RetrievalCase],
    arms: Sequence[str],
    limit: int | None,
    *,
    categories: Sequence[str] | None = None,
) -> list[RetrievalCase]:
    """Cases down to the questions with a gold answer (of ``categories``, LoCoMo's names, where given),
    checked for what the arms need, then ``limit``ed.

    Raises:
        DataFormatError: no question has an answer, an unknown category, or the oracle arm meets a
            question without evidence.
    """
    unknown = [c for c in categories or () if c not in CATEGORIES.values()]
    if unknown:
        raise DataFormatError(f"unknown category {', '.join(unknown)}; choose from {', '.join(CATEGORIES.values())}")

    def wanted(q) -> bool:
        return bool(q.answer) and (not categories or CATEGORIES.get(q.category) in categories)

    kept = [replace(c, queries=tuple(q for q in c.queries if wanted(q))) for c in cases]
    kept = [c for c in kept if c.queries]
    if not kept:
        raise DataFormatError(
            'no question carries a gold answer ("answer")'
            + (f" in categories {', '.join(categories)}" if categories else "")
            + "; nothing to evaluate"
        )
    if "oracle" in arms:
        for c in kept:
            for q in c.queries:
                if not q.needed:
                    raise DataFormatError(
                        f'{c.id}: the question at turn {q.position} ({q.text[:60]!r}) has no "needed" evidence, '
                        "which the oracle arm shows; add it or leave oracle out of --arms"
                    )
    if limit is not None and limit < 1:
        raise DataFormatError("--limit must be at least 1")
    return select_questions(kept, limit)


# -- prompts per arm -------------------------------------------------------------------------------


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
    from ..loading import build_strategy

    strategy = build_strategy("vanilla", ctx.models, runtime=ctx.runtime)
    session = strategy.new_session()
    session.episodes = episodes(case, start, end)
    plan, _ = strategy.build_context(session, "")
    return plan


class REAPlanner:
    """REAStrategy's real plan for each question (scores from the bare question, at its thresholds), the
    session filled exchange by exchange as ``retrieval.rea_records`` does."""

    def __init__(self, case: RetrievalCase, ctx: QAContext, *, show_time: bool = True):
        from ..methods.rea.strategy import REAStrategy

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
    from ..methods.secom.retriever import bm25_scores

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
        from ..loading import build_strategy

        strategy = build_strategy(arm, ctx.models, ctx.settings.method_config(arm), runtime=ctx.runtime)
        session = strategy.new_session()

        def memory(q) -> ArmPrompt:
            t0 = time.perf_counter()
            for i in range(len(session.episodes), q.position):
                if i and case.times and case.time_of(i) != case.time_of(i - 1):
                    strategy.end_session(session)  # a new conversation session (LoCoMo's dated sessions)
                strategy.store(session, *case.exchanges[i], time=case.time_of(i))
            memory_s = time.perf_counter() - t0
            plan, _ = strategy.build_context(session, q.text)
            return ArmPrompt(plan, None, memory_s=memory_s)

        return memory
    raise ValueError(f"unknown qa arm {arm!r}")


# -- running ---------------------------------------------------------------------------------------


def judge_verdict(judge, question: str, gold: str, prediction: str) -> tuple[bool | None, str]:
    """The judge model's CORRECT/WRONG on ``prediction`` (``qa_judge`` template), and its reply."""
    prompt = fill(load_template("qa_judge"), question=question, gold=gold, prediction=prediction or "(empty)")
    reply = judge.generate([{"role": "user", "content": prompt}], max_new_tokens=96).text
    return parse_judge(reply), reply


def run_case(arm: str, case: RetrievalCase, ctx: QAContext) -> list[dict]:
    """Every question of ``case`` under ``arm``: its prompt, the gold answer's NLL, a greedy answer, its scores."""
    g = ctx.models.generator
    count = g.count_tokens
    # One history prefill per conversation, under a server-made key (never the file's case id).
    key = f"qa:{arm}:{new_session_id()}" if has(g, KV_REUSE) else None
    scores_nll = has(g, ANSWER_LOGPROBS)
    prompts = arm_prompts(arm, case, ctx)
    records = []
    try:
        questions = sorted(case.queries, key=lambda q: q.position)
        for q in tqdm(questions, desc=f"{arm} {case.id}", unit="q", file=sys.stderr, leave=False):
            t0 = time.perf_counter()
            built = prompts(q)
            plan = with_question(built.plan, q.text, count)
            messages = render_messages(plan)
            window = max(1, g.context_window - max(ctx.max_new_tokens, count(q.answer)))
            nll = (  # the prompt as chat reads it: an over-long one loses its oldest tokens
                mean_nll(g.answer_logprobs(messages, q.answer, cache_key=key, max_prompt_tokens=window))
                if scores_nll
                else None
            )
            reply = None
            if ctx.max_new_tokens:  # 0: the gold answer's NLL only, no generated answer
                reply = g.generate(
                    messages,
                    max_new_tokens=ctx.max_new_tokens,
                    max_prompt_tokens=max(1, g.context_window - ctx.max_new_tokens),
                    cache_key=key,
                ).text
            seconds = time.perf_counter() - t0 - built.memory_s
            prediction = None if reply is None else first_line(reply)
            verdict, raw, judge_s = None, None, 0.0
            if ctx.judge is not None and prediction is not None:
                t1 = time.perf_counter()
                verdict, raw = judge_verdict(ctx.judge, q.text, q.answer, prediction)
                judge_s = time.perf_counter() - t1
            history = ctx.whole_tokens(case, q)
            prompt_tokens = g.prompt_tokens(messages)
            shown = (
                None
                if built.shown is None or not q.needed
                else sum(n in built.shown for n in q.needed) / len(q.needed)
            )
            records.append(
                asdict(
                    QARecord(
                        case_id=case.id,
                        position=q.position,
                        question=q.text,
                        answer=q.answer,
                        category=CATEGORIES.get(q.category) if q.category is not None else None,
                        nll=nll,
                        answer_tokens=count(q.answer),
                        prediction=prediction,
                        reply=reply,
                        **answer_scores(prediction, q.answer),
                        judge=verdict,
                        judge_raw=raw,
                        prompt_tokens=prompt_tokens,
                        history_tokens=history,
                        prompt_share=prompt_tokens / history if history else 1.0,
                        evidence_shown=shown,
                        seconds=seconds,
                        memory_s=built.memory_s,
                        judge_s=judge_s,
                        cut_exchanges=built.cut,
                    )
                )
            )
    finally:
        if key is not None:
            g.prefix_cache.drop(key)
    return records


def evaluate(
    models,
    config: Settings,
    cases: list[RetrievalCase],
    arms: Sequence[str],
    out_dir: str | Path,
    *,
    dataset: str,
    judge=None,
    limit: int | None = None,
    max_new_tokens: int = MAX_NEW_TOKENS,
    categories: Sequence[str] | None = None,
) -> dict:
    """Run every arm on every case (resumable), then write results.json and report.html."""
    from .report import write_results
    from .retrieval import CachedEmbedder
    from .runner import RecordStore, run_arms

    arms = check_arms(arms)
    models = replace(models, embedder=CachedEmbedder(models.embedder))
    ctx = QAContext(models=models, settings=config, max_new_tokens=max_new_tokens, judge=judge)
    g = models.generator
    nll_note = (
        None
        if has(g, ANSWER_LOGPROBS)
        else f"not available: '{g.name}' gives no log-probabilities of a given reply (an OpenAI-compatible server)"
    )
    store = RecordStore(
        out_dir,
        {
            "task": "qa",
            "dataset": dataset,
            "generator": g.name,
            "embedder": models.embedder.name,
            "judge": getattr(judge, "name", None),
            "limit": limit,
            "categories": list(categories) if categories else None,
            "max_new_tokens": max_new_tokens,
            "config": config.to_dict(),
        },
    )
    if nll_note:
        print(f"qa: NLL {nll_note}", file=sys.stderr)
    run_arms(store, arms, cases, lambda arm, case: run_case(arm, case, ctx), label="qa")
    ids = [c.id for c in cases]
    records = {arm: store.records(arm, ids) for arm in arms}
    per = summarize_arms(records)
    memory = {
        arm: {
            "seconds_per_conversation": float(
                np.mean([sum(r["memory_s"] for r in records[arm] if r["case_id"] == c) for c in ids])
            )
        }
        for arm in arms
        if arm in MEMORY_ARMS
    }
    results = {
        "task": "qa",
        "dataset": dataset,
        "conversations": len(cases),
        "questions": sum(len(c.queries) for c in cases),
        "generator": g.name,
        "embedder": models.embedder.name,
        "judge": getattr(judge, "name", None),
        "nll": nll_note or "mean NLL per gold answer token, teacher-forced after the arm's prompt",
        "max_new_tokens": max_new_tokens,
        "categories": list(categories) if categories else None,
        "config": config.to_dict(),
        "arms": {arm: {"describe": ARMS[arm], **per[arm]} for arm in arms},
        "memory_building": memory,
    }
    write_results(out_dir, results)
    write_qa_report(out_dir, results)
    return results


# -- one question (the app's Inspect tab) ----------------------------------------------------------


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
    prediction: str | None  # first line of the greedy reply (None: max_new_tokens 0)
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


def _reference_nlls(strategy, case: RetrievalCase, question, step) -> tuple[float | None, float | None]:
    """The gold answer's NLL after the question alone (none) and after its evidence alone (oracle; None
    without evidence), each in one ``step``."""
    g, runtime = strategy.generator, strategy.runtime
    count = g.count_tokens
    with step():
        bare = none_plan(question.text, count_tokens=count, runtime=runtime)
        none_nll = _nll(g, render_messages(with_question(bare, question.text, count)), question.answer, None)
    if not question.needed:
        return none_nll, None
    with step():
        evidence_plan = subset_plan(
            case, question.position, set(question.needed), question.text, count_tokens=count, runtime=runtime
        )
        oracle_nll = _nll(
            g, render_messages(with_question(evidence_plan, question.text, count)), question.answer, None
        )
    return none_nll, oracle_nll


def _nll(generator, messages, answer: str, key: str | None) -> float | None:
    """Mean gold-answer NLL after ``messages``; None where prompt and answer overflow the context window
    (positions beyond it would score nothing meaningful)."""
    if generator.prompt_tokens(messages) + generator.count_tokens(answer) > generator.context_window:
        return None
    return mean_nll(generator.answer_logprobs(messages, answer, cache_key=key))


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
    answer with F1/EM, prompt tokens, and the decisions about its evidence exchanges. With ``reference``,
    also the NLL under the none and oracle prompts (short ones), so this question's gap share says how
    much of the evidence's gain REA kept.

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
    from ..retrieval.trace import text_replies

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
    note = None if scores_nll else f"not available: '{g.name}' gives no log-probabilities of a given reply"
    key = f"qa-answer:{new_session_id()}" if has(g, KV_REUSE) else None  # NLL, then generation
    budget_note, nll, reply = "", None, None
    try:
        with step():
            nll = _nll(g, messages, question.answer, key) if scores_nll else None
        if scores_nll and nll is None:
            note = f"not scored: the prompt and answer exceed the generator's {g.context_window:,}-token window"
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
            none_nll, oracle_nll = _reference_nlls(strategy, case, question, step)
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
    prediction = None if reply is None else first_line(reply)
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
        nll=nll,
        nll_note=note,
        none_nll=none_nll,
        oracle_nll=oracle_nll,
        gap_share=gap_share(none_nll, nll, oracle_nll),
        prompt_tokens=g.prompt_tokens(messages),
        evidence=evidence,
        plan=plan,
        seconds=time.perf_counter() - t0,
        budget_note=budget_note,
    )


# -- report ----------------------------------------------------------------------------------------


def mem0_table(results: dict) -> tuple[list[str], list[list]]:
    """The Mem0 paper's layout: F1 and judge (J) per category, overall, prompt tokens, seconds."""
    cats = [c for c in MEM0_ORDER if any(c in a for a in results["arms"].values())]
    header = ["arm"] + [f"{c} {m}" for c in cats for m in ("F1", "J")] + ["overall F1", "overall J", "tokens", "s/q"]
    rows = []
    for arm, m in results["arms"].items():
        row = [arm]
        for c in cats:
            row += [m.get(c, {}).get("f1"), m.get(c, {}).get("judge")]
        row += [m["all"].get("f1"), m["all"].get("judge"), m["all"].get("prompt_tokens"), m["all"].get("seconds")]
        rows.append(row)
    return header, rows


def write_qa_report(out_dir: str | Path, results: dict) -> Path:
    import plotly.graph_objects as go

    from .report import write_report

    arms = results["arms"]
    groups = ["all"] + [c for c in MEM0_ORDER if any(c in a for a in arms.values())]
    gap = go.Figure()
    f1 = go.Figure()
    for grp in groups:
        gap.add_bar(x=list(arms), y=[a.get(grp, {}).get("gap_share") for a in arms.values()], name=grp)
        f1.add_bar(x=list(arms), y=[a.get(grp, {}).get("f1") for a in arms.values()], name=grp)
    gap.update_layout(
        title="NLL gap share per arm and category: (none - arm) / (none - oracle) on mean NLLs", barmode="group"
    )
    f1.update_layout(title="Token F1 of the generated short answer", barmode="group", yaxis_range=[0, 1])
    scatter = go.Figure()
    for arm, m in arms.items():
        scatter.add_scatter(
            x=[m["all"].get("prompt_tokens")],
            y=[m["all"].get("gap_share")],
            mode="markers+text",
            text=[arm],
            textposition="top center",
            name=arm,
            marker_size=11,
        )
    scatter.update_layout(
        title="Prompt tokens vs NLL gap share", xaxis_title="mean prompt tokens", yaxis_title="NLL gap share"
    )
    header = ["arm", "questions", "mean NLL", "gap share", "F1", "EM", "judge", "prompt tokens", "prompt share"]
    header += ["evidence shown", "s/question", "memory s/question"]
    rows = [
        [
            arm,
            m["all"].get("questions"),
            m["all"].get("nll"),
            m["all"].get("gap_share"),
            m["all"].get("f1"),
            m["all"].get("em"),
            m["all"].get("judge"),
            m["all"].get("prompt_tokens"),
            m["all"].get("prompt_share"),
            m["all"].get("evidence_shown"),
            m["all"].get("seconds"),
            m["all"].get("memory_s_per_question"),
        ]
        for arm, m in arms.items()
    ]
    cat_rows = [
        [arm, grp, m[grp].get("questions"), m[grp].get("nll"), m[grp].get("gap_share"), m[grp].get("f1")]
        for arm, m in arms.items()
        for grp in groups[1:]
        if grp in m
    ]
    tables = [
        ("Arms", header, rows),
        ("Mem0 layout (F1, judge J, prompt tokens, seconds per question)", *mem0_table(results)),
    ]
    if cat_rows:
        tables.append(("Per category", ["arm", "category", "questions", "mean NLL", "gap share", "F1"], cat_rows))
    notes = (
        f"{results['conversations']} conversations, {results['questions']} questions; "
        f"generator {results['generator']}; "
        f"NLL: {results['nll']}; judge: {results['judge'] or 'none'}. "
        + " ".join(f"{arm}: {ARMS[arm]}." for arm in arms)
    )
    return write_report(out_dir, f"QA ({results['dataset']})", [gap, f1, scatter], tables, notes=notes)
