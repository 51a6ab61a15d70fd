"""Instructional Memory (REA paper, section 3.3): global instructions kept verbatim as the prompt prefix.

Policy:
    * ordered by arrival (the turn the user gave it);
    * deduplicated on case- and whitespace-insensitive text (a repeat keeps the first entry);
    * capped at ``capacity`` entries: past it the oldest entry is dropped (a newer instruction is
      likelier to reflect what the user wants now);
    * user-editable: ``add`` and ``remove`` by position; ``revoke`` drops the entry a revocation
      message ("you can stop answering in lowercase", "forget what I said about lowercase",
      "stop doing that": the latest) refers to, and ``replace`` swaps the entry a replacement
      ("actually, use capitals again") refers to; both pick it by shared words, then by
      embedding similarity when the caller passes one.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

import numpy as np

from ..text import normalize
from ..types import InstructionEntry

_WORD = re.compile(r"[a-z0-9']+")
_STOPWORDS = frozenset(
    "a an the and or to of in on for with you your my me i it is are be do does don't not no can could "
    "please now from stop anymore longer need have has that this those these any more just".split()
)
# Words of the revocation or replacement itself, not of what it refers to ("forget what I said about lowercase").
_REFERENCE_STOPWORDS = _STOPWORDS | frozenset(
    "forget forgot ignore drop ditch lose cancel doing said told "
    "asked about what earlier before previous again actually instead "
    "back go switch change get answer answers answering reply "
    "replies replying respond responding response responses use using "
    "write writing talk talking speak speaking start starting "
    "all will would should ok okay wait thought second scratch "
    "you're we let's us there then way".split()
)
_REVOKE_ALL = re.compile(
    r"\b(all|every|any) (of )?(my |the |those |these )?(previous |earlier "
    r"|prior )?(instructions|rules|constraints)\b|\bgo back to (normal|your usual)\b"
)
# cosine below which an entry is not taken as the referent (MiniLM, on the labeled revocation set)
SIMILARITY_FLOOR = 0.3
# a prohibition with no words of its own lifts an entry only this close ("stop starting your replies with r"
# vs "start your replies with r": 0.82; vs an unrelated length rule: under 0.35)
LIFT_FLOOR = 0.5

# (message, entry texts) -> (n_entries,) cosine similarities; built from an Embedder by the strategy.
Similarity = Callable[[str, Sequence[str]], np.ndarray]


def _content_words(text: str, stopwords: frozenset[str] = _STOPWORDS) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in stopwords and len(w) > 1}


def referent(
    message: str, texts: Sequence[str], similarity: Similarity | None = None, *, latest_if_none: bool = True
) -> int | None:
    """Index of the entry ``message`` refers to, or None.

    Shared content words count first, cosine similarity (when given) breaks ties and finds
    paraphrases ("stop shouting" -> "WRITE IN ALL CAPS"); an entry needs a shared word or a
    similarity of at least SIMILARITY_FLOOR. A message with no words of its own ("you can stop
    doing that") refers to the latest entry when ``latest_if_none``.
    """
    if not texts:
        return None
    words = _content_words(message, _REFERENCE_STOPWORDS)
    if not words:
        return len(texts) - 1 if latest_if_none else None
    overlaps = np.array([len(words & _content_words(t, _REFERENCE_STOPWORDS)) for t in texts], dtype=np.float64)
    sims = np.asarray(similarity(message, texts), dtype=np.float64) if similarity is not None else np.zeros(len(texts))
    eligible = (overlaps > 0) | (sims >= SIMILARITY_FLOOR)
    if not eligible.any():
        return None
    return int(np.argmax(np.where(eligible, overlaps + sims, -np.inf)))


class InstructionalMemory:
    """Ordered, deduplicated, capped list of ``InstructionEntry``."""

    def __init__(self, capacity: int = 16, entries: Iterable[InstructionEntry] = ()):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._entries: list[InstructionEntry] = []
        for entry in entries:
            self.add(entry)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        return iter(self._entries)

    @property
    def entries(self) -> tuple[InstructionEntry, ...]:
        return tuple(self._entries)

    def texts(self) -> list[str]:
        return [e.text for e in self._entries]

    def bare_turns(self, exchanges: Sequence) -> list[int]:
        """Turns of ``exchanges`` (indexed by turn, as Episodic Memory stores them) whose whole user
        message is an entry given there, case and spacing aside: IM reads that message verbatim, so
        the exchange need not be repeated (``retrieval.hcr.hold_in_im``). A message that also asked
        something is not bare. Costs one lookup per entry, whatever the history's length."""
        return [
            e.turn
            for e in self._entries
            if 0 <= e.turn < len(exchanges)
            and exchanges[e.turn].turn == e.turn
            and normalize(exchanges[e.turn].user) == normalize(e.text)
        ]

    def add(self, entry: InstructionEntry) -> bool:
        """Append ``entry``; False if the same instruction is already held. Drops the oldest past capacity."""
        text = entry.text.strip()
        if not text:
            raise ValueError("An instruction cannot be empty.")
        key = normalize(text)
        if any(normalize(e.text) == key for e in self._entries):
            return False
        self._entries.append(entry)
        del self._entries[: max(0, len(self._entries) - self.capacity)]
        return True

    def remove(self, index: int) -> InstructionEntry:
        """Remove and return the entry at ``index``; IndexError names the valid range."""
        if not -len(self._entries) <= index < len(self._entries):
            raise IndexError(f"No instruction at position {index}; Instructional Memory holds {len(self._entries)}.")
        return self._entries.pop(index)

    def revoke(self, message: str, similarity: Similarity | None = None) -> list[InstructionEntry]:
        """Drop what a revocation message refers to: everything for "all my instructions", else
        the entry ``referent`` picks (the latest for "stop doing that"; none if nothing matches)."""
        if _REVOKE_ALL.search(message.casefold()):
            removed, self._entries = self._entries, []
            return removed
        index = referent(message, self.texts(), similarity)
        return [] if index is None else [self._entries.pop(index)]

    def lift(self, message: str, similarity: Similarity | None = None) -> list[InstructionEntry]:
        """Drop the entry a standing prohibition contradicts ("Stop starting your replies with r." after
        "Start your replies with r."); none when it refers to nothing held, and then it is a new wish."""
        texts = self.texts()
        index = referent(message, texts, similarity, latest_if_none=False)
        if index is None and texts and similarity is not None and not _content_words(message, _REFERENCE_STOPWORDS):
            sims = np.asarray(similarity(message, texts), dtype=np.float64)
            index = int(np.argmax(sims)) if sims.max() >= LIFT_FLOOR else None
        return [] if index is None else [self._entries.pop(index)]

    def replace(self, entry: InstructionEntry, similarity: Similarity | None = None) -> InstructionEntry | None:
        """Swap the entry ``entry.text`` refers to ("actually, use capitals again") for ``entry``.

        Returns the replaced entry; None (and nothing added) when no entry is referred to, so the
        caller can treat the message as an ordinary input.
        """
        index = referent(entry.text, self.texts(), similarity, latest_if_none=False)
        if index is None:
            return None
        old = self._entries.pop(index)
        if not self.add(entry):
            self._entries.insert(index, old)
            return None
        return old

    def restore(self, entries: Iterable[InstructionEntry]) -> None:
        """Put back a snapshot taken from ``entries`` (used to undo a failed turn)."""
        self._entries = list(entries)

    def clear(self) -> None:
        self._entries.clear()

    def to_dict(self) -> dict:
        return {"capacity": self.capacity, "entries": [e.to_dict() for e in self._entries]}

    @classmethod
    def from_dict(cls, data: dict) -> "InstructionalMemory":
        return cls(data.get("capacity", 16), (InstructionEntry(**e) for e in data.get("entries", [])))
