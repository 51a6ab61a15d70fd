"""The one guard between the app's tabs and the annotations database.

Every tab calls the store through ``guard(fn, "what failed")``: a locked or unreachable database
becomes one ``StoreUnavailable`` (or the tab's own subclass of ``REAError``) whose message says
what failed ("stats not loaded", "label not saved") and why, without naming the host or user.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from rea_core import REAError

logger = logging.getLogger(__name__)
T = TypeVar("T")
NOTE_MAX_CHARS = 2000  # a note explains a label or a mark; longer text is cut, not stored whole


class StoreUnavailable(REAError):
    """The annotations database refused a call (locked or down); the message says what failed."""


def visitor_safe(exc: Exception) -> str:
    """What a visitor may read about a database failure: the outcome, never the host or user.
    The full message (host, no password) goes to the server log for the operator."""
    logger.warning("annotations database: %s", exc)
    return getattr(exc, "visitor_message", "The annotations database is unavailable. Try again later.")


def guard(fn: Callable[[], T], failed: str, error: type[REAError] = StoreUnavailable) -> T:
    """Run a store call; a ``StoreError`` becomes ``error("<failed>: <visitor-safe reason>")``.

    Args:
        fn: The store call (opens and closes its own session).
        failed: What did not happen, for the visitor: "stats not loaded", "label not saved".
        error: The exception the calling tab reports (``StoreUnavailable`` by default).
    """
    from annotations import StoreError

    try:
        return fn()
    except StoreError as exc:
        reason = visitor_safe(exc)
        raise error(f"{failed[:1].upper()}{failed[1:]}: {reason[:1].lower()}{reason[1:]}") from exc


def storable(text: str, limit: int | None = None) -> str:
    """Text as the database can keep it: NUL characters removed (PostgreSQL refuses them), cut to ``limit``."""
    text = (text or "").replace("\x00", "")
    return text if limit is None else text[:limit]
