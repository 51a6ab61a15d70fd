"""Latent Episodic Memory (REA paper, sections 3.2, 3.5, A.1-A.3): the dual-LoRA codec as it runs.

Its training is in ``training/codec.py`` (data: ``training/codec_data.py``), its evaluation in ``evals/codec.py``.
"""

from __future__ import annotations

import logging

from ..errors import ModelLoadError
from .artifacts import AdapterMismatchError, load_codec, save_codec, shipped_codec_dir
from .codec import CodecSpec, DualLoRACodec, HybridInput, latent_message
from .forms import FormChoice, choose_form
from .optimize import OptimizeConfig, OptimizedLatents, optimize_latents

log = logging.getLogger(__name__)

__all__ = [
    "AdapterMismatchError",
    "CodecSpec",
    "DualLoRACodec",
    "FormChoice",
    "HybridInput",
    "OptimizeConfig",
    "OptimizedLatents",
    "choose_form",
    "latent_message",
    "load_codec",
    "load_default_codec",
    "no_codec_message",
    "optimize_latents",
    "save_codec",
    "shipped_codec_dir",
]


def no_codec_message(backbone: str) -> str:
    return (
        f"No latent codec exists for backbone '{backbone}': compressed replies fall back to text-compressed. "
        "Train one with 'rea train compressor' and pass it with --codec."
    )


def load_default_codec(generator, *, required: bool = False) -> DualLoRACodec | None:
    """The codec shipped for ``generator``'s backbone, or None (with a warning) when there is none."""
    folder = shipped_codec_dir(generator.name)
    if folder is None:
        if required:
            raise ModelLoadError(no_codec_message(generator.name))
        log.warning(no_codec_message(generator.name))
        return None
    return load_codec(generator, folder)
