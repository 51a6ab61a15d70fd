"""The two small model interfaces REA needs. Strategies receive these; they never build models.

A ``Generator`` has a core every backend provides (counting, templated prompt length, greedy
generation, streaming) and optional capabilities it declares in ``capabilities``. A strategy or
component that needs an optional one says so (``Strategy.requires``) and ``require`` fails at
construction with a message naming what is missing, instead of an AttributeError mid-turn:
the OpenAI-compatible backend, for one, has no local weights to score tokens with.
"""

from __future__ import annotations

from typing import Iterator, Protocol, Sequence, runtime_checkable

import numpy as np

from ..types import Generation

Message = dict  # {"role": "system" | "user" | "assistant", "content": str}

# Optional capabilities (names used in ``Generator.capabilities`` and ``Strategy.requires``).
CHOICE_LOGPROBS = "choice_logprobs"  # log p(choice | messages): the recognizer's LLM stage 2
TOKEN_LOGPROBS = "token_logprobs"  # log p(ids[i] | ids[:i]): SeCom's perplexity compression
TOKENIZER = "tokenizer"  # a local tokenizer (``.tokenizer``, ``template_ids``): exact token counts
WEIGHTS = "weights"  # local weights and input embeddings (``.model``, ``embed_ids``): the latent codec
KV_REUSE = "kv_reuse"  # per-session KV prefix reuse (``stream(..., cache_key=...)`` reuses a prefix)
ANSWER_LOGPROBS = "answer_logprobs"  # log p(answer token | prompt, earlier answer tokens): ``rea eval qa``'s NLL
PREFILL = "prefill"  # ``prefill(messages, cache_key=...)``: a prompt opening read into a session's KV ahead of time
OUTPUT_RULES = "output_rules"  # ``stream(..., rules=...)``: tokens that break an output rule are never chosen

CAPABILITY_HELP = {
    CHOICE_LOGPROBS: "log-probabilities of short continuations",
    TOKEN_LOGPROBS: "per-token log-probabilities of a text",
    TOKENIZER: "a local tokenizer",
    WEIGHTS: "local model weights",
    KV_REUSE: "KV prefix reuse",
    ANSWER_LOGPROBS: "teacher-forced log-probabilities of a given reply",
    PREFILL: "reading a prompt's opening ahead into the KV cache",
    OUTPUT_RULES: "keeping output rules (case, commas) while decoding",
}


@runtime_checkable
class Generator(Protocol):
    """A chat model that answers from chat messages, streaming its reply.

    Optional methods exist only where ``capabilities`` names them:
    ``choice_logprobs(messages, choices) -> list[float]`` (CHOICE_LOGPROBS),
    ``token_logprobs(ids) -> list[float]`` (TOKEN_LOGPROBS), ``tokenizer`` and
    ``template_ids(messages) -> list[int]`` (TOKENIZER), ``model`` and ``embed_ids`` (WEIGHTS),
    ``answer_logprobs(messages, answer, *, cache_key=None) -> list[float]`` (ANSWER_LOGPROBS): one
    log-probability per token of ``answer`` read as the assistant's reply to ``messages``.
    ``prefill(messages, *, cache_key) -> Prefill`` (PREFILL): ``messages`` (no generation prompt)
    read into ``cache_key``'s KV cache, so a later ``stream`` whose prompt opens with them reuses it.
    ``stream(..., rules=kinds)`` (OUTPUT_RULES): no token that breaks one of the output rule ``kinds``
    (``memory.output_rules``) is chosen.
    """

    name: str
    context_window: int  # most tokens of prompt plus reply the model takes
    capabilities: frozenset[
        str
    ]  # optional capabilities known without a model call (``has`` asks ``supports`` where defined)
    token_source: str  # what token counts are: "tokenizer" (exact) or "estimate" (server usage gives the prompt total)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` alone, without chat-template markup."""

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """Tokens of the templated prompt the model would read for ``messages``."""

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_new_tokens: int,
        max_prompt_tokens: int | None = None,
        cache_key: str | None = None,
        budget_s: float | None = None,
    ) -> Iterator[str | Generation]:
        """Greedy reply as it is decoded: text pieces, then one ``Generation`` (the whole reply and its costs).

        A prompt over ``max_prompt_tokens`` loses its oldest tokens. ``cache_key`` names the
        conversation whose KV prefix may be reused (backends with KV_REUSE). Closing the iterator
        early stops decoding; so does ``budget_s`` seconds after the call (``Generation.out_of_time``:
        the reply so far is returned). Raises ``ServingError`` when the call fails.
        """

    def generate(
        self,
        messages: Sequence[Message],
        *,
        max_new_tokens: int,
        max_prompt_tokens: int | None = None,
        cache_key: str | None = None,
    ) -> Generation:
        """``stream`` run to the end."""


def finish(stream: Iterator[str | Generation]) -> Generation:
    """The ``Generation`` a stream ends with (the pieces before it are dropped)."""
    result = None
    for item in stream:
        if isinstance(item, Generation):
            result = item
    if result is None:
        from ..errors import ServingError

        raise ServingError("the model stream ended without a reply")
    return result


def has(generator, capability: str) -> bool:
    """Whether ``generator`` provides ``capability`` (a backend may find out lazily, e.g. by asking its server)."""
    supports = getattr(generator, "supports", None)
    return (
        supports(capability) if supports is not None else capability in getattr(generator, "capabilities", frozenset())
    )


def require(generator, needs: frozenset[str] | set[str], who: str) -> None:
    """Fail with a clear message when ``generator`` lacks a capability ``who`` needs.

    Raises:
        CapabilityError: naming the missing capabilities and the generator.
    """
    missing = sorted(c for c in needs if not has(generator, c))
    if missing:
        from ..errors import CapabilityError

        what = ", ".join(f"{m} ({CAPABILITY_HELP.get(m, m)})" for m in missing)
        why = getattr(generator, "logprobs_note", "")
        what += f" [{why}]" if why and CHOICE_LOGPROBS in missing else ""
        raise CapabilityError(
            f"{who} needs {what}, which the generator '{generator.name}' does not provide. "
            "Use a local transformers model (--model packaged, a folder or "
            "a Hugging Face id) for it, or a setting that does not need it."
        )


@runtime_checkable
class Embedder(Protocol):
    """A sentence encoder returning L2-normalized float32 rows, so a dot product is a cosine."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, unit-norm rows."""
