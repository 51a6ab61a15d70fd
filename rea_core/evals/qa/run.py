"""Running ``rea eval qa``: every question of every case under every arm (resumable), each with the gold
answer's NLL, a greedy short answer, its F1/EM and the optional judge's verdict; then results.json and
report.html (``QATask``, run by ``task.run_eval``)."""

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
from ..arms import QA
from ..cases import RetrievalCase, load_cases
from ..retrieval import CachedEmbedder
from ..task import EvalTask, Report, RunContext, register_eval, run_eval
from .inputs import CATEGORIES, prepare_cases
from .metrics import answer_scores, first_line, parse_judge, summarize_arms
from .nll import answer_nll
from .prompts import ARMS, DEFAULT_ARMS, MAX_NEW_TOKENS, MEMORY_ARMS, QAContext, arm_prompts, with_question
from .report import mem0_table, qa_figures, qa_report


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
    settings: Settings,
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
    options = dict(dataset=dataset, judge=judge, limit=limit, max_new_tokens=max_new_tokens, categories=categories)
    return run_eval(QA_TASK, models, settings, cases, arms, out_dir, **options)


def nll_note(generator) -> str | None:
    """Why no NLL is scored with ``generator`` (None: it is)."""
    if has(generator, ANSWER_LOGPROBS):
        return None
    return (
        f"not available: '{generator.name}' gives no log-probabilities of a given reply (an OpenAI-compatible server)"
    )


class QATask(EvalTask):
    """``rea eval qa``: can the model answer from each arm's prompt?"""

    name, title, arm_kind, default_arms = "qa", "qa", QA, DEFAULT_ARMS
    fixed_settings = {"kv_reuse": False, "codec": "none"}

    def load_cases(self, path, *, max_chars=None, limit=None, arms=(), fmt="jsonl", categories=None, **options):
        cases = load_cases(path, fmt, answers=True, max_chars=max_chars)
        return prepare_cases(cases, arms, limit, categories=categories)

    def prepare(self, ctx: RunContext) -> RunContext:
        models = replace(ctx.models, embedder=CachedEmbedder(ctx.models.embedder))
        o = ctx.options
        shared = QAContext(
            models=models,
            settings=ctx.settings,
            max_new_tokens=o.get("max_new_tokens", MAX_NEW_TOKENS),
            judge=o.get("judge"),
        )
        note = nll_note(models.generator)
        if note:
            print(f"qa: NLL {note}", file=sys.stderr)
        return replace(ctx, models=models, shared=shared)

    def _common(self, ctx: RunContext) -> dict:
        o = ctx.options
        return {
            "dataset": o.get("dataset"),
            "generator": ctx.models.generator.name,
            "embedder": ctx.models.embedder.name,
            "judge": getattr(o.get("judge"), "name", None),
        }

    def run_settings(self, ctx: RunContext) -> dict:
        o, categories = ctx.options, ctx.options.get("categories")
        return {
            "task": "qa",
            **self._common(ctx),
            "limit": o.get("limit"),
            "categories": list(categories) if categories else None,
            "max_new_tokens": ctx.shared.max_new_tokens,
            "config": ctx.settings.to_dict(),
        }

    def run_case(self, arm: str, case: RetrievalCase, ctx: RunContext) -> list[dict]:
        return run_case(arm, case, ctx.shared)

    def summarize(self, records, ctx: RunContext) -> dict:
        per = summarize_arms(dict(records))
        ids = [c.id for c in ctx.cases]
        memory = {
            arm: {
                "seconds_per_conversation": float(
                    np.mean([sum(r["memory_s"] for r in records[arm] if r["case_id"] == c) for c in ids])
                )
            }
            for arm in records
            if arm in MEMORY_ARMS
        }
        categories = ctx.options.get("categories")
        return {
            "task": "qa",
            "dataset": ctx.options.get("dataset"),
            "conversations": len(ctx.cases),
            "questions": sum(len(c.queries) for c in ctx.cases),
            **{k: v for k, v in self._common(ctx).items() if k != "dataset"},
            "nll": nll_note(ctx.models.generator)
            or "mean NLL per gold answer token, teacher-forced after the arm's prompt "
            "(a prompt and answer over the context window are not scored: nll_scored counts the scored)",
            "max_new_tokens": ctx.shared.max_new_tokens,
            "categories": list(categories) if categories else None,
            "config": ctx.settings.to_dict(),
            "arms": {arm: {"describe": ARMS[arm], **per[arm]} for arm in records},
            "memory_building": memory,
        }

    def console(self, results: dict, out_dir: Path) -> str:
        def num(value: float | None) -> str:
            return "n/a" if value is None else f"{value:.3f}"

        lines = [f"NLL: {results['nll']}"]
        for arm, m in results["arms"].items():
            a = m["all"]
            gap = "n/a" if a.get("gap_share") is None else f"{a['gap_share']:+.3f}"
            judged = "" if a.get("judge") is None else f"  judge {a['judge']:.3f}"
            scored = a.get("nll_scored", a.get("questions"))
            refused = "" if scored == a.get("questions") else f" ({scored}/{a.get('questions')} scored)"
            lines.append(
                f"{arm:12s} NLL {num(a.get('nll'))}{refused}  gap share {gap}  "
                f"F1 {num(a.get('f1'))}  EM {num(a.get('em'))}{judged}  "
                f"prompt {a.get('prompt_tokens', 0):7.0f} tok ({a.get('prompt_share', 0):6.1%})  "
                f"{a.get('seconds', 0):.2f} s/q"
            )
        header, rows = mem0_table(results)
        lines.append("\nMem0 layout\n" + " | ".join(header))
        cell = lambda v: f"{v:.3f}" if isinstance(v, float) else ("-" if v is None else str(v))  # noqa: E731
        lines += [" | ".join(cell(v) for v in row) for row in rows]
        for arm, m in results["memory_building"].items():
            lines.append(f"{arm}: memory building {m['seconds_per_conversation']:.1f} s per conversation")
        return "\n".join([*lines, f"report: {Path(out_dir) / 'report.html'}"])

    def report(self, results: dict) -> Report:
        return qa_report(results)

    def figures(self, results: dict):
        return qa_figures(results)


QA_TASK = register_eval(QATask())
