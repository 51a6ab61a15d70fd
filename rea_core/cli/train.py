"""``rea train``: the group that training commands join (the latent compressor here, the recognizer
from the annotation studio's labels in ``annotations/cli.py``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..settings import quiet_libraries
from .options import SeedOpt

app = typer.Typer(
    help="Train models: the recognizer's stage 2 from labels, the latent compressor, the instruction adapter.",
    no_args_is_help=True,
)


@app.command()
def instruct(
    out: Annotated[Path, typer.Option("--out", help="Folder for the adapter, training.json and its log.")],
    examples: Annotated[int, typer.Option("--examples", help="Training examples (prompt and checked reply).")] = 1400,
    seed: SeedOpt = 0,
    rank: Annotated[int, typer.Option("--rank", help="LoRA rank.")] = 16,
    lr: Annotated[float, typer.Option("--lr")] = 3e-4,
    batch: Annotated[int, typer.Option("--batch", help="Examples per optimizer step (accumulated).")] = 8,
    max_minutes: Annotated[
        Optional[float], typer.Option("--max-minutes", help="Stop and save after this much time.")
    ] = None,
    init: Annotated[
        Optional[Path], typer.Option("--init", help="Start from this adapter folder (a second stage).")
    ] = None,
    max_prompt_tokens: Annotated[
        int, typer.Option("--max-prompt-tokens", help="Skip examples whose prompt is longer.")
    ] = 768,
    focus: Annotated[
        str,
        typer.Option(
            "--focus",
            help="Instruction kinds, comma-separated, that --focus-share of the instructed examples carry "
            "(a later stage on the families an earlier one missed).",
        ),
    ] = "",
    focus_share: Annotated[
        float, typer.Option("--focus-share", help="Share of the instructed examples on --focus.")
    ] = 0.5,
    ship: Annotated[
        bool, typer.Option("--ship", help="Copy the adapter into rea_core/adapters/ as the packaged model's default.")
    ] = False,
) -> None:
    """Train the instruction-following adapter of the packaged SmolLM2-135M-Instruct on the CPU (about 40 minutes
    on 2 cores), from the packaged conversation sets only; the same seed gives the same examples.

    Example: rea train instruct --out runs/instruct --ship
    """
    from ..backends.instruct_adapter import SHIPPED
    from ..backends.packaged import packaged_generator_dir
    from ..settings import Settings, use_offline_hub
    from ..training.instruct import InstructTrainConfig, train_instruct_adapter
    from .common import checked_out, reported_errors

    quiet_libraries()
    with reported_errors():
        checked_out(out)
        try:
            config = InstructTrainConfig(
                examples=examples,
                seed=seed,
                rank=rank,
                lr=lr,
                batch=batch,
                max_minutes=max_minutes,
                init=str(init) if init else None,
                max_prompt_tokens=max_prompt_tokens,
                focus=tuple(k.strip() for k in focus.split(",") if k.strip()),
                focus_share=focus_share,
            )
        except ValueError as exc:
            raise typer.BadParameter(str(exc))
        use_offline_hub()
        model_dir = packaged_generator_dir(Settings.from_env().models.cache_dir)
        summary = train_instruct_adapter(model_dir, out, config, progress=lambda line: typer.echo(line, err=True))
        typer.echo(json.dumps(summary, indent=2))
        if ship:
            SHIPPED.mkdir(parents=True, exist_ok=True)
            for name in ("adapter_config.json", "adapter_model.safetensors", "training.json"):
                shutil.copy2(Path(out) / name, SHIPPED / name)
            typer.echo(f"shipped the adapter to {SHIPPED}")
