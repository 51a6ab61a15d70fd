"""``rea eval retrieval`` and ``rea eval qa``: does the evidence reach the prompt, and can the model answer
from it (README, "Evaluations"). Registered on the ``eval`` group by ``evaluate``, in the help's order."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..evals.qa import DEFAULT_ARMS as QA_ARMS
from ..evals.retrieval import DEFAULT_POLICIES as RETRIEVAL_POLICIES
from .common import checked_out, load_pipeline, reported_errors, settings_from_options, split_names
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


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


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
    from ..evals import retrieval as task

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        names = task.check_policies(split_names(policies))
        if limit is not None and limit < 1:
            raise typer.BadParameter("--limit must be at least 1")
        if not 0.0 < target <= 1.0:
            raise typer.BadParameter("--target must lie in (0, 1]")
        config = settings_from_options(
            tau_low=tau_low,
            tau_high=tau_high,
            scorer=scorer,
            recent_raw=recent_raw,
            kv_reuse=False,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            model=model,
            embedder=embedder,
        )
        # Validated before any model load, each turn within REA_MAX_MESSAGE_CHARS as in the app.
        cases = task.load_cases(data, fmt, max_chars=config.runtime.max_message_chars)[:limit]
        models = load_pipeline(config)
        results = task.evaluate(
            models,
            config,
            cases,
            names,
            out,
            dataset=f"{data.name} ({fmt})",
            calibrate_target=target if calibrate else None,
        )
        for p, m in results["policies"].items():
            matched = m.get("recency_matched_all_kept")
            typer.echo(
                f"{p:20s} all kept {m.get('all_kept', 0):.3f}  "
                + (f"(recency at equal kept {matched:.3f})  " if matched is not None else "")
                + f"recall {m.get('recall', 0):.3f}  kept {m.get('kept_share', 0):6.1%}  "
                f"prompt {m.get('prompt_share', 0):6.1%}  "
                + "  ".join(f"r@{k} {m.get(f'recall@{k}', 0):.3f}" for k in task.RECALL_KS)
                + (f"  {m['seconds']:.3f} s/query" if "seconds" in m else "")
                + (f"  rewritten {m['rewritten']:.1%}" if "rewritten" in m else "")
            )
        for p, c in results.get("calibration", {}).items():
            typer.echo(
                f"calibrated {p} ({c['scorer']}): tau_low {c['tau_low']:.2f} "
                f"tau_high {c['tau_high']:.2f} -> all kept {c['all_kept']:.3f} "
                f"at {c['kept_share']:.1%} kept{'' if c['reached'] else ' (target not reached)'}"
            )
        typer.echo(f"report: {out / 'report.html'}")


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
    from ..evals import qa as task
    from ..evals.cases import load_cases

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        names = task.check_arms(split_names(arms))
        if max_new_tokens < 0:
            raise typer.BadParameter("--max-new-tokens must be 0 (NLL only) or more")
        wanted = split_names(categories) if categories else None
        config = settings_from_options(
            tau_low=tau_low,
            tau_high=tau_high,
            scorer=scorer,
            recent_raw=recent_raw,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            kv_reuse=False,
            model=model,
            embedder=embedder,
            tokenizer=tokenizer,
            codec="none",
        )
        cases = task.prepare_cases(  # before any model load, each turn within REA_MAX_MESSAGE_CHARS
            load_cases(data, fmt, answers=True, max_chars=config.runtime.max_message_chars),
            names,
            limit,
            categories=wanted,
        )
        models = load_pipeline(config, context_window)
        judge = None
        if judge_model:
            from ..loading import load_judge

            judge = load_judge(judge_model, openai=config.openai, cache_dir=config.models.cache_dir)
        results = task.evaluate(
            models,
            config,
            cases,
            names,
            out,
            dataset=f"{data.name} ({fmt})",
            judge=judge,
            limit=limit,
            max_new_tokens=max_new_tokens,
            categories=wanted,
        )
        typer.echo(f"NLL: {results['nll']}")
        for arm, m in results["arms"].items():
            a = m["all"]
            gap = "n/a" if a.get("gap_share") is None else f"{a['gap_share']:+.3f}"
            judged = "" if a.get("judge") is None else f"  judge {a['judge']:.3f}"
            scored = a.get("nll_scored", a.get("questions"))
            refused = "" if scored == a.get("questions") else f" ({scored}/{a.get('questions')} scored)"
            typer.echo(
                f"{arm:12s} NLL {_num(a.get('nll'))}{refused}  gap share {gap}  "
                f"F1 {_num(a.get('f1'))}  EM {_num(a.get('em'))}{judged}  "
                f"prompt {a.get('prompt_tokens', 0):7.0f} tok ({a.get('prompt_share', 0):6.1%})  "
                f"{a.get('seconds', 0):.2f} s/q"
            )
        header, rows = task.mem0_table(results)
        typer.echo("\nMem0 layout\n" + " | ".join(header))
        for row in rows:
            typer.echo(" | ".join(f"{v:.3f}" if isinstance(v, float) else ("-" if v is None else str(v)) for v in row))
        for arm, m in results["memory_building"].items():
            typer.echo(f"{arm}: memory building {m['seconds_per_conversation']:.1f} s per conversation")
        typer.echo(f"report: {out / 'report.html'}")
