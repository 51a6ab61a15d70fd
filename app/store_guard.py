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


class TextRefused(REAError):
    """Typed text the database cannot keep (a lone surrogate); the message says which, nothing was stored."""


def storable_note(note: str, error: type[REAError] = TextRefused) -> str:
    """A typed note (a label's, a mark's) as stored: ``storable`` (NULs removed, cut to ``NOTE_MAX_CHARS``),
    then the text check every other input meets (``rea_core.validation.check_text``).

    Why: a lone surrogate has no UTF-8 form, so the database driver fails on it with a traceback;
    here it is one line the visitor can act on.

    Raises:
        error: The note holds a lone surrogate; nothing may be stored.
    """
    from rea_core.validation import check_text

    return check_text(storable(note, NOTE_MAX_CHARS), "the note", error=error)
