"""The recognizer's labels, defined once.

Annotators label an input ``global`` (a standing instruction), ``task`` (a request or a one-reply
constraint) or ``ordinary``. The recognizer answers ``global``, ``revoke`` (lifts an earlier
instruction) or ``other``.
"""

from __future__ import annotations

LABELS = ("global", "task", "ordinary")
GLOBAL, TASK, ORDINARY = LABELS
REVOKE, OTHER = "revoke", "other"
