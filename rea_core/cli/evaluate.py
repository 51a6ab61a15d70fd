"""``rea eval ...`` and ``rea data ...``: evaluations and the suites they run on (README, "Evaluations")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..evals.adherence import ABLATIONS_TASK
from .common import checked_out, load_pipeline, reported_errors, settings_from_options, split_names
from .eval_cmd import TaskGroup, run_task
from .options import (
    AdapterOpt,
    ContextWindowOpt,
    EmbedderOpt,
    LimitOpt,
    MaxNewTokensOpt,
    ModelOpt,
    OutOpt,
    QueryRewriteOpt,
    RecentCompressedOpt,
    RecentRawOpt,
    RecentRawTokensOpt,
    RecognizerModelOpt,
    RulesOnlyOpt,
    SeedOpt,
    Stage2Opt,
    TauHighOpt,
    TauLowOpt,
)
from .retrieval_cmd import qa, retrieval

eval_app = typer.Typer(
    cls=TaskGroup,  # adds a generic command for each registered evaluation without one here
    help="Evaluations: adherence (IAR), ablations, sweep, state "
    "tracking (JGA), latency, recognizer, segmentation, retrieval, qa.",
    no_args_is_help=True,
)
data_app = typer.Typer(help="Generate evaluation suites from the packaged conversation sets.", no_args_is_help=True)

StrategiesOpt = Annotated[str, typer.Option("--strategies", help="Comma-separated strategies or ablation arms.")]
DataOpt = Annotated[Path, typer.Option("--data", help="JSONL file in the task's format (README).")]
ABLATION_ARMS = ",".join(ABLATIONS_TASK.default_arms)


def _names(value: str) -> list[str]:
    from ..evals.arms import get_arm

    names = split_names(value)
    for n in names:
        get_arm(n)
    return names


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
    from ..evals.adherence import ADHERENCE_TASK

    overrides = dict(
        tau_low=tau_low,
        tau_high=tau_high,
        max_new_tokens=max_new_tokens,
        recent_raw=recent_raw,
        recent_raw_tokens=recent_raw_tokens,
        recent_compressed=recent_compressed,
        query_rewrite=query_rewrite,
        model=model,
        adapter=adapter,
        embedder=embedder,
        recognizer_model=recognizer_model,
    )
    run_task(
        ADHERENCE_TASK,
        data=data,
        out=out,
        arms=strategies,
        limit=limit,
        load=load_pipeline,
        overrides=overrides,
        context_window=context_window,
    )


@eval_app.command()
def ablations(
    data: DataOpt,
    out: OutOpt,
    arms: Annotated[str, typer.Option("--arms", help="Ablation arms (Table 4, D.3).")] = ABLATION_ARMS,
    limit: LimitOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    max_new_tokens: MaxNewTokensOpt = 64,
) -> None:
    """Table 4 / D.3 ablations on an adherence file: EM only, EM+HCR, EM+HCR+IM, oracle / withheld / false-positive IM.

    Example: rea eval ablations --data suite.jsonl --out runs/ablations --limit 10
    """
    overrides = dict(max_new_tokens=max_new_tokens, model=model, embedder=embedder)
    run_task(ABLATIONS_TASK, data=data, out=out, arms=arms, limit=limit, load=load_pipeline, overrides=overrides)


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
    from ..retrieval.thresholds import Thresholds

    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        grid = sorted({float(v) for v in values.split(",") if v.strip()})
        for v in grid:
            Thresholds(v, v)  # each value a valid threshold, or one ThresholdError line
        settings = settings_from_options(max_new_tokens=max_new_tokens, kv_reuse=False, model=model, embedder=embedder)
        cases = adherence.load_cases(data, max_chars=settings.runtime.max_message_chars)[:limit]
        models = load_pipeline(settings)
        _print_summary(task.evaluate(models, settings, cases, grid, out))


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
        settings = settings_from_options(max_new_tokens=max_new_tokens, kv_reuse=False, model=model, embedder=embedder)
        cases = task.load_cases(data, max_chars=settings.runtime.max_message_chars)[:limit]
        models = load_pipeline(settings)
        _print_summary(task.evaluate(models, settings, cases, arms, out))


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
    from ..evals.latency import LATENCY_TASK

    def check() -> None:
        if every < 1 or turns < 2:
            raise typer.BadParameter("--every must be >= 1 and --turns >= 2")

    run_task(
        LATENCY_TASK,
        data=None,
        out=out,
        arms=strategies,
        limit=None,
        load=load_pipeline,
        overrides=dict(max_new_tokens=max_new_tokens, model=model, embedder=embedder),
        options=dict(turns=turns, every=every, n=n, seed=seed),
        context_window=context_window,
        check=check,
    )


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

            llm = load_generator(settings.models.model, cache_dir=settings.models.cache_dir)
            recognizer, name = build_recognizer(llm, None, "llm"), f"rules + few-shot {llm.name}"
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

        settings = settings_from_options(
            secom=None if threshold is None else SeComConfig(boundary_threshold=threshold),
            model=model,
            embedder=embedder,
        )
        task.load_gold(data or task.default_gold_path(), max_chars=settings.runtime.max_message_chars)  # no model yet
        models = load_pipeline(settings)
        _print_summary(task.evaluate(models, settings, out, data))


# Defined in ``retrieval_cmd``; registered here, after segmentation, so ``rea eval --help`` keeps its order.
eval_app.command()(retrieval)
eval_app.command()(qa)


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
