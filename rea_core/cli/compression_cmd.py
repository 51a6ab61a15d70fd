"""Latent-compression commands: ``rea data make-codec-sessions``, ``rea train compressor``, ``rea eval compression``.

Reproduce the shipped codec of the packaged backbone (README, "Latent Episodic Memory"):
    rea data make-codec-sessions --out runs/codec/sessions.jsonl
    rea train compressor --data runs/codec/sessions.jsonl --out runs/codec/cpu --preset cpu --ship
    rea eval compression --data runs/codec/sessions.jsonl --out runs/codec/eval
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import checked_out, quiet_libraries, reported_errors, settings_from_options
from .evaluate import OutOpt, _print_summary, data_app, eval_app
from .options import LimitOpt, ModelOpt
from .train import app as train_app

SessionsOpt = Annotated[Path, typer.Option("--data", help="Codec sessions JSONL from 'rea data make-codec-sessions'.")]


@data_app.command("make-codec-sessions")
def make_codec_sessions(
    out: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    limit_per_source: Annotated[
        int, typer.Option("--limit-per-source", help="Most sessions taken from each set.")
    ] = 2000,
    sources: Annotated[
        str, typer.Option("--sources", help="Comma-separated: sharegpt, chitchat.")
    ] = "sharegpt,chitchat",
    max_chars: Annotated[
        int, typer.Option("--max-chars", help="Longest user+reply interaction kept, in characters.")
    ] = 800,
    heldout_share: Annotated[
        float, typer.Option("--heldout-share", help="Share of sessions held out for 'rea eval compression'.")
    ] = 0.05,
    self_targets: Annotated[
        bool,
        typer.Option(
            "--self-targets", help="Also write the backbone's own reply to every turn (slow: one generation a turn)."
        ),
    ] = False,
    model: ModelOpt = "packaged",
) -> None:
    """Codec training sessions (REA paper, A.3): 3-15 clean turns from ShareGPT and Chit Chat, split train/held-out.

    Example: rea data make-codec-sessions --out runs/codec/sessions.jsonl --limit-per-source 2000
    """
    from ..training.codec_data import add_self_targets, build_sessions, write_sessions
    from .common import split_names

    with reported_errors():
        checked_out(out, folder=False)
        try:
            sessions = list(
                build_sessions(
                    sources=split_names(sources),
                    limit_per_source=limit_per_source,
                    max_chars=max_chars,
                    heldout_share=heldout_share,
                )
            )
        except ValueError as exc:
            raise typer.BadParameter(str(exc))
        if self_targets:
            from tqdm.auto import tqdm

            from ..backends import load_generator
            from ..runtime import RuntimeConfig

            quiet_libraries()
            with tqdm(total=len(sessions), desc="self-distillation targets", unit="session") as bar:
                sessions = add_self_targets(
                    sessions, load_generator(model), system_prompt=RuntimeConfig().system_prompt, progress=bar
                )
        counts = write_sessions(sessions, out)
        turns = sum(len(s.turns) for s in sessions)
        typer.echo(f"wrote {len(sessions)} sessions ({turns} turns; {counts}) to {out}")


@train_app.command()
def compressor(
    data: SessionsOpt,
    out: Annotated[
        Path, typer.Option("--out", help="Run folder: checkpoint/ (resumable), codec/, log.jsonl, report.html.")
    ],
    preset: Annotated[
        str,
        typer.Option(
            "--preset",
            help="'cpu' (under 30 min on 2 cores), 'gpu' (REA paper, A.2), "
            "or 'retention-cpu' / 'retention-gpu' (reconstruction kept in the mix).",
        ),
    ] = "cpu",
    lr: Annotated[Optional[float], typer.Option("--lr")] = None,
    batch_size: Annotated[
        Optional[int], typer.Option("--batch-size", help="Effective batch (gradient accumulation).")
    ] = None,
    epochs: Annotated[Optional[float], typer.Option("--epochs")] = None,
    max_steps: Annotated[Optional[int], typer.Option("--max-steps")] = None,
    max_minutes: Annotated[
        Optional[float], typer.Option("--max-minutes", help="Stop and save after this much time.")
    ] = None,
    n_latent: Annotated[Optional[int], typer.Option("--n-latent", help="Latent vectors per reply (paper: 8).")] = None,
    projector: Annotated[Optional[str], typer.Option("--projector", help="'rescale' or 'linear'.")] = None,
    targets: Annotated[
        Optional[str], typer.Option("--targets", help="'dataset' replies or 'self' (needs --self-targets data).")
    ] = None,
    autoencode_steps: Annotated[
        Optional[int], typer.Option("--autoencode-steps", help="Optimizer steps of autoencoding warm-up.")
    ] = None,
    objective: Annotated[
        Optional[str],
        typer.Option(
            "--objective", help="'generate' or 'retention' (reconstruction mixed in throughout, ICAE-style)."
        ),
    ] = None,
    token_init: Annotated[
        Optional[str],
        typer.Option("--token-init", help="Memory tokens: 'random' rows or 'content' (slice means of the reply)."),
    ] = None,
    center: Annotated[
        Optional[bool], typer.Option("--center/--no-center", help="Mean-center latents before the projector.")
    ] = None,
    read_layer: Annotated[
        Optional[int], typer.Option("--read-layer", help="Hidden layer the latents are read from (default: last).")
    ] = None,
    monitor_every: Annotated[
        Optional[int],
        typer.Option("--monitor-every", help="Log latent cosine and reconstruction ROUGE-L every N steps."),
    ] = None,
    seed: Annotated[Optional[int], typer.Option("--seed")] = None,
    ship: Annotated[
        bool, typer.Option("--ship", help="Copy the trained codec into rea_core/adapters/ for this backbone.")
    ] = False,
    model: ModelOpt = "packaged",
) -> None:
    """Train the dual-LoRA codec end to end; re-running the same command resumes from the checkpoint.

    Example: rea train compressor --data runs/codec/sessions.jsonl --out runs/codec/cpu --preset cpu
    """
    from ..backends import load_generator
    from ..compression.artifacts import backbone_slug
    from ..training.codec import preset as make_preset
    from ..training.codec import train
    from ..training.codec_data import read_sessions

    quiet_libraries()
    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        try:
            cfg = make_preset(
                preset,
                lr=lr,
                batch_size=batch_size,
                epochs=epochs,
                max_steps=max_steps,
                max_minutes=max_minutes,
                n_latent=n_latent,
                projector=projector,
                targets=targets,
                autoencode_steps=autoencode_steps,
                seed=seed,
                objective=objective,
                token_init=token_init,
                center=center,
                read_layer=read_layer,
                monitor_every=monitor_every,
            )
        except (TypeError, ValueError) as exc:
            raise typer.BadParameter(str(exc))
        sessions = read_sessions(  # each turn within REA_MAX_MESSAGE_CHARS, before the model loads
            data, split="train", max_chars=settings_from_options().runtime.max_message_chars
        )
        generator = load_generator(model)
        try:
            summary = train(generator, sessions, cfg, out)
        except ValueError as exc:
            raise typer.BadParameter(str(exc))
        typer.echo(json.dumps({k: v for k, v in summary.items() if k != "config"}, indent=2))
        if ship:
            target = Path(__file__).resolve().parents[1] / "adapters" / backbone_slug(generator.name)
            shutil.copytree(out / "codec", target, dirs_exist_ok=True)
            typer.echo(f"shipped the codec to {target}")


@eval_app.command()
def compression(
    data: SessionsOpt,
    out: OutOpt,
    limit: LimitOpt = 60,
    codec: Annotated[
        Optional[Path], typer.Option("--codec", help="Codec folder (default: the one shipped for the backbone).")
    ] = None,
    forms: Annotated[
        str,
        typer.Option(
            "--forms",
            help="Comma-separated forms: raw, omit, user, text, "
            "extractive, latent, optimized, optimized_plain, retrained.",
        ),
    ] = "raw,omit,user,text,extractive,latent",
    retrained: Annotated[
        Optional[Path],
        typer.Option(
            "--retrained", help="Codec folder of the 'retrained' form (loaded on its own copy of the backbone)."
        ),
    ] = None,
    optimize_steps: Annotated[
        int, typer.Option("--optimize-steps", help="Step budget per reply of the optimized forms.")
    ] = 60,
    optimize_lr: Annotated[float, typer.Option("--optimize-lr", help="Learning rate of the optimized forms.")] = 1e-2,
    optimize_layout: Annotated[
        str,
        typer.Option(
            "--optimize-layout",
            help="Fitting layout of the optimized forms: 'reply' (the reply "
            "right after the latents) or 'recall' (one turn later).",
        ),
    ] = "reply",
    probes_per_session: Annotated[
        int, typer.Option("--probes-per-session", help="Probes (next replies) per held-out session.")
    ] = 2,
    reconstructions: Annotated[
        int, typer.Option("--reconstructions", help="Replies decoded back from each latent form (ROUGE-L).")
    ] = 20,
    retrieval: Annotated[
        bool, typer.Option("--retrieval/--no-retrieval", help="Also compare the HCR scorers against the NLL oracle.")
    ] = True,
    record: Annotated[
        bool,
        typer.Option(
            "--record", help="Write measurements.json (which compressed form measured best) into the codec folder."
        ),
    ] = False,
    model: ModelOpt = "packaged",
) -> None:
    """Every form of a compressed exchange in one table: NLL, gap shares, positions, reconstruction ROUGE-L,
    time per reply.

    Example: rea eval compression --data runs/codec/sessions.jsonl --out runs/codec/eval --limit 10 \\
        --forms raw,omit,user,text,extractive,latent,optimized
    """
    import datetime

    from ..backends import load_embedder, load_generator
    from ..compression import load_default_codec
    from ..compression.artifacts import load_codec, shipped_codec_dir, write_measurements
    from ..compression.forms import latent_measure, measurements_record
    from ..compression.optimize import OptimizeConfig
    from ..evals.codec import evaluate_compression
    from ..training.codec_data import read_sessions

    try:
        optimize = OptimizeConfig(max_steps=optimize_steps, lr=optimize_lr, layout=optimize_layout)
    except ValueError as exc:
        raise typer.BadParameter(str(exc))
    quiet_libraries()
    with reported_errors():
        checked_out(out)  # before any data or model is loaded
        sessions = read_sessions(  # each turn within REA_MAX_MESSAGE_CHARS, before any model loads
            data, split="heldout", max_chars=settings_from_options().runtime.max_message_chars
        )
        if not sessions:
            raise typer.BadParameter(f"{data} has no held-out sessions")
        names = [f.strip() for f in forms.split(",") if f.strip()]
        generator = load_generator(model)
        loaded = load_codec(generator, codec) if codec else load_default_codec(generator, required=True)
        second = load_codec(load_generator(model), retrained) if retrained else None
        try:
            results = evaluate_compression(
                loaded,
                load_embedder("packaged"),
                sessions[:limit] if limit else sessions,
                out,
                forms=names,
                optimize=optimize,
                retrained=second,
                probes_per_session=probes_per_session,
                reconstructions=reconstructions,
                retrieval_probes=retrieval,
            )
        except ValueError as exc:
            raise typer.BadParameter(str(exc))
        if record:
            keys = {
                "latent": latent_measure("encode"),
                "optimized": latent_measure(replace(optimize, adapter="generate").key),
                "optimized_plain": latent_measure(replace(optimize, adapter="none").key),
                "text": "text",
                "extractive": "extractive",
            }
            source = (
                f"rea eval compression --limit {limit} --forms {forms} "
                f"({results['probes']} probes, {datetime.date.today()})"
            )
            folder = codec or shipped_codec_dir(generator.name)
            path = write_measurements(
                folder,
                measurements_record(
                    results, forms={f: k for f, k in keys.items() if f in results["gap_recovered"]}, source=source
                ),
            )
            typer.echo(f"recorded the measurements in {path}")
        _print_summary(
            {k: v for k, v in results.items() if k not in ("per_probe", "reconstructions", "retrieval_probes", "fits")}
        )
