"""``rea train``: the group that training commands join (the latent compressor here, the recognizer
from the annotation studio's labels in ``annotations/cli.py``)."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Train models: the recognizer's stage 2 from labels, the latent compressor.", no_args_is_help=True
)
