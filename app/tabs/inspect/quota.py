"""The per-browser-session quota on Inspect's marks (``Limits.marks_per_session``).

Why here and not in the store: the database knows who marked, not from which browser session.
The per-user quotas (``Limits.marks_per_user``, ``Limits.marks_mb_per_user``) are the store's
(``add_failure_mark(max_marks=..., max_bytes=...)``).
Together they bound what one visitor can write: without sign-in every visitor is "anonymous", so
the per-user quota caps all anonymous marks, and the per-session one keeps a single browser from
taking all of it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from threading import Lock

from rea_core import REAError
from rea_core.limits import LRUCache

SESSIONS_KEPT = 4096  # browser sessions whose marks are counted (least recently used forgotten)


class MarkQuotaExceeded(REAError):
    """A mark over a quota; the message says which, for a visitor. Nothing was written."""


class SessionMarks:
    """The marks each browser session has stored, by key: marking the same exchange again updates
    one row, so it is no new mark and is always allowed."""

    def __init__(self, limit: int, sessions: int = SESSIONS_KEPT):
        self.limit = limit
        self._keys = LRUCache(sessions)  # session hash -> set of mark keys
        self._lock = Lock()

    def count(self, session_hash: str) -> int:
        return len(self._keys.get(session_hash) or ())

    @contextmanager
    def claim(self, session_hash: str | None, key: Hashable) -> Iterator[None]:
        """Hold a place for mark ``key`` of browser session ``session_hash`` while it is written; given back
        if the write fails.

        Raises:
            MarkQuotaExceeded: That browser session holds ``limit`` other marks already.
        """
        if session_hash is None:  # a call from inside the server, not a browser
            yield
            return
        with self._lock:
            keys = self._keys.get(session_hash) or set()
            new = key not in keys
            if new and len(keys) >= self.limit:
                raise MarkQuotaExceeded(
                    f"this browser session has stored {len(keys)} marks, the most one session may store "
                    "(REA_MARKS_PER_SESSION); nothing was saved"
                )
            keys.add(key)
            self._keys.put(session_hash, keys)
        try:
            yield
        except BaseException:
            if new:
                with self._lock:
                    keys.discard(key)
            raise


def user_quota_message(annotator: str, held: int, *, limit_mb: float | None = None, in_bytes: bool = False) -> str:
    """The visitor's line for a per-user quota (``annotations.marks.MarkQuotaError``): the marks count
    (``REA_MARKS_PER_USER``), or with ``in_bytes`` the bytes the marks would hold against ``limit_mb``
    (``REA_MARKS_MB_PER_USER``)."""
    if in_bytes:
        size, most = f"{held / 2**20:.3g} MB of marks", f"{limit_mb:g} MB, REA_MARKS_MB_PER_USER"
        if annotator == "anonymous":
            return (
                f"with this mark, visitors who are not signed in would hold {size} together, over the most "
                f"allowed ({most}); nothing was saved"
            )
        return f"with this mark you would hold {size}, over the most one user may store ({most}); nothing was saved"
    if annotator == "anonymous":
        return (
            f"visitors who are not signed in have stored {held} marks together, the most allowed "
            "(REA_MARKS_PER_USER); nothing was saved"
        )
    return f"you have stored {held} marks, the most one user may store (REA_MARKS_PER_USER); nothing was saved"
