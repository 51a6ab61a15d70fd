"""Latent-compression commands: ``rea data make-codec-sessions``, ``rea train compressor``, ``rea eval compression``.

Reproduce the shipped codec of the packaged backbone (README, "Latent Episodic Memory"):
    rea data make-codec-sessions --out runs/codec/sessions.jsonl
    rea train compressor --data runs/codec/sessions.jsonl --out runs/codec/cpu --preset cpu --ship
    rea eval compression --data runs/codec/sessions.jsonl --out runs/codec/eval
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import quiet_libraries, reported_errors
from .evaluate import OutOpt, _print_summary, data_app, eval_app
from .options import LimitOpt, ModelOpt
from .train import app as train_app

SessionsOpt = Annotated[Path, typer.Option("--data", help="Codec sessions JSONL from 'rea data make-codec-sessions'.")]


@data_app.command("make-codec-sessions")
def make_codec_sessions(
    out: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    limit_per_source: Annotated[int, typer.Option("--limit-per-source", help="Most sessions taken from each set.")] = 2000,
    sources: Annotated[str, typer.Option("--sources", help="Comma-separated: sharegpt, chitchat.")] = "sharegpt,chitchat",
    max_chars: Annotated[int, typer.Option("--max-chars", help="Longest user+reply interaction kept, in characters.")] = 800,
    heldout_share: Annotated[float, typer.Option("--heldout-share", help="Share of sessions held out for 'rea eval compression'.")] = 0.05,
    self_targets: Annotated[bool, typer.Option("--self-targets", help="Also write the backbone's own reply to every turn (slow: one generation a turn).")] = False,
    model: ModelOpt = "packaged",
) -> None:
    """Codec training sessions (seed 000, A.3): 3-15 clean turns from ShareGPT and Chit Chat, split train/held-out.

    Example: rea data make-codec-sessions --out runs/codec/sessions.jsonl --limit-per-source 2000
    """
    from ..compression.data import add_self_targets, build_sessions, write_sessions
    from .common import split_names

    with reported_errors():
        try:
            sessions = list(build_sessions(sources=split_names(sources), limit_per_source=limit_per_source, max_chars=max_chars, heldout_share=heldout_share))
        except ValueError as exc:
            raise typer.BadParameter(str(exc))
        if self_targets:
            from tqdm.auto import tqdm

            from ..backends import load_generator
            from ..config import REAConfig

            quiet_libraries()
            with tqdm(total=len(sessions), desc="self-distillation targets", unit="session") as bar:
                sessions = add_self_targets(sessions, load_generator(model), system_prompt=REAConfig().system_prompt, progress=bar)
        counts = write_sessions(sessions, out)
        turns = sum(len(s.turns) for s in sessions)
        typer.echo(f"wrote {len(sessions)} sessions ({turns} turns; {counts}) to {out}")


@train_app.command()
def compressor(
    data: SessionsOpt,
    out: Annotated[Path, typer.Option("--out", help="Run folder: checkpoint/ (resumable), codec/, log.jsonl, report.html.")],
    preset: Annotated[str, typer.Option("--preset", help="'cpu' (under 30 min on 2 cores) or 'gpu' (seed 000, A.2).")] = "cpu",
    lr: Annotated[Optional[float], typer.Option("--lr")] = None,
    batch_size: Annotated[Optional[int], typer.Option("--batch-size", help="Effective batch (gradient accumulation).")] = None,
    epochs: Annotated[Optional[float], typer.Option("--epochs")] = None,
    max_steps: Annotated[Optional[int], typer.Option("--max-steps")] = None,
    max_minutes: Annotated[Optional[float], typer.Option("--max-minutes", help="Stop and save after this much time.")] = None,
    n_latent: Annotated[Optional[int], typer.Option("--n-latent", help="Latent vectors per reply (paper: 8).")] = None,
    projector: Annotated[Optional[str], typer.Option("--projector", help="'rescale' or 'linear'.")] = None,
    targets: Annotated[Optional[str], typer.Option("--targets", help="'dataset' replies or 'self' (needs --self-targets data).")] = None,
    autoencode_steps: Annotated[Optional[int], typer.Option("--autoencode-steps", help="Optimizer steps of autoencoding warm-up.")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed")] = None,
    ship: Annotated[bool, typer.Option("--ship", help="Copy the trained codec into rea_core/adapters/ for this backbone.")] = False,
    model: ModelOpt = "packaged",
) -> None:
    """Train the dual-LoRA codec end to end; re-running the same command resumes from the checkpoint.

    Example: rea train compressor --data runs/codec/sessions.jsonl --out runs/codec/cpu --preset cpu
    """
    from ..backends import load_generator
    from ..compression.artifacts import backbone_slug
    from ..compression.data import read_sessions
    from ..compression.train import preset as make_preset
    from ..compression.train import train

    quiet_libraries()
    with reported_errors():
        try:
            cfg = make_preset(preset, lr=lr, batch_size=batch_size, epochs=epochs, max_steps=max_steps, max_minutes=max_minutes,
                              n_latent=n_latent, projector=projector, targets=targets, autoencode_steps=autoencode_steps, seed=seed)
        except (TypeError, ValueError) as exc:
            raise typer.BadParameter(str(exc))
        sessions = read_sessions(data, split="train")
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
    codec: Annotated[Optional[Path], typer.Option("--codec", help="Codec folder (default: the one shipped for the backbone).")] = None,
    model: ModelOpt = "packaged",
) -> None:
    """NLL of the next reply with the earlier reply raw, latent, text-compressed or omitted; reconstruction ROUGE-L; scorer comparison.

    Example: rea eval compression --data runs/codec/sessions.jsonl --out runs/codec/eval --limit 60
    """
    from ..backends import load_embedder, load_generator
    from ..compression import load_default_codec
    from ..compression.artifacts import load_codec
    from ..compression.data import read_sessions
    from ..compression.evaluate import evaluate_compression

    quiet_libraries()
    with reported_errors():
        sessions = read_sessions(data, split="heldout")
        if not sessions:
            raise typer.BadParameter(f"{data} has no held-out sessions")
        generator = load_generator(model)
        loaded = load_codec(generator, codec) if codec else load_default_codec(generator, required=True)
        results = evaluate_compression(loaded, load_embedder("packaged"), sessions[:limit] if limit else sessions, out)
        _print_summary(results)
