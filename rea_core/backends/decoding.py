"""Greedy decoding with repetition control: the next token from one step's logits and the reply so far.

Why: plain greedy decoding on the packaged 135M model falls into loops ("The user asked, "The user asked,
..."), which a demo visitor sees as a broken model. Two standard controls, both on the reply's own tokens
(not the prompt's, which may rightly hold the words the reply must repeat, such as an end phrase):

* ``repetition_penalty`` (CTRL, Keskar et al. 2019): a token already in the reply has its logit divided by
  the penalty when positive, multiplied when negative;
* ``no_repeat_ngram``: a token that would complete an n-gram already in the reply is never chosen.

The end-of-turn token is never penalized or banned: stopping is always allowed.

Output rules (``memory.output_rules``: lowercase, capitals, no commas, read from Instructional Memory)
are kept by a vocabulary mask: a token whose text breaks a rule is never chosen (``breaks_rule``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence


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


TOKEN_RULES = ("lowercase", "uppercase", "no_comma")  # kept token by token (a vocabulary mask)
BULLETS = "bullets"  # exactly ``count`` lines starting "* " (kept by where lines break)


def breaks_rule(kind: str, token_text: str) -> bool:
    """Whether a token whose decoded text is ``token_text`` breaks the token rule ``kind``."""
    if kind == "lowercase":
        return any(c.isupper() for c in token_text)
    if kind == "uppercase":
        return any(c.islower() for c in token_text)
    if kind == "no_comma":
        return "," in token_text
    raise ValueError(f"unknown token rule {kind!r}")


def keep_rules(kinds: Sequence[str], text: str) -> str:
    """``text`` rewritten to keep the token rules ``kinds`` (lowercased, capitalized, commas dropped)."""
    for kind in kinds:
        if kind == "lowercase":
            text = text.lower()
        elif kind == "uppercase":
            text = text.upper()
        elif kind == "no_comma":
            text = text.replace(",", "")
        else:
            raise ValueError(f"unknown token rule {kind!r}")
    return text


_LETTER = re.compile(r"[^\W\d_]")
MIN_BULLET_WORDS = 4  # a finished sentence of at least this many words may end a bullet
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?\s*$")


@dataclass
class RuleKeeper:
    """Keeps output rules while decoding, one reply at a time (it holds the reply's list state).

    Token rules (``kinds``): where the model's choice breaks one, its text rewritten to keep them
    (``keep_rules``: "Sure" read as "sure") is decoded instead, over as many tokens as it takes; where
    nothing is left of it (a lone comma), the best token that keeps them is. Why not a mask alone:
    the packaged model's best lowercase token after a masked "Sure" is often a bullet or a blank line.

    A bullet list (``bullets`` > 0): the reply opens with "* "; a line break, an end of the reply or a
    finished sentence (of MIN_BULLET_WORDS words or more) starts the next "* " line until there are
    ``bullets``, and the line break or end after the last one ends the reply. No bullet is left
    without a word (not even "1.").
    """

    kinds: tuple[str, ...]
    banned_mask: object  # bool tensor over the vocabulary: the tokens that break a token rule
    token_text: Callable[[int], str]
    encode: Callable[[str], list[int]]
    eos_id: int | None = None
    bullets: int = 0
    line_break_mask: object = None  # bool tensor: tokens holding a line break (needed with ``bullets``)
    labels: tuple[str, ...] = ()  # what the kept rules are, for the stats line
    rewrites: int = 0  # choices of the model rewritten or replaced
    _started: int = 0  # bullets begun
    _line: str = ""  # the current bullet's text so far

    def breaks(self, token_id: int) -> bool:
        return bool(self.banned_mask[token_id])

    def rewrite(self, token_id: int) -> list[int]:
        """The tokens of ``token_id``'s text kept to the token rules; [] when none keeps them."""
        text = keep_rules(self.kinds, self.token_text(token_id))
        ids = self.encode(text) if text else []
        return ids if ids and not any(self.breaks(i) for i in ids) else []

    def choose(self, logits, generated: Sequence[int], decoding: Decoding) -> list[int]:
        """The next tokens of the reply: the model's greedy choice under ``decoding``, kept to the rules."""
        if self.bullets and not generated:
            self._started, self._line = 1, ""
            self.rewrites += 1
            return self.encode("* ")
        ids = [next_token(logits, generated, decoding, eos_id=self.eos_id)]
        if self.kinds and self.breaks(ids[0]):
            self.rewrites += 1
            ids = self.rewrite(ids[0]) or [
                next_token(logits, generated, decoding, eos_id=self.eos_id, banned_mask=self.banned_mask)
            ]
        return self._in_list(ids, logits, generated, decoding) if self.bullets else ids

    def _in_list(self, ids: list[int], logits, generated: Sequence[int], decoding: Decoding) -> list[int]:
        ends = self.eos_id in ids
        text = "".join(self.token_text(i) for i in ids if i != self.eos_id)
        if not ends and "\n" not in text:
            self._line += text
            if (
                self._started < self.bullets
                and len(self._line.split()) >= MIN_BULLET_WORDS
                and _SENTENCE_END.search(self._line)
            ):
                self.rewrites += 1
                return ids + self._next_bullet()
            return ids
        head = text.split("\n", 1)[0]
        if not _LETTER.search(self._line + head):  # a bullet with no word yet ("1."): the best choice that goes on
            self.rewrites += 1
            mask = self.line_break_mask | self.banned_mask
            if self.eos_id is not None:
                mask = mask.clone()
                mask[self.eos_id] = True
            instead = next_token(logits, generated, decoding, eos_id=self.eos_id, banned_mask=mask)
            self._line += self.token_text(instead)
            return [instead]
        self.rewrites += not (ends and self._started >= self.bullets)  # the model's line break or end moved
        kept = self.encode(head) if head else []
        return kept + (self._next_bullet() if self._started < self.bullets else [self.eos_id])

    def _next_bullet(self) -> list[int]:
        self._started += 1
        self._line = ""
        return self.encode("\n* ")


def next_token(
    logits, generated: Sequence[int], decoding: Decoding, *, eos_id: int | None = None, banned_mask=None
) -> int:
    """The greedy choice from ``logits`` (a 1-D torch tensor over the vocabulary) under ``decoding``;
    ``banned_mask`` (a bool tensor over the vocabulary, or None) marks tokens never to choose."""
    if banned_mask is not None:
        logits = logits.float().masked_fill(banned_mask, float("-inf"))
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
