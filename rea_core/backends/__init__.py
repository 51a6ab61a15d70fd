"""Model backends behind the ``Generator`` and ``Embedder`` interfaces.

Heavy libraries (torch, transformers) load only when a backend is built.
"""

from .base import OUTPUT_RULES, Embedder, Generator, Message, has

__all__ = ["OUTPUT_RULES", "Embedder", "Generator", "Message", "has", "load_embedder", "load_generator"]


def load_generator(
    spec: str = "packaged",
    *,
    tokenizer: str | None = None,
    device: str | None = None,
    openai: dict | None = None,
    **kwargs,
) -> Generator:
    """A ``Generator`` for a model id, a local folder, ``packaged`` (SmolLM2-135M-Instruct), or
    ``openai:<model id>`` (an OpenAI-compatible server reached with the ``openai`` arguments of
    ``OpenAIGenerator.from_spec``; ``tokenizer`` names a local tokenizer for counts)."""
    from .openai_compat import OpenAIGenerator, is_openai_spec

    if is_openai_spec(spec):  # the server keeps its own KV
        return OpenAIGenerator.from_spec(
            spec, tokenizer=tokenizer, context_window=kwargs.get("context_window"), **(openai or {})
        )
    from .hf import HFGenerator

    return HFGenerator.load(spec, device=device, **kwargs)


def load_embedder(spec: str = "packaged", **kwargs) -> Embedder:
    """An ``Embedder`` for a model id, a local folder, or ``packaged`` (all-MiniLM-L6-v2)."""
    from .sentence import SentenceEmbedder

    return SentenceEmbedder.load(spec, **kwargs)
