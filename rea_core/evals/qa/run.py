"""Running ``rea eval qa``: every question of every case under every arm (resumable), each with the gold
answer's NLL, a greedy short answer, its F1/EM and the optional judge's verdict; then results.json and
report.html."""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Sequence

import numpy as np
from tqdm.auto import tqdm

from ...backends.base import ANSWER_LOGPROBS, KV_REUSE, has
from ...reconstruction import render_messages
from ...session import new_session_id
from ...settings import Settings
from ...templates import fill, load_template
from ..cases import RetrievalCase
from .arms import ARMS, MAX_NEW_TOKENS, MEMORY_ARMS, QAContext, arm_prompts, with_question
from .inputs import CATEGORIES, check_arms
from .metrics import answer_scores, first_line, parse_judge, summarize_arms
from .nll import answer_nll
from .report import write_qa_report


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
    nll_note: str | None = None  # why ``nll`` is None (``nll.answer_nll``: never a cut prompt's NLL)


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
    prompts = arm_prompts(arm, case, ctx)
    records = []
    try:
        questions = sorted(case.queries, key=lambda q: q.position)
        for q in tqdm(questions, desc=f"{arm} {case.id}", unit="q", file=sys.stderr, leave=False):
            t0 = time.perf_counter()
            built = prompts(q)
            plan = with_question(built.plan, q.text, count)
            messages = render_messages(plan)
            scored = answer_nll(g, messages, q.answer, cache_key=key)  # an over-long prompt: refused, not cut
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
                        nll=scored.nll,
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
                        nll_note=scored.note,
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
    from ..report import write_results
    from ..retrieval import CachedEmbedder
    from ..runner import RecordStore, run_arms

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
        "nll": nll_note
        or "mean NLL per gold answer token, teacher-forced after the arm's prompt "
        "(a prompt and answer over the context window are not scored: nll_scored counts the scored)",
        "max_new_tokens": max_new_tokens,
        "categories": list(categories) if categories else None,
        "config": config.to_dict(),
        "arms": {arm: {"describe": ARMS[arm], **per[arm]} for arm in arms},
        "memory_building": memory,
    }
    write_results(out_dir, results)
    write_qa_report(out_dir, results)
    return results
