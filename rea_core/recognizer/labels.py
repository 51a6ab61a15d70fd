"""The recognizer's labels and the text key for labeled inputs, defined once.

Annotators label an input ``global`` (a standing instruction), ``task`` (a request or a one-reply
constraint) or ``ordinary``. The recognizer answers ``global``, ``revoke`` (lifts an earlier
instruction) or ``other``.
"""

from __future__ import annotations

from ..text import normalize

LABELS = ("global", "task", "ordinary")
GLOBAL, TASK, ORDINARY = LABELS
REVOKE, OTHER = "revoke", "other"


def normalize_text(text: str) -> str:
    """Whitespace-collapsed casefolded text: the key for deduplication and train/validation overlap."""
    return normalize(text)
