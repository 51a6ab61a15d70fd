"""Conversational query rewriting for HCR: a follow-up restated as a standalone question.

Why: "make it shorter" or "and for two people?" shares few words or little meaning with the
exchange it refers to, so HCR scores that exchange low. Conversational search rewrites such a
query from the conversation before retrieval (CANARD, Elgohary et al. 2019; T5-CQR, Lin et al.
2020). Here the generator does it from the last few exchanges; ``REAStrategy.score`` then scores
the original and the rewrite and keeps the better score per exchange, so a poor rewrite cannot
lose what the original found. Off by default (``REAConfig.query_rewrite``): it is one model call
per turn, and a small generator rewrites poorly (BENCHMARKS.md, "Retrieval").

``rewrite_messages`` and ``clean_rewrite`` are pure; ``rewrite_query`` makes the one model call
and never raises: any failure falls back to the original query and says why.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import asdict, dataclass
from typing import Sequence

log = logging.getLogger(__name__)

DEFAULT_TURNS = 3
MAX_TEXT_CHARS = (
    600  # each earlier message is clipped to this in the prompt: a referent is named early, and the prompt stays small
)
MAX_QUERY_CHARS = 1000  # a longer message stands alone already; it is not rewritten
MAX_REWRITE_CHARS = (
    240  # longer output (and 3x the query, for a long query) is an answer or a ramble, not a rewritten question
)

INSTRUCTION = (
    "Rewrite the user's last message as one standalone question "
    "or request that can be understood without the conversation. "
    "Resolve pronouns, ellipsis and references (it, them, that one, "
    "the second, shorter, for two people) using the conversation. "
    "Keep its meaning; do not answer it. Output only the rewritten text."
)

_LABEL = re.compile(
    r"^(?:\*\*)?(?:rewritten|rewrite|standalone|reformulated|output|answer|question|query|request|user|last message)"
    r"(?:\s+(?:query|question|request|message|version|text))?(?:\*\*)?(?:\s*[:：]|\s+[-–])(?:\*\*)?\s*",
    re.IGNORECASE,
)
_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "`": "`", "«": "»", "*": "*"}


@dataclass(frozen=True)
class Rewrite:
    """The query HCR scored with, and where it came from.

    ``text`` is the rewrite when ``rewritten``, else the original (also when the model returned it
    unchanged); ``error`` says why the original was kept when the rewrite failed (a server error,
    unusable output), None otherwise. ``seconds`` is the model call's wall time (0: no call).
    """

    original: str
    text: str
    rewritten: bool
    error: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def _clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + " ..."


def rewrite_messages(exchanges: Sequence, query: str, *, turns: int = DEFAULT_TURNS) -> list[dict]:
    """Chat messages asking for ``query`` restated on its own, from the last ``turns`` exchanges.

    Args:
        exchanges: Earlier exchanges, oldest first (anything with ``.user`` and ``.reply``).
        query: The new user message.
        turns: How many of the latest exchanges the rewrite sees.
    """
    recent = list(exchanges)[-turns:] if turns > 0 else []
    conversation = "\n".join(f"User: {_clip(ex.user)}\nAssistant: {_clip(ex.reply)}" for ex in recent)
    return [
        {"role": "system", "content": INSTRUCTION},
        {
            "role": "user",
            "content": f"Conversation:\n{conversation}\n\nLast message: {query.strip()}\n\nStandalone version:",
        },
    ]


def clean_rewrite(output: str, *, max_chars: int = MAX_REWRITE_CHARS) -> str | None:
    """The rewritten query in a model's output: the first line with text, without labels
    ("Rewritten:") or quotes. None when nothing usable is left or it is over ``max_chars``."""
    for line in output.strip().splitlines():
        text = line.strip()
        while True:  # '**Rewritten question:** "..."' carries labels, bold and quotes, in any order
            stripped = _LABEL.sub("", text, count=1).strip()
            while len(stripped) > 1 and _PAIRS.get(stripped[0]) == stripped[-1]:
                stripped = stripped[1:-1].strip()
            if stripped == text:
                break
            text = stripped
        if any(ch.isalnum() for ch in text):  # not a blank line or a code fence
            return text if len(text) <= max_chars else None
    return None


def rewrite_query(
    generator, exchanges: Sequence, query: str, *, turns: int = DEFAULT_TURNS, max_new_tokens: int = 64
) -> Rewrite:
    """``query`` rewritten as a standalone question by ``generator`` (greedy, one call).

    Never raises: a failing call (ServingError, a dropped connection, a timeout) or unusable output
    returns the original with ``error`` set, and logs a warning, so a chat turn goes on unrewritten.

    Example:
        >>> rewrite_query(generator, session.episodes.exchanges, "make it shorter", turns=3).text
        'Make the poem about the sea shorter.'
    """
    query = query.strip()
    if not exchanges or turns < 1 or len(query) > MAX_QUERY_CHARS:
        return Rewrite(
            original=query, text=query, rewritten=False
        )  # nothing to resolve against, or nothing to resolve
    t0 = time.perf_counter()
    try:
        reply = generator.generate(rewrite_messages(exchanges, query, turns=turns), max_new_tokens=max_new_tokens)
        text = clean_rewrite(reply.text, max_chars=max(MAX_REWRITE_CHARS, 3 * len(query)))
        error = None if text is not None else f"unusable rewrite {reply.text.strip()[:80]!r}"
    except Exception as exc:  # noqa: BLE001 - any failure of the optional step falls back; interrupts still propagate
        text, error = None, f"{type(exc).__name__}: {str(exc)[:300]}"
    seconds = time.perf_counter() - t0
    if error is not None:
        log.warning("query rewrite failed, scoring the original query: %s", error)
        return Rewrite(original=query, text=query, rewritten=False, error=error, seconds=seconds)
    if text.casefold() == query.casefold():  # the model found nothing to resolve
        return Rewrite(original=query, text=query, rewritten=False, seconds=seconds)
    return Rewrite(original=query, text=text, rewritten=True, seconds=seconds)
