"""Per-session KV prefix cache: what chat servers (vLLM prefix caching, llama.cpp's prompt
cache) do, in process.

Each conversation (``cache_key``, a server-made session id: never taken from user input, so no
two sessions share an entry) keeps the input items of its last call (prompt plus the reply tokens
fed back) and their KV cache. The next call reuses the longest common
prefix and prefills only the rest. Items are token ids, and for a latent block one marker per
row naming the block's content, so a latent prompt reuses its prefix too. Correctness never
depends on the key: reuse is decided by comparing the items themselves, so a stale or wrong
entry costs time, never a different reply, and one session's entry is never read for another.

Bounded: at most ``max_sessions`` entries and ``max_bytes`` of KV, least recently used evicted.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Hashable, Sequence


def reuse_pays(reused: int, prompt: int, device: str) -> bool:
    """Whether prefilling ``prompt - reused`` positions on top of ``reused`` cached ones beats a full
    prefill of ``prompt``. On a CPU the continuation takes attention's masked path (a query block
    after cached keys cannot use the causal kernel) and costs more per new token, the more so the
    longer the prompt: measured on 2 cores (``benchmarks/prefill_reuse.py``, BENCHMARKS.md "Prompt
    reuse"), the break-even share was about 0.1 at 2,000 tokens and 0.27 at 4,000, so a small shared
    prefix (a system prompt) made a cached reply slower than an uncached one. Elsewhere: always."""
    if reused <= 0:
        return False
    return device != "cpu" or reused >= min(0.35, prompt / 15000) * prompt


def common_prefix(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common prefix of two item sequences."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def kv_bytes(kv) -> int:
    """Bytes of a transformers Cache's key and value tensors (an entry's ``nbytes``)."""
    total = 0
    for layer in getattr(kv, "layers", ()):
        for t in (getattr(layer, "keys", None), getattr(layer, "values", None)):
            if t is not None and hasattr(t, "numel"):
                total += t.numel() * t.element_size()
    return total


@dataclass
class CacheEntry:
    """One session's cached input items and the KV cache computed for exactly those positions."""

    items: tuple
    kv: object  # a transformers Cache holding len(items) positions
    nbytes: int
    mode: str  # which weights computed it ("plain" backbone, or a codec adapter): KV of one mode never serves another


@dataclass(frozen=True)
class CacheLimits:
    """How much KV the prefix cache may hold (REA_KV_CACHE_SESSIONS, REA_KV_CACHE_MB)."""

    max_sessions: int = 16
    max_bytes: int = 512 * 2**20

    def __post_init__(self) -> None:
        if self.max_sessions < 1 or self.max_bytes < 1:
            raise ValueError("the KV cache needs room for at least one session and one byte")


class PrefixCache:
    """LRU map from a session key to its ``CacheEntry``. Thread-safe; entries are taken while in use.

    A key stays taken from ``take`` to ``put`` (or ``release``): a second call on the same session
    (a reply arriving while the prompt's opening is still being read ahead, ``HFGenerator.prefill``)
    waits for the first rather than starting from nothing."""

    def __init__(self, limits: CacheLimits | None = None):
        self.limits = limits or CacheLimits()
        self._entries: OrderedDict[str, CacheEntry] = OrderedDict()
        self._lock = threading.Lock()
        self._free = threading.Condition(self._lock)
        self._taken: set[str] = set()

    def take(self, key: str, *, wait_s: float = 120.0) -> CacheEntry | None:
        """Remove and return ``key``'s entry (a call mutates the KV; it is put back when the call ends).

        Waits up to ``wait_s`` while another call holds ``key``; then takes what is there (None: a
        full prefill), so a call that never gave its key back costs time, not a hang."""
        with self._free:
            self._free.wait_for(lambda: key not in self._taken, timeout=wait_s)
            self._taken.add(key)
            return self._entries.pop(key, None)

    def release(self, key: str) -> None:
        """Give ``key`` back without an entry (the call that took it failed)."""
        with self._free:
            self._taken.discard(key)
            self._free.notify_all()

    def put(self, key: str, entry: CacheEntry) -> list[str]:
        """Store ``entry`` as the most recent and give ``key`` back; evict least recently used entries
        past the limits.

        An entry larger than ``max_bytes`` alone is not kept. Returns the evicted keys.
        """
        evicted = []
        with self._free:
            self._taken.discard(key)
            self._free.notify_all()
            self._entries.pop(key, None)
            if entry.nbytes > self.limits.max_bytes:
                return [key]
            self._entries[key] = entry
            while len(self._entries) > self.limits.max_sessions or self.total_bytes_locked() > self.limits.max_bytes:
                old, _ = self._entries.popitem(last=False)
                evicted.append(old)
        return evicted

    def drop(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def total_bytes_locked(self) -> int:
        return sum(e.nbytes for e in self._entries.values())

    def bytes_of(self, key: str) -> int:
        """KV bytes cached for ``key`` (0 when none): the per-session figure the stats line shows."""
        with self._lock:
            entry = self._entries.get(key)
            return entry.nbytes if entry else 0

    def usage(self) -> dict[str, int]:
        """Bytes per cached session, least recently used first."""
        with self._lock:
            return {k: e.nbytes for k, e in self._entries.items()}

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
