"""Follow-up awareness for HCR: messages that lean on an earlier turn ("make them shorter").

A follow-up shares few words or meaning with what it refers to, so its own score misses the
referent. Whether a message leans on earlier turns is read from signals that can be measured on any
phrasing, not from a list of the phrasings seen so far: unresolved reference (third-person and
demonstrative pronouns, "one(s)", ordinal and positional picks, additive and contrastive particles),
ellipsis (a message opening with a conjunction or "what/how about", a short message with little
content of its own), a pointer to what the assistant said ("you" + a past-tense verb), and how
little the message says by itself. A logistic model over these features (``follow_up_probability``)
is fitted by ``benchmarks/fit_followup.py`` on the development families of the follow-up benchmark,
with the other user turns of the same conversations as standalone messages, and measured on
families held out from fitting (BENCHMARKS.md, "Working memory"). The weights ship in
``rea_core/data/followup_detector.json``.

REA adds the ``referent_prior`` (recent exchanges that produced or introduced things) to the
scores, weighted by the message's follow-up probability; the best-scored omitted exchanges beyond
the working-memory window are kept for every message (``hcr.keep_best``). Two more remedies from
conversational search are here, measured and off by default (``REAConfig.context_turns``,
``follow_up_decay``): scoring the query joined with the previous user turn(s), and
``carry_forward`` of the previous turn's scores. All are pure functions.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from importlib import resources

import numpy as np

from ..lexical import STOPWORDS

# Closed word classes of English grammar (not phrasings): what a message uses to point outside itself.
_PRONOUNS = frozenset("it its itself they them their theirs themselves he him his she her hers".split())
_DEMONSTRATIVES = frozenset("this that these those".split())
_PRO_ONE = frozenset("one ones".split())
_POSITIONAL = frozenset(
    "first second third fourth fifth sixth seventh eighth ninth tenth last middle latter former previous "
    "above earlier before final top bottom next".split()
)
_PARTICLES = frozenset("same such another other others else again instead too also either rather".split())
_DEGREE = frozenset("more less fewer".split())
_CONJUNCTIONS = frozenset("and but or so then plus also".split())
_REACTIONS = frozenset(
    "ok okay great thanks thank cool nice perfect awesome good no yes yeah yep nope hmm wow love".split()
)
_WH = frozenset("what how why which who where when".split())
_AUX = frozenset("is are was were do does did can could would will should may might has have had".split())
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_PAST = re.compile(
    r"\byou (just |already )?(\w+ed|said|gave|wrote|told|made|showed|meant|drew|chose)\b"
)  # not "if you had": a hypothetical
_NUMBER_PICK = re.compile(r"(#\s?\d+|\b(number|no\.?|option|item|step|point|idea|name)\s?\d+\b|\b\d+(st|nd|rd|th)\b)")
_THE_ADJ_EST = re.compile(r"\bthe \w+est\b")
_NAME = re.compile(
    r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+"
)  # a capitalized word inside a sentence: a name the pronouns can refer to

FEATURES = (
    "bias",
    "pronoun",
    "demonstrative",
    "pro_one",
    "positional",
    "particle",
    "degree",
    "opens_with_conjunction",
    "opens_with_reaction",
    "wh_about",
    "you_past",
    "number_pick",
    "superlative_pick",
    "few_content_words",
    "short",
    "content_words",
    "standalone_question",
    "named_antecedent",
)


def follow_up_features(text: str) -> np.ndarray:
    """The measurable signals of one message, in ``FEATURES`` order (counts capped at 2)."""
    lowered = text.lower()
    words = _WORD.findall(lowered)
    content = [
        w
        for w in words
        if w not in STOPWORDS and len(w) > 3 and w not in _PRONOUNS | _DEMONSTRATIVES | _POSITIONAL | _PARTICLES
    ]
    count = lambda vocab: min(2, sum(w in vocab for w in words))  # noqa: E731
    name = _NAME.search(text.strip())
    # pronouns after a name in the same message can refer to it ("What did Caroline do with her kids?")
    unresolved = _WORD.findall(text.strip()[: name.start()].lower()) if name else words
    first = words[0] if words else ""
    second = words[1] if len(words) > 1 else ""
    standalone = (
        (first in _WH or first in _AUX)
        and len(content) >= 2
        and not count(_PRONOUNS | _DEMONSTRATIVES | _PRO_ONE | _POSITIONAL)
    )
    return np.array(
        [
            1.0,
            min(2, sum(w in _PRONOUNS for w in unresolved)),
            min(2, sum(w in _DEMONSTRATIVES for w in unresolved)),
            count(_PRO_ONE),
            count(_POSITIONAL),
            count(_PARTICLES),
            count(_DEGREE),
            float(first in _CONJUNCTIONS),
            float(first in _REACTIONS),
            float(first in _WH and second in ("about", "if", "for", "not")),
            float(bool(_PAST.search(lowered))),
            float(bool(_NUMBER_PICK.search(lowered))),
            float(bool(_THE_ADJ_EST.search(lowered))),
            float(len(content) <= 2),
            float(len(words) <= 6),
            min(len(content), 12) / 12,
            float(standalone),
            float(name is not None),
        ],
        dtype=np.float64,
    )


@lru_cache(maxsize=1)
def _detector() -> tuple[np.ndarray, float]:
    data = json.loads(
        resources.files("rea_core").joinpath("data", "followup_detector.json").read_text(encoding="utf-8")
    )
    if tuple(data["features"]) != FEATURES:
        raise ValueError(
            "followup_detector.json was fitted on other features; refit it with benchmarks/fit_followup.py"
        )
    return np.asarray(data["weights"], dtype=np.float64), float(data["threshold"])


def follow_up_probability(text: str) -> float:
    """How likely ``text`` leans on an earlier turn, from the fitted logistic model."""
    weights, _ = _detector()
    return 1.0 / (1.0 + math.exp(-float(follow_up_features(text) @ weights)))


def follow_up_threshold() -> float:
    """The fitted probability at and above which a message counts as a follow-up (chosen for
    recall: a false alarm costs one compressed exchange, a miss the answer)."""
    return _detector()[1]


def is_follow_up(text: str) -> bool:
    """Whether ``text`` reads as depending on an earlier turn (``follow_up_threshold``)."""
    if not text.split():
        return False
    return follow_up_probability(text) >= follow_up_threshold()


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
    r"^\s*(please\s+)?(can you\s+|could you\s+)?(give me|write|list|suggest"
    r"|create|generate|draft|compose|make|come up with|name|plan|recommend|"
    r"brainstorm|outline|design|propose|tell me (a|some|\d+)|i need (a|some|\d+))\b",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"^\s*(\d+[.)]|[-*•])\s+\S", re.MULTILINE)
_INLINE_LIST = re.compile(r":\s*[^.:]+,[^.:]+\band\b")  # "three houseplants: a fig, a snake plant and a pothos"


PRIOR_SPAN = 64  # exchanges back the prior looks at: 0.9 ** 64 is about 0.001, and the cost stays flat as memory grows


def referent_prior(exchanges, recency: float = 0.9) -> np.ndarray:
    """How likely each exchange is what a follow-up points back to, before reading the follow-up:
    1 for an exchange that produced or introduced things (a request to write, list, suggest...; a
    reply with a list; items introduced after a colon), 0.5 otherwise, times ``recency`` per
    exchange back (anaphora resolves to the salient recent artifact); 0 past ``PRIOR_SPAN``.
    Pure, from the stored texts."""
    n = len(exchanges)
    prior = np.zeros(n, dtype=np.float64)
    start = max(0, n - PRIOR_SPAN)
    prior[start:] = [
        1.0
        if _PRODUCE.match(ex.user) or len(_LIST_LINE.findall(ex.reply)) >= 2 or _INLINE_LIST.search(ex.text)
        else 0.5
        for ex in exchanges[start:]
    ]
    return prior * recency ** np.arange(n - 1, -1, -1, dtype=np.float64)
