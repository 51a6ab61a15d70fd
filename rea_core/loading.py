"""Loading models and building strategies by name: the one place the CLI, the app and the evaluations get them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .backends import Embedder, Generator, load_embedder, load_generator
from .backends.base import WEIGHTS, has
from .backends.decoding import Decoding
from .backends.openai_compat import is_openai_spec
from .backends.packaged import is_packaged_embedder, is_packaged_generator
from .methods.base import Strategy
from .methods.registry import get_strategy
from .runtime import RuntimeConfig
from .settings import OpenAISettings, Settings, use_offline_hub

if TYPE_CHECKING:
    from .compression import DualLoRACodec


@dataclass
class Models:
    """The loaded models a set of strategies shares (one backbone, one embedder)."""

    generator: Generator
    embedder: Embedder
    recognizer_llm: Generator | None = None  # a separate LLM for the recognizer's stage 2 (None: the backbone)
    codec: "DualLoRACodec | None" = None  # latent compression adapters on the generator's backbone (section 3.2)
    codec_note: str = ""  # why there is no codec, for the app and CLI to show


def load_models(
    model: str = "packaged",
    embedder: str = "packaged",
    *,
    recognizer_model: str | None = None,
    device: str | None = None,
    context_window: int | None = None,
    codec: str | None = "auto",
    tokenizer: str | None = None,
    cache_limits=None,
    cache_dir: Path | None = None,
    openai: OpenAISettings | None = None,
    adapter: str | None = "auto",
    decoding: Decoding | None = None,
) -> Models:
    """Load the generator, the embedder, (if named) a separate recognizer model, and the latent codec.

    ``model`` may be ``openai:<model id>`` (an OpenAI-compatible server reached with ``openai``;
    ``tokenizer`` names a local tokenizer for exact counts). Packaged models are converted once into
    ``cache_dir`` (``REA_CACHE_DIR``) and switch the hub off: they never need it. ``codec``: "auto"
    takes the codec shipped for the backbone when there is one (else compressed replies are
    text-compressed, and ``codec_note`` says so), "none" loads none, anything else is a codec folder
    from ``rea train compressor``. ``adapter``: the instruction-following LoRA merged into an in-process
    generator ("auto": the one shipped for the packaged model; "none"; or a folder); ``decoding``: its
    repetition control (default ``DEFAULT_DECODING``). A server's generator takes neither.

    Raises:
        ModelLoadError: naming the model (or codec) that failed and what to do.
    """
    if is_packaged_generator(model) or is_packaged_embedder(embedder):
        use_offline_hub()
    extra = (
        {"cache_limits": cache_limits} if cache_limits is not None else {}
    )  # KV prefix cache bounds (in-process models)
    if not is_openai_spec(model):
        extra.update(cache_dir=cache_dir, adapter=adapter, decoding=decoding)
    generator = load_generator(
        model, device=device, context_window=context_window, tokenizer=tokenizer, openai=remote_kwargs(openai), **extra
    )
    loaded, note = None, ""
    if codec not in (None, "none") and not has(generator, WEIGHTS):
        note = (
            f"'{generator.name}' is served over HTTP and takes no "
            "latent vectors: compressed replies are text-compressed."
            if codec == "auto"
            else ""
        )
        if codec != "auto":
            from .errors import ModelLoadError

            raise ModelLoadError(
                f"a latent codec needs local model weights; '{generator.name}' has none (use REA_CODEC=none or auto)"
            )
    elif codec not in (None, "none"):
        from .compression import load_codec, load_default_codec, no_codec_message

        loaded = load_default_codec(generator) if codec == "auto" else load_codec(generator, codec)
        note = "" if loaded is not None else no_codec_message(generator.name)
    return Models(
        generator=generator,
        embedder=load_embedder(embedder),
        recognizer_llm=load_generator(recognizer_model, device=device) if recognizer_model else None,
        codec=loaded,
        codec_note=note,
    )


def remote_kwargs(openai: OpenAISettings | None) -> dict:
    """``OpenAIGenerator.from_spec``'s connection arguments from the OpenAI settings."""
    o = openai or OpenAISettings()
    return {
        "base_url": o.base_url,
        "api_key": o.api_key,
        "hf_token": o.hf_token,
        "timeout_s": o.timeout_s,
        "max_retries": o.max_retries,
    }


def load_judge(spec: str, *, openai: OpenAISettings | None = None, cache_dir: Path | None = None) -> Generator:
    """A second generator that grades answers (``rea eval qa --judge-model``): usually ``openai:<id>``.

    Raises:
        ModelLoadError: naming the model that failed and what to do.
    """
    if is_packaged_generator(spec):
        use_offline_hub()
    extra = {} if is_openai_spec(spec) else {"cache_dir": cache_dir}
    return load_generator(spec, openai=remote_kwargs(openai), **extra)


def build_strategy(name: str, models: Models, config=None, *, runtime: RuntimeConfig | None = None) -> Strategy:
    """A registered strategy on the shared models, under its method ``config`` (default: the method's defaults)."""
    return get_strategy(name).from_models(models, config, runtime=runtime)


def build_from_settings(name: str, models: Models, settings: Settings, *, served: bool = False) -> Strategy:
    """Strategy ``name`` under ``settings``: its method's section and the shared runtime.

    ``served``: the runtime under the limits a front end serves people with (``Limits.serve``: the
    per-message token cap and the reply budget), for ``rea chat`` and the app; evaluations and
    replays leave it off, so no clock changes what they measure.
    """
    runtime = settings.limits.serve(settings.runtime) if served else settings.runtime
    return build_strategy(name, models, settings.method_config(name), runtime=runtime)
