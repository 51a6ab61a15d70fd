"""Instructional Memory (seed 000, section 3.3): global instructions kept verbatim as the prompt prefix.

Policy:
    * ordered by arrival (the turn the user gave it);
    * deduplicated on case- and whitespace-insensitive text (a repeat keeps the first entry);
    * capped at ``capacity`` entries: past it the oldest entry is dropped (a newer instruction is
      likelier to reflect what the user wants now);
    * user-editable: ``add`` and ``remove`` by position; ``revoke`` drops the entry a revocation
      message ("you can stop answering in lowercase") refers to.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..text import normalize
from ..types import InstructionEntry

_WORD = re.compile(r"[a-z0-9']+")
_STOPWORDS = frozenset(
    "a an the and or to of in on for with you your my me i it is are be do does don't not no can could "
    "please now from stop anymore longer need have has that this those these any more just".split()
)
_REVOKE_ALL = re.compile(r"\b(all|every|any) (of )?(my |the |those |these )?(previous |earlier |prior )?(instructions|rules|constraints)\b|\bgo back to (normal|your usual)\b")


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in _STOPWORDS and len(w) > 1}


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

    def revoke(self, message: str) -> list[InstructionEntry]:
        """Drop what a revocation message refers to: everything for "all my instructions",
        else the entry sharing the most content words with it (none if no word is shared)."""
        if _REVOKE_ALL.search(message.casefold()):
            removed, self._entries = self._entries, []
            return removed
        words = _content_words(message)
        overlaps = [len(words & _content_words(e.text)) for e in self._entries]
        if not overlaps or max(overlaps) == 0:
            return []
        return [self._entries.pop(overlaps.index(max(overlaps)))]

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
