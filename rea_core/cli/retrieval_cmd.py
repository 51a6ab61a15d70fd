"""``rea eval retrieval`` and ``rea eval qa``: does the evidence reach the prompt, and can the model answer
from it (README, "Evaluations"). Registered on the ``eval`` group by ``evaluate``, in the help's order."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..evals.qa import DEFAULT_ARMS as QA_ARMS
from ..evals.retrieval import DEFAULT_POLICIES as RETRIEVAL_POLICIES
from .common import load_pipeline, split_names
from .eval_cmd import run_task
from .options import (
    ContextWindowOpt,
    EmbedderOpt,
    LimitOpt,
    ModelOpt,
    OutOpt,
    RecentCompressedOpt,
    RecentRawOpt,
    RecentRawTokensOpt,
    ScorerOpt,
    TauHighOpt,
    TauLowOpt,
    TokenizerOpt,
)


def retrieval(
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            help='Conversation JSONL with "needed" on query turns, '
            "or LoCoMo JSON (a file or a folder) with --format locomo.",
        ),
    ],
    out: OutOpt,
    fmt: Annotated[str, typer.Option("--format", help="jsonl or locomo.")] = "jsonl",
    policies: Annotated[
        str, typer.Option("--policies", help="Comma-separated REA policies and baselines (README, 'Retrieval').")
    ] = ",".join(RETRIEVAL_POLICIES),
    limit: LimitOpt = None,
    calibrate: Annotated[
        bool, typer.Option("--calibrate", help="Print suggested tau_low / tau_high per scorer for --target.")
    ] = False,
    target: Annotated[
        float, typer.Option("--target", help="Calibration: share of queries whose needed exchanges must all be kept.")
    ] = 0.9,
    scorer: ScorerOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    tau_low: TauLowOpt = None,
    tau_high: TauHighOpt = None,
    recent_raw: RecentRawOpt = None,
    recent_raw_tokens: RecentRawTokensOpt = None,
    recent_compressed: RecentCompressedOpt = None,
) -> None:
    """Does HCR keep what each query needs? Kept share, recall, recall@k, prompt tokens, threshold sweeps, baselines.

    Example: rea eval retrieval --data ../shared/locomo-dev --format locomo --out runs/locomo --calibrate --target 0.6
    """
    from ..evals.retrieval import RETRIEVAL_TASK

    def check() -> None:
        if limit is not None and limit < 1:
            raise typer.BadParameter("--limit must be at least 1")
        if not 0.0 < target <= 1.0:
            raise typer.BadParameter("--target must lie in (0, 1]")

    run_task(
        RETRIEVAL_TASK,
        data=data,
        out=out,
        arms=policies,
        limit=limit,
        load=load_pipeline,
        overrides=dict(
            tau_low=tau_low,
            tau_high=tau_high,
            scorer=scorer,
            recent_raw=recent_raw,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            model=model,
            embedder=embedder,
        ),
        options=dict(fmt=fmt, dataset=f"{data.name} ({fmt})", calibrate_target=target if calibrate else None),
        check=check,
    )


def qa(
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            help='Conversation JSONL whose question turns carry "answer" (and "needed" for the oracle arm), '
            "or LoCoMo JSON (a file or a folder) with --format locomo.",
        ),
    ],
    out: OutOpt,
    fmt: Annotated[str, typer.Option("--format", help="jsonl or locomo.")] = "jsonl",
    arms: Annotated[
        str,
        typer.Option(
            "--arms",
            help="Comma-separated arms: none, oracle, vanilla, rea, rea-no-time, bm25, secom, comedy (README, 'QA').",
        ),
    ] = ",".join(QA_ARMS),
    limit: Annotated[
        Optional[int],
        typer.Option(
            "--limit", help="Only N questions, spread across conversations (the same N, the same questions)."
        ),
    ] = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    judge_model: Annotated[
        Optional[str],
        typer.Option(
            "--judge-model",
            help="Grade each answer CORRECT/WRONG with this model (usually openai:<id> on an OpenAI-compatible "
            "server; template rea_core/templates/qa_judge.md).",
        ),
    ] = None,
    tokenizer: TokenizerOpt = None,
    max_new_tokens: Annotated[
        int,
        typer.Option(
            "--max-new-tokens",
            help="Longest generated answer, in tokens (a short phrase); 0: the gold answer's NLL only, no answers.",
        ),
    ] = 24,
    categories: Annotated[
        Optional[str],
        typer.Option(
            "--categories", help="Only LoCoMo questions of these comma-separated categories (e.g. temporal)."
        ),
    ] = None,
    context_window: ContextWindowOpt = None,
    scorer: ScorerOpt = None,
    tau_low: TauLowOpt = None,
    tau_high: TauHighOpt = None,
    recent_raw: RecentRawOpt = None,
    recent_raw_tokens: RecentRawTokensOpt = None,
    recent_compressed: RecentCompressedOpt = None,
) -> None:
    """Can the model answer from each arm's prompt? Gold-answer NLL and its gap share, F1/EM, judge, tokens.

    Example: rea eval qa --data ../shared/locomo-dev/26.json --format locomo --limit 40 --out runs/qa
    """
    from ..evals.qa import QA_TASK

    def check() -> None:
        if max_new_tokens < 0:
            raise typer.BadParameter("--max-new-tokens must be 0 (NLL only) or more")

    def judge(settings) -> dict:
        if not judge_model:
            return {}
        from ..loading import load_judge

        return {"judge": load_judge(judge_model, openai=settings.openai, cache_dir=settings.models.cache_dir)}

    run_task(
        QA_TASK,
        data=data,
        out=out,
        arms=arms,
        limit=limit,
        load=load_pipeline,
        overrides=dict(
            tau_low=tau_low,
            tau_high=tau_high,
            scorer=scorer,
            recent_raw=recent_raw,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            model=model,
            embedder=embedder,
            tokenizer=tokenizer,
        ),
        options=dict(
            fmt=fmt,
            dataset=f"{data.name} ({fmt})",
            max_new_tokens=max_new_tokens,
            categories=split_names(categories) if categories else None,
        ),
        context_window=context_window,
        check=check,
        after_load=judge,
    )
