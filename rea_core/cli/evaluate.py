"""``rea eval ...`` and ``rea data ...``: evaluations and the suites they run on (README, "Evaluations")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..evals.qa import DEFAULT_ARMS as QA_ARMS
from ..evals.retrieval import DEFAULT_POLICIES as RETRIEVAL_POLICIES
from .common import checked_out, load_pipeline, reported_errors, settings_from_options, split_names
from .options import (
    AdapterOpt,
    ContextWindowOpt,
    EmbedderOpt,
    LimitOpt,
    MaxNewTokensOpt,
    ModelOpt,
    QueryRewriteOpt,
    RecentCompressedOpt,
    RecentRawOpt,
    RecentRawTokensOpt,
    RecognizerModelOpt,
    RulesOnlyOpt,
    ScorerOpt,
    SeedOpt,
    Stage2Opt,
    TauHighOpt,
    TauLowOpt,
    TokenizerOpt,
)

eval_app = typer.Typer(
    help="Evaluations: adherence (IAR), ablations, sweep, state "
    "tracking (JGA), latency, recognizer, segmentation, retrieval, qa.",
    no_args_is_help=True,
)
data_app = typer.Typer(help="Generate evaluation suites from the packaged conversation sets.", no_args_is_help=True)

OutOpt = Annotated[
    Path, typer.Option("--out", help="Output folder: records.jsonl, results.json, report.html. Re-running resumes.")
]
StrategiesOpt = Annotated[str, typer.Option("--strategies", help="Comma-separated strategies or ablation arms.")]
DataOpt = Annotated[Path, typer.Option("--data", help="JSONL file in the task's format (README).")]


def _names(value: str) -> list[str]:
    from ..evals.arms import get_arm

    names = split_names(value)
    for n in names:
        get_arm(n)
    return names


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _print_summary(results: dict) -> None:
    summary = {k: v for k, v in results.items() if k not in ("per_turn", "errors", "cells")}
    typer.echo(json.dumps(summary, indent=2, default=str))


@eval_app.command()
def adherence(
    data: DataOpt,
    out: OutOpt,
    strategies: StrategiesOpt = "vanilla,rea",
    limit: LimitOpt = None,
    model: ModelOpt = None,
    adapter: AdapterOpt = None,
    embedder: EmbedderOpt = None,
    recognizer_model: RecognizerModelOpt = None,
    tau_low: TauLowOpt = None,
    tau_high: TauHighOpt = None,
    max_new_tokens: MaxNewTokensOpt = 64,
    context_window: ContextWindowOpt = None,
    recent_raw: RecentRawOpt = None,
    recent_raw_tokens: RecentRawTokensOpt = None,
    recent_compressed: RecentCompressedOpt = None,
    query_rewrite: QueryRewriteOpt = None,
) -> None:
    """Instruction adherence (IAR) per strategy and per turn depth.

    Example: rea eval adherence --data suite.jsonl --strategies vanilla,rea --out runs/adh
    """
    from ..evals import adherence as task

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        arms = _names(strategies)
        config = settings_from_options(
            tau_low=tau_low,
            tau_high=tau_high,
            max_new_tokens=max_new_tokens,
            recent_raw=recent_raw,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            query_rewrite=query_rewrite,
            kv_reuse=False,
            model=model,
            adapter=adapter,
            embedder=embedder,
            recognizer_model=recognizer_model,
        )
        cases = task.load_cases(data, max_chars=config.runtime.max_message_chars)[:limit]  # before any model call
        models = load_pipeline(config, context_window)
        _print_summary(task.evaluate(models, config, cases, arms, out))


@eval_app.command()
def ablations(
    data: DataOpt,
    out: OutOpt,
    arms: Annotated[
        str, typer.Option("--arms", help="Ablation arms (Table 4, D.3).")
    ] = "vanilla,em-only,em-hcr,em-hcr-im,oracle-im,im-withheld,im-false-positive,all-raw,all-omitted",
    limit: LimitOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    max_new_tokens: MaxNewTokensOpt = 64,
) -> None:
    """Table 4 / D.3 ablations on an adherence file: EM only, EM+HCR, EM+HCR+IM, oracle / withheld / false-positive IM.

    Example: rea eval ablations --data suite.jsonl --out runs/ablations --limit 10
    """
    from ..evals import adherence as task

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        names = _names(arms)
        config = settings_from_options(max_new_tokens=max_new_tokens, kv_reuse=False, model=model, embedder=embedder)
        cases = task.load_cases(data, max_chars=config.runtime.max_message_chars)[:limit]
        models = load_pipeline(config)
        _print_summary(task.evaluate(models, config, cases, names, out, title="Ablations"))


@eval_app.command()
def sweep(
    data: DataOpt,
    out: OutOpt,
    values: Annotated[
        str, typer.Option("--values", help="Comma-separated threshold values; every pair with tau_low <= tau_high.")
    ] = "0.3,0.4,0.5,0.6,0.7,0.8",
    limit: LimitOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    max_new_tokens: MaxNewTokensOpt = 64,
) -> None:
    """tau_low x tau_high grid: IAR and mean prompt tokens as heatmaps (Figure 6).

    Example: rea eval sweep --data suite.jsonl --values 0.3,0.5,0.7 --out runs/sweep --limit 5
    """
    from ..evals import adherence
    from ..evals import sweep as task
    from ..retrieval.hcr import validate_thresholds

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        grid = sorted({float(v) for v in values.split(",") if v.strip()})
        for v in grid:
            validate_thresholds(v, v)
        config = settings_from_options(max_new_tokens=max_new_tokens, kv_reuse=False, model=model, embedder=embedder)
        cases = adherence.load_cases(data, max_chars=config.runtime.max_message_chars)[:limit]
        models = load_pipeline(config)
        _print_summary(task.evaluate(models, config, cases, grid, out))


@eval_app.command()
def state(
    out: OutOpt,
    data: Annotated[
        Optional[Path], typer.Option("--data", help="State-tracking JSONL; default: a generated suite.")
    ] = None,
    strategies: StrategiesOpt = "vanilla,rea",
    n: Annotated[int, typer.Option("--n", help="Generated problems per flavor (without --data).")] = 10,
    seed: SeedOpt = 0,
    limit: LimitOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    max_new_tokens: MaxNewTokensOpt = 32,
) -> None:
    """State tracking (Appendix E): JGA for Full, Shared and REA on Code, Math and Actions.

    Example: rea eval state --out runs/state --n 10
    """
    from ..evals import state as task

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        arms = _names(strategies)
        if data is None:
            out.mkdir(parents=True, exist_ok=True)
            data = out / "state_suite.jsonl"
            if not data.exists():
                data.write_text(
                    "".join(json.dumps(c) + "\n" for c in task.make_state_suite(n=n, seed=seed)), encoding="utf-8"
                )
        config = settings_from_options(max_new_tokens=max_new_tokens, kv_reuse=False, model=model, embedder=embedder)
        cases = task.load_cases(data, max_chars=config.runtime.max_message_chars)[:limit]
        models = load_pipeline(config)
        _print_summary(task.evaluate(models, config, cases, arms, out))


@eval_app.command()
def latency(
    out: OutOpt,
    turns: Annotated[int, typer.Option("--turns", help="Turns per conversation (Long-MT-Bench+ averages 60+).")] = 60,
    every: Annotated[int, typer.Option("--every", help="Generate and time every k-th turn (1 = all).")] = 5,
    n: Annotated[int, typer.Option("--n", help="Conversations.")] = 1,
    strategies: StrategiesOpt = "vanilla,rea",
    seed: SeedOpt = 0,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    max_new_tokens: MaxNewTokensOpt = 64,
    context_window: ContextWindowOpt = None,
) -> None:
    """Per-turn latency and prompt tokens over long conversations; vanilla/REA ratio over the last turns.

    Example: rea eval latency --turns 60 --strategies vanilla,rea --out runs/latency
    """
    from ..evals import latency as task

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        arms = _names(strategies)
        if every < 1 or turns < 2:
            raise typer.BadParameter("--every must be >= 1 and --turns >= 2")
        config = settings_from_options(max_new_tokens=max_new_tokens, kv_reuse=False, model=model, embedder=embedder)
        models = load_pipeline(config, context_window)
        _print_summary(task.evaluate(models, config, arms, out, turns=turns, every=every, n=n, seed=seed))


@eval_app.command()
def recognizer(
    out: OutOpt,
    data: Annotated[
        Optional[Path],
        typer.Option("--data", help="Labeled JSONL (text, label); default: the shipped validation set."),
    ] = None,
    model: ModelOpt = None,
    rules_only: RulesOnlyOpt = False,
    stage2: Stage2Opt = None,
    limit: LimitOpt = None,
) -> None:
    """Recognizer precision, recall, F1, accuracy and confusion matrix (global vs not).

    Example: rea eval recognizer --out runs/recognizer
    Example: rea eval recognizer --stage2 llm --out runs/recognizer-llm
    """
    from ..evals import recognizer_eval as task
    from ..recognizer import InstructionRecognizer, build_recognizer
    from ..recognizer.default import load_label_set

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        rows = load_label_set(data or task.default_validation_path())[:limit]
        settings = settings_from_options(model=model, recognizer_stage2=stage2)
        stage2 = settings.rea.recognizer_stage2
        if rules_only:
            recognizer, name = InstructionRecognizer(None), "rules only"
        elif stage2 == "llm":
            from ..backends import load_generator

            classifier = load_generator(settings.models.model, cache_dir=settings.models.cache_dir)
            recognizer, name = build_recognizer(classifier, None, "llm"), f"rules + few-shot {classifier.name}"
        else:
            from ..backends import load_embedder

            recognizer, name = (
                build_recognizer(None, load_embedder("packaged"), stage2),
                "rules + shipped trained classifier",
            )
        _print_summary(task.evaluate(recognizer, rows, out, name=name))


@eval_app.command()
def segmentation(
    out: OutOpt,
    data: Annotated[
        Optional[Path],
        typer.Option("--data", help="Gold JSONL (turns + boundaries); default: the shipped hand-labeled set."),
    ] = None,
    threshold: Annotated[
        Optional[float],
        typer.Option("--threshold", help="Embedding segmenter's cosine threshold (secom_boundary_threshold)."),
    ] = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """SeCom's segmenters (zero-shot LLM with embedding fallback, embedding alone): Pk and WindowDiff on a labeled set.

    Example: rea eval segmentation --out runs/segmentation
    """
    from ..evals import segmentation as task

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        from ..methods.secom.config import SeComConfig

        config = settings_from_options(
            secom=None if threshold is None else SeComConfig(boundary_threshold=threshold),
            model=model,
            embedder=embedder,
        )
        task.load_gold(data or task.default_gold_path(), max_chars=config.runtime.max_message_chars)  # no model yet
        models = load_pipeline(config)
        _print_summary(task.evaluate(models, config, out, data))


@eval_app.command()
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


@eval_app.command()
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
    from ..evals.retrieval import load_cases

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
            typer.echo(
                f"{arm:12s} NLL {_num(a.get('nll'))}  gap share {gap}  "
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


@data_app.command("make-adherence")
def make_adherence(
    out: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    n: Annotated[int, typer.Option("--n")] = 20,
    turns: Annotated[int, typer.Option("--turns")] = 24,
    seed: SeedOpt = 0,
    compliant_history: Annotated[
        bool,
        typer.Option(
            "--compliant-history",
            help="Rewrite every stored reply to follow the instructions in "
            "force at its turn, as a capable assistant's history would.",
        ),
    ] = False,
    kinds: Annotated[
        Optional[str],
        typer.Option(
            "--kinds",
            help="Only these instruction kinds, comma-separated (one wording and one framing kind at least), "
            "e.g. keyword,postscript,quotation: the families the shipped adapter was not trained on.",
        ),
    ] = None,
) -> None:
    """Generate an adherence suite: 14 verifiable instruction kinds, distractors, revocations, probes at
    several depths.

    Example: rea data make-adherence --n 20 --turns 24 --seed 0 --compliant-history --out suite.jsonl
    """
    from ..evals.suites import make_adherence_suite

    with reported_errors():
        checked_out(out, folder=False)
        try:
            suite = make_adherence_suite(
                n=n,
                turns=turns,
                seed=seed,
                compliant_history=compliant_history,
                kinds=split_names(kinds) if kinds else None,
            )
        except ValueError as exc:
            raise typer.BadParameter(str(exc))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in suite), encoding="utf-8")
        typer.echo(
            f"wrote {len(suite)} conversations{' with compliant histories' if compliant_history else ''} to {out}"
        )


@data_app.command("make-state")
def make_state(
    out: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    n: Annotated[int, typer.Option("--n", help="Problems per flavor.")] = 10,
    seed: SeedOpt = 0,
) -> None:
    """Generate a state-tracking suite (Code, Math, Actions; Full and Shared conditions).

    Example: rea data make-state --n 10 --out state.jsonl
    """
    from ..evals.state import make_state_suite

    with reported_errors():
        checked_out(out, folder=False)
        suite = make_state_suite(n=n, seed=seed)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in suite), encoding="utf-8")
        typer.echo(f"wrote {len(suite)} conversations to {out}")
