"""Follow-up awareness for HCR: queries that lean on an earlier turn ("make them shorter").

A follow-up shares few words or meaning with what it refers to, so its own score misses the
referent. ``is_follow_up`` tells such a query (anaphora, ordinal reference, ellipsis, edit
imperative); for it REA adds the ``referent_prior`` (recent exchanges that produced or introduced
things) to the scores and keeps the best omitted exchange (``hcr.keep_best``). Two more remedies
from conversational search are here, measured and off by default (``REAConfig.context_turns``,
``follow_up_decay``): scoring the query joined with the previous user turn(s), and
``carry_forward`` of the previous turn's scores. All are pure functions of text and scores.
"""

from __future__ import annotations

import re

import numpy as np

_ANAPHORA = re.compile(
    r"\b(it|its|them|they|those|these|that one|this one|the (first|second|third|fourth|fifth|last|other|same|previous|above|former|latter)\b"
    r"|the (one|ones|list|idea|ideas|names|options|answer|code|text|story|poem|recipe|email|example|version|plan)\b"
    r"|(first|second|third|last) (one|option|idea|name|point)|#\d|number \d|option \d|same (for|with|but|thing)|as well|too|instead|again|more|less"
    r"|you (said|mentioned|gave|suggested|wrote|told)|earlier|before|above|previous)\b",
    re.IGNORECASE,
)
_EDIT = re.compile(
    r"^\s*(make|turn|rewrite|rephrase|shorten|expand|translate|change|add|remove|drop|double|halve|simplify|summari[sz]e|explain|continue|"
    r"elaborate|fix|redo|try|give me (another|more|a different)|can you (make|add|translate|shorten|change|rewrite|do)|what about|how about|and\b|also\b|ok(ay)?,? (now|and)|now\b)",
    re.IGNORECASE,
)
_SHORT_ELLIPSIS_WORDS = 5  # "and in Japanese?", "shorter?", "for kids?"


def is_follow_up(text: str) -> bool:
    """Whether ``text`` reads as depending on an earlier turn: a cheap rule, precision traded for recall."""
    words = text.split()
    if not words:
        return False
    if _EDIT.search(text) or _ANAPHORA.search(text):
        return True
    return len(words) <= _SHORT_ELLIPSIS_WORDS and text.rstrip().endswith("?") and not re.match(r"^\s*(who|what|when|where|why|how|which|is|are|do|does|can)\b(?! about)", text, re.IGNORECASE)


def carry_forward(scores: np.ndarray, previous: np.ndarray, decay: float) -> np.ndarray:
    """``max(scores, decay x previous)`` over the exchanges the previous turn saw; the latest exchange
    (the previous turn itself) carries ``decay`` x 1, a perfect match of its own query.

    ``previous`` holds the previous turn's scores over the first ``len(scores) - 1`` exchanges.
    """
    if decay <= 0 or not len(scores):
        return scores
    carried = np.append(np.asarray(previous, dtype=np.float64), 1.0)[: len(scores)]
    return np.maximum(scores, decay * carried)


_PRODUCE = re.compile(
    r"^\s*(please\s+)?(can you\s+|could you\s+)?(give me|write|list|suggest|create|generate|draft|compose|make|come up with|name|plan|recommend|"
    r"brainstorm|outline|design|propose|tell me (a|some|\d+)|i need (a|some|\d+))\b",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"^\s*(\d+[.)]|[-*•])\s+\S", re.MULTILINE)
_INLINE_LIST = re.compile(r":\s*[^.:]+,[^.:]+\band\b")  # "three houseplants: a fig, a snake plant and a pothos"


def referent_prior(exchanges, recency: float = 0.9) -> np.ndarray:
    """How likely each exchange is what a follow-up points back to, before reading the follow-up:
    1 for an exchange that produced or introduced things (a request to write, list, suggest...; a
    reply with a list; items introduced after a colon), 0.5 otherwise, times ``recency`` per exchange back (anaphora resolves to the salient
    recent artifact). Pure, from the stored texts."""
    n = len(exchanges)
    prior = np.array([1.0 if _PRODUCE.match(ex.user) or len(_LIST_LINE.findall(ex.reply)) >= 2 or _INLINE_LIST.search(ex.text) else 0.5
                      for ex in exchanges])
    return prior * recency ** np.arange(n - 1, -1, -1, dtype=np.float64)
