"""The two small model interfaces REA needs. Strategies receive these; they never build models."""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from ..types import Generation

Message = dict  # {"role": "system" | "user" | "assistant", "content": str}


@runtime_checkable
class Generator(Protocol):
    """A chat model that answers from chat messages and can score short continuations."""

    name: str
    context_window: int  # most tokens of prompt plus reply the model takes

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` alone, without chat-template markup."""

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """Tokens of the templated prompt the model would read for ``messages``."""

    def generate(
        self, messages: Sequence[Message], *, max_new_tokens: int, max_prompt_tokens: int | None = None
    ) -> Generation:
        """Greedy reply to ``messages``; a prompt over ``max_prompt_tokens`` loses tokens from the left."""

    def choice_logprobs(self, messages: Sequence[Message], choices: Sequence[str]) -> list[float]:
        """Log-probability of each choice as the start of the assistant's reply."""


@runtime_checkable
class Embedder(Protocol):
    """A sentence encoder returning L2-normalized float32 rows, so a dot product is a cosine."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, unit-norm rows."""
