"""The instruction-following adapter: a LoRA (peft) that makes the packaged SmolLM2-135M-Instruct act on the
standing instructions in its prompt, merged into the weights when the generator loads.

Why merged: every text call then reads the adapted weights (the plain backbone the latent codec switches
back to included) at no cost per token, and a KV cache never mixes the two. ``auto`` takes the adapter
shipped for the packaged model and none for any other model; ``none`` switches it off; a folder (from
``rea train instruct``) is used on any backbone it fits.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..errors import ModelLoadError
from . import packaged

log = logging.getLogger(__name__)

ADAPTER_DIR = "smollm2-135m-instruct-follow"  # the shipped adapter's folder under rea_core/adapters/
SHIPPED = Path(__file__).resolve().parents[1] / "adapters" / ADAPTER_DIR
OFF = ("none", "off", "")


def resolve(model_spec: str, adapter: str | None) -> Path | None:
    """The adapter folder ``adapter`` names for ``model_spec``, or None for no adapter.

    Raises:
        ModelLoadError: a named folder without an adapter, or ``auto`` while the shipped one is missing.
    """
    choice = (adapter or "none").strip()
    if choice.lower() in OFF:
        return None
    if choice.lower() == "auto":
        if not packaged.is_packaged_generator(model_spec):
            return None
        folder = SHIPPED
    else:
        folder = Path(choice).expanduser()
    if not (folder / "adapter_config.json").is_file() or not (folder / "adapter_model.safetensors").is_file():
        raise ModelLoadError(
            f"no instruction-following adapter in '{folder}' (adapter_config.json and adapter_model.safetensors "
            "expected). Pass --adapter none (REA_ADAPTER=none) to run the model without one, or a folder written "
            "by `rea train instruct`."
        )
    return folder


def merge(model, folder: Path):
    """``model`` with the LoRA in ``folder`` merged into its weights (a plain transformers model again).

    Raises:
        ModelLoadError: the adapter does not fit the model (other layer names or sizes).
    """
    from peft import PeftModel

    try:
        return PeftModel.from_pretrained(model, str(folder)).merge_and_unload()
    except Exception as exc:  # a mismatched adapter is one clear message
        raise ModelLoadError(
            f"the instruction-following adapter in '{folder}' does not fit this model "
            f"({type(exc).__name__}: {exc}). Pass --adapter none (REA_ADAPTER=none)."
        ) from exc
