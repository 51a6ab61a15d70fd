"""QA metrics (pure): SQuAD token F1 and exact match, mean NLL, the NLL gap share, the judge's label, and
the per-arm summaries of ``rea eval qa``."""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import Callable, Iterable, Sequence

import numpy as np


def normalize_answer(text: str) -> str:
    """SQuAD normalization: lowercase, punctuation and articles removed, whitespace collapsed."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 between normalized answers (both empty: 1)."""
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def answer_scores(prediction: str | None, gold: str) -> dict:
    """``f1`` and ``em`` of a generated answer against the gold (both None where none was generated)."""
    if prediction is None:
        return {"f1": None, "em": None}
    return {"f1": token_f1(prediction, gold), "em": exact_match(prediction, gold)}


def mean_nll(logprobs: Sequence[float]) -> float | None:
    """Mean negative log-likelihood per token (None for no tokens)."""
    return -float(np.mean(logprobs)) if len(logprobs) else None


def gap_share(none: float | None, arm: float | None, oracle: float | None) -> float | None:
    """(none - arm) / (none - oracle), on mean NLLs: the share of the evidence's NLL gain an arm keeps.
    None when a term is missing or the evidence gains nothing (the share has no meaning then)."""
    if none is None or arm is None or oracle is None or none - oracle <= 1e-9:
        return None
    return (none - arm) / (none - oracle)


def parse_judge(text: str) -> bool | None:
    """The judge's label: the last CORRECT or WRONG in its reply (None when there is neither)."""
    labels = re.findall(r"\b(CORRECT|WRONG)\b", text.upper())
    return None if not labels else labels[-1] == "CORRECT"


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


# A leading speaker name: one to four short words (letters first), then a colon.
_SPEAKER = re.compile(r"\s*([^\W\d_][\w'’.-]*(?: [\w'’.-]+){0,3})\s*:\s*")
MAX_SPEAKER_CHARS = 32


def speaker_names(texts: Iterable[str]) -> frozenset[str]:
    """The names a conversation's turns begin with, "Name: text" as a LoCoMo file's exchanges hold them.

    Example:
        >>> sorted(speaker_names(["Mel: I moved.", "Jo Ann: Nice!", "12: not a name"]))
        ['Jo Ann', 'Mel']
    """
    names = set()
    for text in texts:
        name, colon, _ = (text or "").partition(": ")
        m = _SPEAKER.fullmatch(name + ": ") if colon else None
        if m and len(m.group(1)) <= MAX_SPEAKER_CHARS:
            names.add(m.group(1))
    return frozenset(names)


def without_speaker(text: str, speakers: Iterable[str]) -> str:
    """``text`` without a leading "Name:" where Name is one of the conversation's ``speakers`` (any case,
    several in a row): a model that read "Jo: ..." turns answers "Jo: at 3:30". Anything else stays
    ("Note: 3:30"), and so does an answer that would be left empty.

    Example:
        >>> without_speaker("Jo: at 3:30", {"Jo", "Mel"}), without_speaker("Note: 3:30", {"Jo"})
        ('at 3:30', 'Note: 3:30')
    """
    names = {n.strip().casefold() for n in speakers if n and n.strip()}
    while names:
        m = _SPEAKER.match(text)
        if not m or m.group(1).casefold() not in names or not text[m.end() :].strip():
            break
        text = text[m.end() :]
    return text


def summarize(records: Sequence[dict]) -> dict:
    """Means over one arm's records (NLL and judge over the records that have them)."""
    if not records:
        return {"questions": 0}

    def mean(key: str) -> float | None:
        values = [r[key] for r in records if r.get(key) is not None]
        return float(np.mean(values)) if values else None

    return {
        "questions": len(records),
        "nll": mean("nll"),
        "nll_scored": sum(r.get("nll") is not None for r in records),  # the rest refused (``nll.answer_nll``)
        "f1": mean("f1"),
        "em": mean("em"),
        "judge": mean("judge"),
        "judged": sum(r.get("judge") is not None for r in records),
        "prompt_tokens": mean("prompt_tokens"),
        "prompt_share": mean("prompt_share"),
        "evidence_shown": mean("evidence_shown"),
        "seconds": mean("seconds"),
        "memory_s_per_question": mean("memory_s"),
    }


def summarize_arms(records: dict[str, list[dict]]) -> dict[str, dict]:
    """Per arm, the summary over all its questions and per LoCoMo category, each with the NLL gap share
    from the group's mean NLLs under ``none`` and ``oracle`` (None where either arm did not run)."""
    groups: dict[str, Callable[[dict], bool]] = {"all": lambda r: True}
    cats = sorted({r["category"] for recs in records.values() for r in recs if r.get("category")})
    groups.update({c: (lambda r, c=c: r.get("category") == c) for c in cats})
    out = {
        arm: {g: summarize([r for r in recs if keep(r)]) for g, keep in groups.items()}
        for arm, recs in records.items()
    }
    for arm in out:
        for g in groups:
            none = out.get("none", {}).get(g, {}).get("nll")
            oracle = out.get("oracle", {}).get(g, {}).get("nll")
            out[arm][g]["gap_share"] = gap_share(none, out[arm][g].get("nll"), oracle)
    return out
