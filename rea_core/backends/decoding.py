"""Greedy decoding with repetition control: the next token from one step's logits and the reply so far.

Why: plain greedy decoding on the packaged 135M model falls into loops ("The user asked, "The user asked,
..."), which a demo visitor sees as a broken model. Two standard controls, both on the reply's own tokens
(not the prompt's, which may rightly hold the words the reply must repeat, such as an end phrase):

* ``repetition_penalty`` (CTRL, Keskar et al. 2019): a token already in the reply has its logit divided by
  the penalty when positive, multiplied when negative;
* ``no_repeat_ngram``: a token that would complete an n-gram already in the reply is never chosen.

The end-of-turn token is never penalized or banned: stopping is always allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Decoding:
    """Repetition control for greedy decoding (1.0 and 0 switch each off)."""

    repetition_penalty: float = 1.0
    no_repeat_ngram: int = 0

    def __post_init__(self) -> None:
        if not 1.0 <= self.repetition_penalty <= 2.0:
            raise ValueError(f"repetition_penalty must be between 1.0 (off) and 2.0; got {self.repetition_penalty}")
        if self.no_repeat_ngram != 0 and not 2 <= self.no_repeat_ngram <= 16:
            raise ValueError(f"no_repeat_ngram must be 0 (off) or between 2 and 16; got {self.no_repeat_ngram}")

    @property
    def plain(self) -> bool:
        return self.repetition_penalty == 1.0 and self.no_repeat_ngram == 0

    def describe(self) -> str:
        if self.plain:
            return "greedy"
        parts = []
        if self.repetition_penalty != 1.0:
            parts.append(f"repetition penalty {self.repetition_penalty:g}")
        if self.no_repeat_ngram:
            parts.append(f"no repeated {self.no_repeat_ngram}-grams")
        return "greedy, " + ", ".join(parts)


def banned_tokens(generated: Sequence[int], n: int) -> set[int]:
    """Tokens that would complete an ``n``-gram already in ``generated``."""
    if n < 2 or len(generated) < n:
        return set()
    tail = tuple(generated[len(generated) - n + 1 :])
    return {generated[i + n - 1] for i in range(len(generated) - n + 1) if tuple(generated[i : i + n - 1]) == tail}


def next_token(logits, generated: Sequence[int], decoding: Decoding, *, eos_id: int | None = None) -> int:
    """The greedy choice from ``logits`` (a 1-D torch tensor over the vocabulary) under ``decoding``."""
    if decoding.plain or not generated:
        return int(logits.argmax())
    import torch

    scores = logits.float().clone()
    if decoding.repetition_penalty != 1.0:
        seen = torch.tensor(sorted(set(generated) - {eos_id}), dtype=torch.long, device=scores.device)
        if len(seen):
            picked = scores[seen]
            scores[seen] = torch.where(
                picked > 0, picked / decoding.repetition_penalty, picked * decoding.repetition_penalty
            )
    banned = banned_tokens(generated, decoding.no_repeat_ngram) - {eos_id}
    if banned:
        scores[torch.tensor(sorted(banned), dtype=torch.long, device=scores.device)] = float("-inf")
    return int(scores.argmax())


def looping(text: str, n: int = 5, times: int = 3) -> bool:
    """Whether some ``n``-word sequence occurs ``times`` or more in ``text``: the loop measure of the demo's
    benchmarks (words compared case-insensitively, punctuation kept)."""
    words = text.lower().split()
    counts: dict[tuple[str, ...], int] = {}
    for i in range(len(words) - n + 1):
        gram = tuple(words[i : i + n])
        counts[gram] = counts.get(gram, 0) + 1
        if counts[gram] >= times:
            return True
    return False


# The shipped default, chosen on a development set of example turns (BENCHMARKS, "Decoding that does not loop").
DEFAULT_DECODING = Decoding(repetition_penalty=1.1, no_repeat_ngram=0)
