"""Model backends behind the ``Generator`` and ``Embedder`` interfaces.

Heavy libraries (torch, transformers) load only when a backend is built.
"""

from .base import Embedder, Generator, Message

__all__ = ["Embedder", "Generator", "Message", "load_generator", "load_embedder"]


def load_generator(spec: str = "packaged", **kwargs) -> Generator:
    """A ``Generator`` for a model id, a local folder, or ``packaged`` (SmolLM2-135M-Instruct)."""
    from .hf import HFGenerator

    return HFGenerator.load(spec, **kwargs)


def load_embedder(spec: str = "packaged", **kwargs) -> Embedder:
    """An ``Embedder`` for a model id, a local folder, or ``packaged`` (all-MiniLM-L6-v2)."""
    from .sentence import SentenceEmbedder

    return SentenceEmbedder.load(spec, **kwargs)
