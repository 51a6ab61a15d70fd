"""Small pure text helpers shared by memory, retrieval and reconstruction."""

from __future__ import annotations

import re

from .errors import InputError
from .lexical import tokenize
from .validation import text_problem

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive key, used to deduplicate instructions."""
    return _SPACE.sub(" ", text).strip().casefold()


def split_sentences(text: str) -> list[str]:
    """Split on sentence punctuation and line breaks; drops empty pieces."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def chunk_sentences(text: str, max_chunks: int) -> list[str]:
    """Group consecutive sentences into at most ``max_chunks`` chunks of near-equal sentence count."""
    sentences = split_sentences(text)
    if len(sentences) <= max_chunks:
        return sentences
    size, extra = divmod(len(sentences), max_chunks)
    chunks, start = [], 0
    for i in range(max_chunks):
        end = start + size + (1 if i < extra else 0)
        chunks.append(" ".join(sentences[start:end]))
        start = end
    return chunks


def text_compress(reply: str, max_words: int) -> str:
    """Extractive stand-in for a compressed reply: its leading words, with an elision mark.

    This is the *text-compressed* resolution used until latent vectors exist; it is never
    called latent anywhere.
    """
    words = reply.split()
    if len(words) <= max_words:
        return reply.strip()
    return " ".join(words[:max_words]) + " […]"


def extract_relevant(reply: str, query: str, max_words: int) -> str:
    """Extractive compressed reply: the reply's sentences sharing most terms with ``query``, kept in
    reply order within ``max_words``; with no overlap, the leading sentences (as ``text_compress``).

    Why lexical: reconstruction stays a pure function, and the terms a query shares with a
    sentence are what makes it worth keeping for that query. A sentence longer than the budget
    is cut at the budget.
    """
    words = reply.split()
    if len(words) <= max_words:
        return reply.strip()
    sentences = split_sentences(reply)
    wanted = set(tokenize(query))
    overlap = [len(wanted & set(tokenize(s))) for s in sentences]
    order = sorted(range(len(sentences)), key=lambda i: (-overlap[i], i))  # best first; ties: earlier first
    chosen, used = [], 0
    for i in order:
        n = len(sentences[i].split())
        if used + n > max_words:
            if not chosen:  # the best sentence alone is too long: its leading words
                return " ".join(sentences[i].split()[:max_words]) + " […]"
            continue
        chosen.append(i)
        used += n
    return " ".join(sentences[i] for i in sorted(chosen)) + (" […]" if used < len(words) else "")


def validate_message(text: object, max_chars: int) -> str:
    """Return the user message, or raise InputError if it is not a non-empty string within the limit."""
    if not isinstance(text, str):
        raise InputError(f"A message must be text, got {type(text).__name__}.")
    if not text.strip():
        raise InputError("The message is empty; nothing was sent or stored.")
    if len(text) > max_chars:
        raise InputError(
            f"The message has {len(text):,} characters, over the limit of {max_chars:,}; nothing was sent or stored."
        )
    problem = text_problem(text)  # the rule every loaded file meets: no NUL, no lone surrogate
    if problem:
        raise InputError(f"The message holds {problem}; nothing was sent or stored.")
    return text
