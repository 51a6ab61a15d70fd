"""Factories that build models and strategies from names: the one place the CLI and app get them."""

from __future__ import annotations

from dataclasses import dataclass

from .backends import Embedder, Generator, load_embedder, load_generator
from .config import REAConfig
from .strategies.base import Strategy
from .strategies.registry import get_strategy


@dataclass
class Models:
    """The loaded models a set of strategies shares (one backbone, one embedder)."""

    generator: Generator
    embedder: Embedder
    classifier: Generator | None = None  # the recognizer's LLM; None means the backbone (paper: a small separate model)

    @property
    def recognizer_model(self) -> Generator:
        return self.classifier or self.generator


def load_models(
    model: str = "packaged",
    embedder: str = "packaged",
    *,
    recognizer_model: str | None = None,
    device: str | None = None,
    context_window: int | None = None,
) -> Models:
    """Load the generator, the embedder and (if named) a separate recognizer model.

    Raises:
        ModelLoadError: naming the model that failed and what to do.
    """
    return Models(
        generator=load_generator(model, device=device, context_window=context_window),
        embedder=load_embedder(embedder),
        classifier=load_generator(recognizer_model, device=device) if recognizer_model else None,
    )


def build_strategy(name: str, models: Models, config: REAConfig | None = None) -> Strategy:
    """A registered strategy on the shared models."""
    return get_strategy(name).from_models(models, config or REAConfig())
