"""Heavy per-session state (Inspect's loaded files, traces and answer caches, Compare's loaded
conversations), held on the server under one memory cap and one time limit.

Why: ``gr.State`` keeps each browser session's values until their time to live, with no bound over
all sessions: 40 sessions each loading a 10 MB file added hundreds of MB for an hour, and one
800-turn trace keeps about 200 MB. Here a ``gr.State`` keeps only a ``Handle`` (a random key the
server makes, never one taken from the request); the value lives in a ``SessionStore`` beside its
measured size. When the values and the generator's KV prefix cache together pass the cap
(``Limits.session_state_mb``), the least recently used values are dropped first; a value unused
for ``Limits.session_state_ttl_s`` is dropped too (swept on every access and on a timer). A session
that comes back to a dropped value gets ``StateDropped``: one line saying to load it again.

Sizes are measured, not guessed: ``deep_size`` walks the object graph adding ``sys.getsizeof`` of
every object once (numpy arrays with their buffers), which tracks ``tracemalloc``'s count of the
memory the value allocated (``tests/unit/test_session_state.py``).
"""

from __future__ import annotations

import gc
import logging
import secrets
import sys
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from enum import Enum
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any, Callable

import numpy as np

from rea_core import REAError

log = logging.getLogger(__name__)
# Shared, long-lived objects a session value may point to but does not own.
_NOT_OWNED = (type, ModuleType, FunctionType, BuiltinFunctionType, MethodType, Enum, threading.Thread)
_MANAGED_DICT = 1 << 4  # Py_TPFLAGS_MANAGED_DICT: attribute values kept outside the object
_GONE_KEPT = 4096  # keys whose reason for going is remembered, so a returning session learns why


class StateDropped(REAError):
    """A session's value is no longer held (memory cap, time limit, or too large to keep); the message
    says which and what to do, for a visitor."""


@dataclass(frozen=True)
class Handle:
    """What a ``gr.State`` keeps instead of a heavy value: a server-made key and what it stands for."""

    key: str
    what: str  # "the file chats.jsonl", "the trace of conversation a": the subject of the message


@dataclass
class _Entry:
    value: Any
    nbytes: int
    what: str
    used: float  # clock time of the last put or get
    on_drop: Callable[[str], None] | None = None  # told why, when the cap or the time limit drops it


def deep_size(value: Any) -> int:
    """Bytes of the objects reachable from ``value`` (each counted once), numpy buffers and torch
    storage included; classes, modules, functions and enum members are shared, so they are not counted.

    Every object is measured: a file shaped so that its big turns sit where a sample would not look
    cannot hide from it. The walk goes a level at a time through ``gc.get_referents`` (C), so an
    800-turn trace's 320,000 decisions take well under a second, and nothing is materialized
    (``vars(obj)`` would build a dict for every instance it measured).
    """
    seen: set[int] = set()
    level: list[Any] = [value]
    total = 0
    while level:
        fresh = []
        for obj in level:
            if obj is None or id(obj) in seen or isinstance(obj, _NOT_OWNED):
                continue
            seen.add(id(obj))
            fresh.append(obj)
        total += sum(map(sys.getsizeof, fresh))  # an array that owns its buffer counts it here
        level = gc.get_referents(*fresh)
        for obj in fresh:
            kind = type(obj)
            if kind.__flags__ & _MANAGED_DICT:
                total += _inline_attributes_bytes(obj)
            elif isinstance(obj, np.ndarray) and obj.base is not None:
                level.append(obj.base)  # a view: the buffer is its base's (arrays are not gc-traversed)
            elif kind.__module__.startswith("torch") and hasattr(obj, "element_size"):
                total += obj.element_size() * obj.nelement()
    return total


def _inline_attributes_bytes(obj: Any) -> int:
    """The attribute values array of an instance whose ``__dict__`` was never built (CPython 3.11
    keeps it beside the object, outside ``sys.getsizeof``): 8 bytes a slot of its shared keys plus a
    header. Calibrated against tracemalloc (``tests/unit/test_session_state.py``)."""
    attributes = len(gc.get_referents(obj)) - 1  # its values, and its class
    return 8 * (attributes + 2)


def mb(nbytes: float) -> str:
    return f"{nbytes / 2**20:.1f} MB"


class SessionStore:
    """Values of every browser session under one byte cap, least recently used dropped first.

    Args:
        max_bytes: the cap over all values plus ``reserved()`` (``Limits.session_state_mb``).
        ttl_s: a value unused this long is dropped (``Limits.session_state_ttl_s``).
        reserved: bytes held elsewhere that count toward the cap (the generator's KV prefix cache,
            bounded by its own LRU); values are dropped to leave room for them.
        clock: seconds, monotonic (a test passes its own).
        sweep_every_s: how often the background sweep runs (default: a quarter of ``ttl_s``, 1 to 60 s).

    Example:
        >>> store = SessionStore(2**20, 900)
        >>> handle = store.put([1, 2, 3], what="the list")
        >>> store.get(handle)
        [1, 2, 3]
    """

    def __init__(
        self,
        max_bytes: int,
        ttl_s: float,
        *,
        reserved: Callable[[], int] = lambda: 0,
        clock: Callable[[], float] = time.monotonic,
        sweep_every_s: float | None = None,
    ):
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        self._reserved = reserved
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()  # least recently used first
        self._gone: OrderedDict[str, str] = OrderedDict()  # key -> why it went
        self._lock = threading.RLock()
        self._sweeper: threading.Thread | None = None
        self._sweep_every_s = min(60.0, max(1.0, ttl_s / 4)) if sweep_every_s is None else sweep_every_s

    def __deepcopy__(self, memo: dict) -> "SessionStore":
        """The one shared store: Gradio deep-copies each session's components, ``delete_callback``
        (``release``) included, and a copy would drag the engine and its models along."""
        return self

    # -- values --------------------------------------------------------------------------------

    def put(
        self,
        value: Any,
        *,
        what: str,
        nbytes: int | None = None,
        replaces: Any = None,
        on_drop: Callable[[str], None] | None = None,
    ) -> Handle:
        """Hold ``value`` (its size measured by ``deep_size`` unless given) and return its handle;
        ``replaces`` (a handle this session held for the same thing) is released first. ``on_drop``
        is called with the reason ("was dropped to free memory ...") when the cap or the time limit
        drops the value, not when it is released: a value the session itself holds (Compare's
        columns) is emptied there, so its memory goes too.

        Raises:
            StateDropped: the value alone is larger than the room the cap leaves; it is not kept.
        """
        self.release(replaces)
        nbytes = deep_size(value) if nbytes is None else nbytes
        with self._lock:
            room = self.max_bytes - self._reserved()
            if nbytes > room:
                raise StateDropped(
                    f"{what.capitalize()} needs {mb(nbytes)}, more than the {mb(max(room, 0))} "
                    "this server keeps for all sessions (REA_SESSION_STATE_MB); try a smaller file"
                )
            key = secrets.token_urlsafe(16)
            self._entries[key] = _Entry(value, nbytes, what, self._clock(), on_drop)
            self._enforce(keep=key)
        self._start_sweeper()
        return Handle(key, what)

    def update(self, handle: Handle, value: Any, *, nbytes: int | None = None) -> Handle:
        """``value`` under ``handle``'s key, re-measured (a cache that grew); put anew when it went."""
        nbytes = deep_size(value) if nbytes is None else nbytes
        with self._lock:
            entry = self._entries.get(handle.key)
            if entry is None:
                return self.put(value, what=handle.what, nbytes=nbytes)
            entry.value, entry.nbytes, entry.used = value, nbytes, self._clock()
            self._entries.move_to_end(handle.key)
            self._enforce(keep=handle.key)
            if handle.key not in self._entries:  # larger than the room left: not kept
                raise StateDropped(self._gone[handle.key])
        return handle

    def get(self, handle: Any) -> Any:
        """The value ``handle`` stands for, now the most recently used.

        Raises:
            StateDropped: it was dropped (memory cap, time limit) or never held here; the message
            names it and says to load it again.
        """
        if not isinstance(handle, Handle):
            raise StateDropped("Nothing is loaded in this session; load a file first")
        with self._lock:
            self._sweep_locked(self._clock())
            entry = self._entries.get(handle.key)
            if entry is None:
                why = self._gone.get(handle.key, "is no longer held by the server (it may have restarted)")
                raise StateDropped(f"{handle.what.capitalize()} {why}; load it again")
            entry.used = self._clock()
            self._entries.move_to_end(handle.key)
            self._enforce(keep=handle.key)
            return entry.value

    def get_or(self, handle: Any, default: Any) -> Any:
        """The value, or ``default`` when it went (for caches that are rebuilt, not reported)."""
        try:
            return self.get(handle)
        except StateDropped:
            return default

    def release(self, handle: Any) -> None:
        """Forget ``handle``'s value (replaced, or its browser session ended); anything else is ignored,
        so this serves as ``gr.State``'s ``delete_callback``."""
        if isinstance(handle, Handle):
            with self._lock:
                self._entries.pop(handle.key, None)

    # -- bounds --------------------------------------------------------------------------------

    def sweep(self, now: float | None = None) -> int:
        """Drop values unused for ``ttl_s`` and enforce the cap; returns how many were dropped."""
        with self._lock:
            return self._sweep_locked(self._clock() if now is None else now) + self._enforce()

    def _sweep_locked(self, now: float) -> int:
        stale = [k for k, e in self._entries.items() if now - e.used > self.ttl_s]
        for key in stale:
            self._drop(key, f"was dropped after {self.ttl_s / 60:g} min unused (REA_SESSION_TTL_S)")
        return len(stale)

    def _enforce(self, keep: str | None = None) -> int:
        """Drop the least recently used values until they and ``reserved()`` fit the cap; ``keep``
        (the value just put or read) goes only if it alone does not fit."""
        dropped = 0
        budget = self.max_bytes - self._reserved()
        why = f"was dropped to free memory (the server keeps {mb(self.max_bytes)} over all sessions)"
        while self._entries and self.total_bytes > budget:
            victim = next((k for k in self._entries if k != keep), keep)
            self._drop(victim, why)
            dropped += 1
        return dropped

    def _drop(self, key: str, why: str) -> None:
        entry = self._entries.pop(key, None)
        self._gone[key] = why
        if entry is not None and entry.on_drop is not None:
            try:
                entry.on_drop(why)
            except Exception:  # a callback's failure must not stop the cap
                log.exception("dropping %s: its callback failed", entry.what)
        while len(self._gone) > _GONE_KEPT:
            self._gone.popitem(last=False)

    def _start_sweeper(self) -> None:
        """A daemon thread sweeping every ``sweep_every_s``, so an idle server frees expired values
        too; it ends when the store is collected."""
        with self._lock:
            if self._sweeper is not None:
                return
            ref, every = weakref.ref(self), self._sweep_every_s

            def loop() -> None:
                while True:
                    time.sleep(every)
                    store = ref()
                    if store is None:
                        return
                    store.sweep()
                    del store

            self._sweeper = threading.Thread(target=loop, name="rea-session-sweep", daemon=True)
            self._sweeper.start()

    # -- figures -------------------------------------------------------------------------------

    @property
    def total_bytes(self) -> int:
        return sum(e.nbytes for e in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, handle: Any) -> bool:
        return isinstance(handle, Handle) and handle.key in self._entries
